/* SPDX-License-Identifier: MIT */
/*
 * merge.h - ftf-merge's core: FTF traces into one, in one tick domain.
 */
#ifndef FTF_MERGE_H
#define FTF_MERGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct merge_input {
	const char *path;
	bool has_offset; /* --offset given for it */
	int64_t offset_ns;
};

struct merge_opts {
	const struct merge_input *in;
	int n;
	const char *output; /* ending in .gz: gzip */
	FILE *log;	    /* how each input is placed, notes; NULL: none */
};

struct merge_stats {
	uint64_t records;   /* records written */
	uint64_t bytes_in;  /* record bytes read (decompressed) */
	uint64_t bytes_out; /* record bytes written (before compression) */
	uint64_t clamped;   /* timestamps outside the output's range (an
			     * --offset too far back): pinned to 0 or the
			     * largest time */
};

/* Merges o->in into o->output. 0, or a negative errno with one line in
 * err (what was at o->output is left as
 * it was then). */
int merge_run(const struct merge_opts *o, struct merge_stats *st, char *err,
	      size_t errlen);

#endif
