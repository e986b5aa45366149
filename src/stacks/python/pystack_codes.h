/* SPDX-License-Identifier: MIT */
/*
 * pystack_codes.h - the strings of the Python code objects the kernel
 * sent (FTFB_EV_PYCODE), by process and code object address: what a
 * Python frame of a stack sample is named from.
 *
 * The kernel sends a code object's strings once per process image, so
 * they are kept for the whole trace (a stackprof keeps its own, or
 * uses the flight recorder's, fed as events come in). A code object is
 * known by its address and def line; a later event for the same (a new
 * image after an exec, or a code object freed and another made at its
 * address with the same line) replaces the entry.
 */
#ifndef FTFB_PYSTACK_CODES_H
#define FTFB_PYSTACK_CODES_H

#include <stdint.h>

#include "events.h"

struct ftfb_pycode_info {
	const char *name; /* qualified name (3.11+), name before */
	const char *file;
	int32_t line; /* of the def */
};

struct ftfb_pycodes;

int ftfb_pycodes_new(struct ftfb_pycodes **out);
/* Keeps the strings of e (copied); 0 or -ENOMEM. */
int ftfb_pycodes_add(struct ftfb_pycodes *c, const struct ftfb_pycode *e);
/* The code object of a stack entry (its address and line: bpf/
 * pystack.h) of process tgid, NULL if never sent. Valid until the next
 * add. */
const struct ftfb_pycode_info *ftfb_pycodes_get(const struct ftfb_pycodes *c,
						uint32_t tgid, uint64_t entry);
void ftfb_pycodes_free(struct ftfb_pycodes *c);

#endif
