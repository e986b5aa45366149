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

/* Caps on what a map's writer (any user) can make the tracer hold:
 * bytes read of one map, entries kept, bytes of a line (a longer one is
 * skipped whole) and of a name (cut, then made safe: safe_name.h). */
#define FTFB_PERFMAP_MAX (64ULL << 20)
#define FTFB_PERFMAP_MAX_ENTRIES (1u << 20)
#define FTFB_PERFMAP_LINE_MAX 4096
#define FTFB_PERFMAP_NAME_MAX 1024

struct ftfb_perfmap_ent {
	uint64_t start, size;
	char *name;
	size_t line; /* keeps the file's order among equal starts */
};

struct ftfb_perfmap {
	struct ftfb_perfmap_ent *v; /* sorted by start */
	size_t n;
};

/* Reads at most max bytes of fd (a regular file opened to read, left
 * open) into pm, replacing what it had; lines that do not parse or are
 * over FTFB_PERFMAP_LINE_MAX are skipped, names are cut and made safe,
 * entries past FTFB_PERFMAP_MAX_ENTRIES dropped. 0 or -ENOMEM. */
int ftfb_perfmap_load_fd(struct ftfb_perfmap *pm, int fd, uint64_t max);
/* The same from the regular file at path, up to FTFB_PERFMAP_MAX
 * bytes: 0, -errno (cannot open; -ENOEXEC not a regular file, -EFBIG
 * too big; pm is then empty) or -ENOMEM. */
int ftfb_perfmap_load(struct ftfb_perfmap *pm, const char *path);
/* The name of the entry covering ip (the last one listed wins where
 * entries overlap, as code is recompiled at the same place), or NULL. */
const char *ftfb_perfmap_find(const struct ftfb_perfmap *pm, uint64_t ip);
void ftfb_perfmap_free(struct ftfb_perfmap *pm);

#endif
