// Package dp is data-parallel training on gpuarr, written to be copied: a
// multilayer perceptron (linear layers without bias, ReLU between them,
// mean squared error) whose every rank holds a replica of the weights and
// a shard of each batch, as PyTorch's DistributedDataParallel does.
//
// One step on each rank: the forward pass on the rank's compute stream;
// the backward pass from the last layer to the first, each layer's weight
// gradient written straight into its place in a gradient bucket (a flat
// array of about Config.BucketBytes); as soon as a bucket's last gradient
// is written, the bucket is all-reduced (summed) on the rank's
// communication stream while the compute stream goes on with the layers
// before it; then the update w −= η·g of every layer on the compute
// stream.
//
// Nothing here synchronizes by hand: gpuarr's tracking orders the two
// streams. The all-reduce of a bucket waits (on the device) for the
// compute stream's writes of its gradients, the update waits for the
// all-reduce, and the next step's gradient writes wait for both; buckets
// are separate arrays, so the backward pass never waits for an all-reduce
// still running on another bucket. The loss is scaled by the global batch
// (2/(rows·ranks·outputs)), so the summed gradient is the one-device
// gradient of the whole batch: the same weights and losses as training on
// one device, up to rounding.
//
// A Trainer takes the communicator's local ranks (one under a launcher,
// collective.Init; every device of the process with collective.NewComm)
// and steps them together. Arrays are allocated once, when the Trainer is
// made; a step allocates only the loss's one-element array. Example
// trains one rank for a few steps.
package dp
