// SPDX-License-Identifier: MIT
/*
 * perfmap.c - JIT code names from /tmp/perf-PID.map (see perfmap.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files_cancel.h"
#include "grow_array.h"
#include "perfmap.h"

void ftfb_perfmap_free(struct ftfb_perfmap *pm)
{
	for (size_t i = 0; i < pm->n; i++)
		free(pm->v[i].name);
	free(pm->v);
	pm->v = NULL;
	pm->n = 0;
}

/* by start; equal starts keep the file's order (the later line last) */
static int ent_cmp(const void *a, const void *b)
{
	const struct ftfb_perfmap_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int ftfb_perfmap_load(struct ftfb_perfmap *pm, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[4096];
	size_t cap = 0, lines = 0;

	ftfb_perfmap_free(pm);
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, size;
		int at = 0;

		/* a map of millions of lines takes minutes: the stop's bound
		 * ends it (files_cancel.h) */
		if (!(++lines % 4096) && ftfb_files_cancelled()) {
			fclose(f);
			ftfb_perfmap_free(pm);
			return -ECANCELED;
		}

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size,
			   &at) < 2 ||
		    !at || !size)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (ftfb_grow_array((void **)&pm->v, &cap, pm->n + 1,
				    sizeof(*pm->v)) ||
		    !(pm->v[pm->n].name = strdup(line + at))) {
			fclose(f);
			return -ENOMEM;
		}
		pm->v[pm->n].line = pm->n;
		pm->v[pm->n].start = start;
		pm->v[pm->n++].size = size;
	}
	fclose(f);
	/* (qsort is not stable: `line` keeps the file's order) */
	qsort(pm->v, pm->n, sizeof(*pm->v), ent_cmp);
	return 0;
}

const char *ftfb_perfmap_find(const struct ftfb_perfmap *pm, uint64_t ip)
{
	size_t lo = 0, hi = pm->n;

	while (lo < hi) { /* the last entry starting at or below ip */
		size_t mid = lo + (hi - lo) / 2;

		if (pm->v[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* an entry further down may still cover ip (nested, or a longer
	 * one before): a few back suffice in practice */
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (ip - pm->v[i].start < pm->v[i].size)
			return pm->v[i].name;
	return NULL;
}
