// Package indexcheck carries out-of-range indices that kernels find on the
// device back to the host, without a synchronization of its own: the
// error surfaces at the first host wait after the kernel has run.
//
// An operation that checks indices (gpuarr's Take, Put, IndexAdd, ...)
// Reserves a Check before it launches: a 32-byte slot in memory that the
// device and the host both reach (managed memory; device memory read by a
// copy where the CPU may not touch managed memory while kernels run). A
// kernel that meets a bad index never reads or writes through it (it
// clamps or skips) and records the smallest position of a bad index and
// that index in the slot (Protocol). After queuing its kernels the
// operation calls Issued, which records an event behind them on the
// stream and queues the check there.
//
// Every host wait of package tracking (a host read of any array, Item,
// gpuarr.Synchronize, ...) calls Poll after it returns: the checks whose
// events have completed, on every stream of the device, are read, their
// slots given back, and the bad ones returned as *Error values (joined
// when several operations failed). A wait for an array written after a
// checked operation on the same stream, or after work that waited for it,
// therefore always reports that operation's bad index; the error is
// reported once.
// Example follows one check from Reserve to Poll.
//
// A stream with more than MaxPending checks queued polls itself when one
// more is issued and, when the oldest is still running, waits for it: the
// only wait this package adds, and only when a program queues that many
// checked operations without ever waiting.
//
// # Protocol
//
// Slot bytes [0, 8) hold the smallest bad position (all ones: none),
// [8, 16) the index found there, [16, 20) a lock word. A thread with a bad
// index at position p does atom.min on the position; only when that
// lowered it does it take the lock (atom.cas 0 → 1), store its index if
// the position still is p, and release the lock. The last thread to lower
// the position therefore stores last, and the slot ends with the smallest
// position and its own index. Host kernels do the same through
// RecordHost.
//
// This package owns the slots, the per-stream queues of pending checks and
// their events. It knows nothing of arrays; it imports only package
// device.
package indexcheck
