/* SPDX-License-Identifier: MIT */
/*
 * files_cancel.h - the stop's bound on work with traced processes' files.
 *
 * Symbols, perf maps and CPython's binary are read on the run loop's
 * thread, as events need them; every one of those files is chosen by the
 * traced process's user, and reading one can take long (a 1 GB perf map
 * held the drain for over ten minutes). The stop sets a deadline (a stop
 * signal's handler, -d's end, the stop's decision: the earliest wins);
 * past it, no such read is begun, and long reads that look at it end:
 * the frames they would have named stay unnamed, and the trace ends
 * whole. The unwind table thread has its own flag (unwind_maps.h).
 */
#ifndef FTFB_FILES_CANCEL_H
#define FTFB_FILES_CANCEL_H

#include <stdbool.h>
#include <stdint.h>

/* How long after the stop a process's files may still be read: the
 * drain's new stacks get their names in the common case. */
#define FTFB_FILES_GRACE_NS 1000000000ull

/* Work on processes' files ends at mono_ns (CLOCK_MONOTONIC), or at the
 * deadline set before if earlier. Async-signal-safe. */
void ftfb_files_cancel_at(uint64_t mono_ns);
/* The same, FTFB_FILES_GRACE_NS from now. Async-signal-safe. */
void ftfb_files_cancel_soon(void);
/* True once the deadline has passed: do not begin (or go on with) a
 * read of a process's file. */
bool ftfb_files_cancelled(void);
/* Reads not begun because of it (for the summary). */
void ftfb_files_note_skipped(void);
uint64_t ftfb_files_skipped(void);

#endif
