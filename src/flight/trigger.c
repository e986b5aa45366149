/* SPDX-License-Identifier: MIT */
/*
 * trigger.c - slow-call triggers of the flight recorder (trigger.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trigger.h"

#define TRIG_THREADS 4096 /* threads tracked at once (open addressing) */
#define TRIG_DEPTH 32     /* open trigger calls per thread */

struct trig_thread {
	uint32_t tid; /* 0: free */
	uint32_t depth;
	uint32_t cookie[TRIG_DEPTH];
	uint64_t begin[TRIG_DEPTH];
};

struct ftfb_triggers {
	const uint64_t *threshold;
	size_t nfuncs;
	struct trig_thread th[TRIG_THREADS];
};

struct ftfb_triggers *ftfb_triggers_new(const uint64_t *threshold_ns,
					size_t nfuncs)
{
	struct ftfb_triggers *t;

	if (!threshold_ns)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t) {
		t->threshold = threshold_ns;
		t->nfuncs = nfuncs;
	}
	return t;
}

void ftfb_triggers_free(struct ftfb_triggers *t)
{
	free(t);
}

/* The thread's entry; with create, a free one (or, table full, the
 * slot it hashes to, reused). */
static struct trig_thread *thread_of(struct ftfb_triggers *t, uint32_t tid,
				     bool create)
{
	uint32_t h = (tid * 2654435761u) % TRIG_THREADS;

	for (uint32_t i = 0; i < TRIG_THREADS; i++) {
		struct trig_thread *th = &t->th[(h + i) % TRIG_THREADS];

		if (th->tid == tid)
			return th;
		if (!th->tid) {
			if (!create)
				return NULL;
			th->tid = tid;
			th->depth = 0;
			return th;
		}
	}
	if (!create)
		return NULL;
	t->th[h].tid = tid;
	t->th[h].depth = 0;
	return &t->th[h];
}

static bool is_trigger(const struct ftfb_triggers *t, uint32_t cookie)
{
	return cookie < t->nfuncs && t->threshold[cookie] != UINT64_MAX;
}

static void on_entry(struct ftfb_triggers *t, const struct ftfb_uentry *e)
{
	struct trig_thread *th = thread_of(t, e->hdr.tid, true);

	if (th->depth == TRIG_DEPTH) { /* deeper recursion: keep the newest */
		memmove(th->cookie, th->cookie + 1,
			(TRIG_DEPTH - 1) * sizeof(th->cookie[0]));
		memmove(th->begin, th->begin + 1,
			(TRIG_DEPTH - 1) * sizeof(th->begin[0]));
		th->depth--;
	}
	th->cookie[th->depth] = e->cookie;
	th->begin[th->depth++] = e->hdr.ts;
}

/* The entry time of the call this return ends, 0 if unknown; calls above
 * it whose returns were lost (or skipped by a longjmp) are dropped. */
static uint64_t on_return(struct ftfb_triggers *t, const struct ftfb_uret *r)
{
	struct trig_thread *th = thread_of(t, r->hdr.tid, false);

	while (th && th->depth) {
		th->depth--;
		if (th->cookie[th->depth] == r->cookie)
			return th->begin[th->depth];
	}
	return 0;
}

bool ftfb_triggers_event(struct ftfb_triggers *t, const void *data,
			 size_t size, char *why, size_t whylen,
			 const struct ftfb_func *funcs)
{
	const struct ftfb_hdr *h = data;
	uint64_t begin, dur;

	if (h->kind == FTFB_EV_UENTRY && size >= sizeof(struct ftfb_uentry)) {
		const struct ftfb_uentry *e = data;

		if (is_trigger(t, e->cookie))
			on_entry(t, e);
		return false;
	}
	if (h->kind != FTFB_EV_URET || size < sizeof(struct ftfb_uret))
		return false;
	{
		const struct ftfb_uret *r = data;

		if (!is_trigger(t, r->cookie))
			return false;
		begin = on_return(t, r);
		if (!begin || r->hdr.ts < begin)
			return false;
		dur = r->hdr.ts - begin;
		if (t->threshold[r->cookie] && dur <= t->threshold[r->cookie])
			return false;
		snprintf(why, whylen, "%s:%s() took %.3f ms (thread %u)",
			 funcs[r->cookie].category, funcs[r->cookie].name,
			 (double)dur / 1e6, r->hdr.tid);
	}
	return true;
}
