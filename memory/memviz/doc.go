// Package memviz draws a gpuarr memory trace (memory.Tracer's JSON) as one
// self-contained HTML page, in the spirit of PyTorch's memory_viz: the
// bytes in use over time, stacked and coloured by the call stack that
// allocated them, with the reserved bytes (segments obtained from the
// driver) as a line above; Go GC cycles, eager collections, reclaim-ladder
// steps, trims, segment releases and out-of-memory errors marked on the
// time axis; a device and a stream to choose; and, on hovering, an
// allocation's size, stream, lifetime and stack. The page needs no
// network: its script, style and data are inline.
//
//	gpuarr memviz trace.json > timeline.html
//
// The page draws on a canvas from aggregates: for each pixel column the
// bytes each of the top stacks holds at its middle, and the exact peak of
// the allocated bytes within it (short-lived blocks that no column's
// middle sees still raise that line); hovering reads the exact data.
// Zoom with the wheel, pan by dragging, double-click to see everything.
// Example draws a traced resource's page.
package memviz
