/* SPDX-License-Identifier: MIT */
/*
 * pystack_procs.h - which traced processes are CPython, told to the BPF
 * Python frame reader as their samples come in.
 *
 * A process is looked at (pystack_find.h) when its first stack sample
 * arrives, and again every 20 ms for its first 2 s while it runs a
 * python3.X executable without CPython's runtime (a shared build maps
 * libpython only after its exec, and a command's samples start right at
 * the exec); an exec or the exit of the process starts it over. A CPython
 * version the build has no offsets for is named in one warning line on stderr,
 * once per version
 * ("python 3.7: Python frames not supported, native frames only").
 */
#ifndef FTFB_PYSTACK_PROCS_H
#define FTFB_PYSTACK_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "pystack_find.h"

/* Sets (p) or removes (NULL) process tgid's entry for the BPF reader. */
typedef int (*ftfb_py_set_fn)(void *ctx, uint32_t tgid,
			      const struct ftfb_py_proc *p);

struct ftfb_pyprocs;

int ftfb_pyprocs_new(struct ftfb_pyprocs **out, ftfb_py_set_fn set,
		     void *set_ctx);
/* An event from the kernel at now_ns (CLOCK_MONOTONIC): a stack sample
 * may make its process looked at, an exec or a process's exit makes it
 * looked at anew. */
void ftfb_pyprocs_event(struct ftfb_pyprocs *d, const void *data, size_t size,
			uint64_t now_ns);
/* A stack sample of tgid came at now_ns (CLOCK_MONOTONIC). */
void ftfb_pyprocs_seen(struct ftfb_pyprocs *d, uint32_t tgid, uint64_t now_ns);
/* tgid exec'd or exited: what was found of it no longer holds. */
void ftfb_pyprocs_forget(struct ftfb_pyprocs *d, uint32_t tgid);
void ftfb_pyprocs_free(struct ftfb_pyprocs *d);

#endif
