// SPDX-License-Identifier: MIT
/*
 * translate_stats.c - what the summary reads: the statistics, and the
 * functions and system calls with the most calls or time.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "translate_priv.h"

struct sort_ctx {
	const struct ftfb_func_stats *fs;
	bool by_time;
};

static int cmp_func(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	uint64_t va = c->by_time ? c->fs[ia].total_ns : c->fs[ia].calls;
	uint64_t vb = c->by_time ? c->fs[ib].total_ns : c->fs[ib].calls;

	if (va != vb)
		return va > vb ? -1 : 1;
	return ia < ib ? -1 : (ia > ib);
}

/* The indices of the n entries of fs[0..count) with the most calls (or
 * time), among those called at all. */
static size_t top_of(const struct ftfb_func_stats *fs, size_t count,
		     bool by_time, size_t *out, size_t n)
{
	size_t m = 0, *all;

	if (!count || !n)
		return 0;
	all = malloc(count * sizeof(*all));
	if (!all)
		return 0;
	for (size_t i = 0; i < count; i++)
		if (fs[i].calls)
			all[m++] = i;
	qsort_r(all, m, sizeof(*all), cmp_func,
		&(struct sort_ctx){.fs = fs, .by_time = by_time});
	if (m > n)
		m = n;
	memcpy(out, all, m * sizeof(*out));
	free(all);
	return m;
}

size_t ftfb_translator_top(const struct ftfb_translator *t, bool by_time,
			   size_t *out, size_t n)
{
	return top_of(t->fstats, t->o.nfuncs, by_time, out, n);
}

size_t ftfb_translator_top_syscalls(const struct ftfb_translator *t,
				    bool by_time, size_t *out, size_t n)
{
	return top_of(t->sys_stats, FTFB_NR_SYSCALLS, by_time, out, n);
}

const struct ftfb_translator_stats *
ftfb_translator_stats(const struct ftfb_translator *t)
{
	return &t->st;
}

const struct ftfb_func_stats *
ftfb_translator_func_stats(const struct ftfb_translator *t, size_t i)
{
	return &t->fstats[i];
}

const struct ftfb_func_stats *
ftfb_translator_syscall_stats(const struct ftfb_translator *t, uint32_t nr)
{
	return &t->sys_stats[nr];
}
