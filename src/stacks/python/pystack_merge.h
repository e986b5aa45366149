/* SPDX-License-Identifier: MIT */
/*
 * pystack_merge.h - where a sample's Python frames go among its native
 * user frames.
 *
 * Each native _PyEval_EvalFrameDefault frame is replaced by the Python
 * frames that interpreter call ran: on 3.8-3.10 one frame per call; on
 * 3.11+ one call runs a run of frames (Python-to-Python calls stay in
 * it), whose first one the kernel marked (FTFB_PY_EVAL_FIRST, from
 * 3.11's is_entry or 3.12+'s entry shim frames). So the frames
 * interleave with the C between them: C extensions, the kernel's.
 *
 * That needs the whole native stack: one walked to its start (its CFI
 * says there is no caller: no "unwind stopped" frame), or whose root is
 * a thread's or program's start by name. (A thread's start, libc's
 * start_thread and clone3, has no symbol in Debian's stripped libc, so
 * the name alone would miss every thread but the main one.) When it is
 * not whole, or the eval frames do not match the runs, the Python frames
 * are placed as the root of the stack instead (the documented fallback):
 * all of them, outermost first, then the native frames the innermost
 * eval frame called (all native frames when none is an eval frame).
 */
#ifndef FTFB_PYSTACK_MERGE_H
#define FTFB_PYSTACK_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a native frame's function is, for the merge. */
enum ftfb_py_native {
	FTFB_PYN_OTHER = 0,
	FTFB_PYN_EVAL = 1, /* _PyEval_EvalFrameDefault */
	FTFB_PYN_ROOT = 2  /* a stack's start: _start, start_thread, clone */
};

/* The kind of a native function name. */
enum ftfb_py_native ftfb_py_native_kind(const char *function);

/* An entry of the merged stack: native[index] (root-first) or
 * python[index] (the kernel's leaf-first order). */
struct ftfb_py_slot {
	bool python;
	uint32_t index;
};

/* Merges nn native frames (their kinds root first; whole: walked to
 * the stack's start) and np Python entries (leaf first, with
 * FTFB_PY_EVAL_FIRST bits) into out, root first; at most max. Returns
 * the count; *exact: interleaved (else the fallback). */
size_t ftfb_py_merge(const uint8_t *native_kind, uint32_t nn, bool whole,
		     const uint64_t *py, uint32_t np, struct ftfb_py_slot *out,
		     size_t max, bool *exact);

#endif
