/* SPDX-License-Identifier: MIT */
/*
 * pystack_find.h - is a process CPython, and where is its interpreter
 * state: what the BPF Python frame reader needs of it (struct
 * ftfb_py_proc, bpf/pystack.h).
 *
 * A process is CPython when its maps hold libpython3.X (a shared build)
 * or a python3.X executable that defines _PyRuntime (a static one, as
 * Debian's). The addresses of _PyRuntime and PyCode_Type come from the
 * file's symbols (.dynsym, .symtab) and its load address in the maps;
 * the offsets from the table generated at build time from each
 * version's headers (src/stacks/python/gen/pyoffsets.py).
 */
#ifndef FTFB_PYSTACK_FIND_H
#define FTFB_PYSTACK_FIND_H

#include <stdint.h>

#include "events.h"

enum ftfb_py_found {
	FTFB_PY_NOT_PYTHON = 0,	 /* nothing named python in the maps */
	FTFB_PY_SUPPORTED = 1,	 /* *out filled */
	FTFB_PY_UNSUPPORTED = 2, /* CPython 3.minor, no offsets for it */
	FTFB_PY_NOT_YET = 3	 /* a python3.X executable without
				  * _PyRuntime: its libpython may come */
};

/* Looks at process pid's maps. *minor: the version's minor number when
 * CPython was seen (supported or not). */
enum ftfb_py_found ftfb_py_find(uint32_t pid, struct ftfb_py_proc *out,
				int *minor);

/* The offsets generated for CPython 3.minor, NULL if none. */
const struct ftfb_py_offsets *ftfb_py_offsets_for(int minor);

/* The versions the build has offsets for, as "3.8 3.9 ..." into buf. */
void ftfb_py_versions(char *buf, size_t len);

#endif
