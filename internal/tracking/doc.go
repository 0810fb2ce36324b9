// Package tracking orders the streams that share a buffer of device
// memory. A State is one buffer's record: its last writer (a stream, and
// an event recorded only when someone must wait for it) and the streams
// that read it since, behind a lock that an operation holds from its
// ordering until its work is issued.
//
// The rules (UseLocked): an operation on stream S that reads the buffer
// waits, on the device, for the last write when another stream made it;
// one that writes also waits for the reads other streams made since.
// Events are recorded lazily, the first time another stream or the host
// must wait, so work that stays on one stream makes no driver call beyond
// its own and a hand-off costs one record-and-wait; an operation that
// ends in one kernel launch holds its hand-offs (Handoffs, through
// UseLockedInto) and issues them with the launch, one driver call for
// all of it. The host (HostRead,
// HostAccess, Peek) waits only when a dirty bit says a GPU write may be
// pending, and only for that writer; every such wait goes through one
// function, where package gcpressure's eager collection hooks in before
// the CPU blocks. Streams that are capturing are detected (an atomic flag,
// no driver call): uses that would join another stream into a capture, or
// synchronize one, fail with device.ErrStreamCapture.
//
// When its buffer is freed, Release declares the streams that used it to
// the memory's resource (RecordUse), so the memory is reused only after
// them. Example walks one buffer's record through a hand-off.
//
// This package owns the records, the per-device pools of events and the
// counters of the driver calls it makes. It does not know arrays, handles
// or allocation (internal/lifetime holds a State in each buffer) and
// never frees memory.
package tracking
