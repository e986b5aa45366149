/* SPDX-License-Identifier: MIT */
/*
 * perfmap.h - the names of JIT code from a perf map file
 * (/tmp/perf-PID.map: "START SIZE NAME" a line, hex START and SIZE, as
 * Node's --perf-basic-prof, the JVM's agents and Python 3.12's -X perf
 * write it), for the frames of anonymous executable memory.
 */
#ifndef FTFB_PERFMAP_H
#define FTFB_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct ftfb_perfmap_ent {
	uint64_t start, size;
	char *name;
	size_t line; /* keeps the file's order among equal starts */
};

struct ftfb_perfmap {
	struct ftfb_perfmap_ent *v; /* sorted by start */
	size_t n;
};

/* Reads the file at path into pm (replacing what it had); lines that do
 * not parse are skipped. 0, -errno (cannot open; pm is then empty) or
 * -ENOMEM. */
int ftfb_perfmap_load(struct ftfb_perfmap *pm, const char *path);
/* The name of the entry covering ip (the last one listed wins where
 * entries overlap, as code is recompiled at the same place), or NULL. */
const char *ftfb_perfmap_find(const struct ftfb_perfmap *pm, uint64_t ip);
void ftfb_perfmap_free(struct ftfb_perfmap *pm);

#endif
