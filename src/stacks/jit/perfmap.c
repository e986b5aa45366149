// SPDX-License-Identifier: MIT
/*
 * perfmap.c - JIT code names from /tmp/perf-PID.map (see perfmap.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files_cancel.h"
#include "grow_array.h"
#include "perfmap.h"
#include "proc_file.h"
#include "safe_name.h"

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

/* One "START SIZE NAME" line into pm: 0 (kept or skipped) or -ENOMEM. */
static int add_line(struct ftfb_perfmap *pm, size_t *cap, char *line)
{
	uint64_t start, size;
	int at = 0;
	char *name;

	if (sscanf(line, "%" SCNx64 " %" SCNx64 " %n", &start, &size, &at) <
		    2 ||
	    !at || !size || pm->n >= FTFB_PERFMAP_MAX_ENTRIES)
		return 0;
	line[strcspn(line, "\n")] = '\0';
	if (strlen(line + at) > FTFB_PERFMAP_NAME_MAX)
		line[at + FTFB_PERFMAP_NAME_MAX] = '\0';
	if (!(name = strdup(line + at)) ||
	    ftfb_grow_array((void **)&pm->v, cap, pm->n + 1, sizeof(*pm->v))) {
		free(name);
		return -ENOMEM;
	}
	ftfb_safe_name(name, FTFB_PERFMAP_NAME_MAX);
	pm->v[pm->n].name = name;
	pm->v[pm->n].line = pm->n;
	pm->v[pm->n].start = start;
	pm->v[pm->n++].size = size;
	return 0;
}

int ftfb_perfmap_load_fd(struct ftfb_perfmap *pm, int fd, uint64_t max)
{
	char line[FTFB_PERFMAP_LINE_MAX + 2];
	size_t cap = 0, lines = 0;
	bool skip = false; /* in a line too long */
	int dup_fd = dup(fd), rc = 0;
	FILE *f;

	ftfb_perfmap_free(pm);
	if (dup_fd < 0 || !(f = fdopen(dup_fd, "r"))) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -ENOMEM;
	}
	/* (the writer may append while it is read: max bounds it) */
	while (!rc && (uint64_t)ftello(f) < max &&
	       fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		/* cut by the buffer, not by a newline or the end */
		bool cut = len == sizeof(line) - 1 && line[len - 1] != '\n';

		/* a map of millions of lines takes minutes: the stop's bound
		 * ends it (files_cancel.h) */
		if (!(++lines % 4096) && ftfb_files_cancelled()) {
			fclose(f);
			ftfb_perfmap_free(pm);
			return -ECANCELED;
		}
		if (!len) /* a NUL first: not a line of a map */
			continue;
		if (!skip && !cut)
			rc = add_line(pm, &cap, line);
		skip = cut || (skip && line[len - 1] != '\n');
	}
	fclose(f);
	/* (qsort is not stable: `line` keeps the file's order) */
	qsort(pm->v, pm->n, sizeof(*pm->v), ent_cmp);
	return rc;
}

int ftfb_perfmap_load(struct ftfb_perfmap *pm, const char *path)
{
	struct stat st;
	int pfd = open(path, O_PATH | O_CLOEXEC), fd, rc;

	ftfb_perfmap_free(pm);
	if (pfd < 0)
		return -errno;
	fd = fstat(pfd, &st) ? -errno
			     : ftfb_reopen_regular(pfd, &st, FTFB_PERFMAP_MAX);
	close(pfd);
	if (fd < 0)
		return fd;
	rc = ftfb_perfmap_load_fd(pm, fd, FTFB_PERFMAP_MAX);
	close(fd);
	return rc;
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
