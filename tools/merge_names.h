/* SPDX-License-Identifier: MIT */
/*
 * merge_names.h - the names of kernel objects (processes, threads) seen
 * so far across ftf-merge's inputs, by object type and koid, so a record
 * that names none in one input can carry the name another gave.
 */
#ifndef FTF_MERGE_NAMES_H
#define FTF_MERGE_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct merge_name {
	uint64_t koid;
	unsigned type; /* 0: free slot */
	char *text;
	size_t len;
};

struct merge_names {
	struct merge_name *e;
	size_t cap, n;
};

/* Remembers (replaces) the name; 0 or -ENOMEM. */
int merge_names_set(struct merge_names *t, unsigned type, uint64_t koid,
		    const char *text, size_t len);
/* The name, or NULL. */
const struct merge_name *merge_names_get(const struct merge_names *t,
					 unsigned type, uint64_t koid);
void merge_names_free(struct merge_names *t);

#endif
