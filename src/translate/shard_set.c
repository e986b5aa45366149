// SPDX-License-Identifier: MIT
/*
 * shard_set.c - the ring shards of one translator (see shard_set.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shard_set.h"

/* A shard hands its records over at least this often (when it has some):
 * the translator's thread collects them at its next turn. */
#define SHARD_FLUSH_NS 200000000ull

struct set_shard {
	struct ftfb_shard shard;
	uint64_t flushed_ns;
};

struct ftfb_shard_set {
	struct ftfb_translator *t;
	struct ftfb_relay relay;
	bool relay_open;
	unsigned n;
	struct set_shard v[];
};

int ftfb_shard_set_new(struct ftfb_shard_set **out, struct ftfb_translator *t,
		       unsigned n, char *err, size_t errlen)
{
	struct ftfb_shard_set *ss =
		calloc(1, sizeof(*ss) + n * sizeof(ss->v[0]));
	int r;

	*out = ss;
	if (!ss || ftfb_relay_init(&ss->relay, 0)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ss->relay_open = true;
	ss->t = t;
	for (unsigned i = 0; i < n; i++) {
		r = ftfb_shard_init(&ss->v[i].shard, t, &ss->relay);
		if (r) {
			snprintf(err, errlen,
				 "cannot set up ring buffer %u's writer: %s",
				 i + 1, strerror(-r));
			return -1;
		}
		ss->n = i + 1;
	}
	return 0;
}

int ftfb_shard_set_event(struct ftfb_shard_set *ss, unsigned i,
			 const void *data, size_t size)
{
	return ftfb_shard_event(&ss->v[i].shard, data, size);
}

void ftfb_shard_set_tick(struct ftfb_shard_set *ss, unsigned i, uint64_t now)
{
	struct set_shard *s = &ss->v[i];

	if (now - s->flushed_ns < SHARD_FLUSH_NS)
		return;
	s->flushed_ns = now;
	ftfb_shard_flush(&s->shard);
}

void ftfb_shard_set_done(struct ftfb_shard_set *ss, unsigned i)
{
	ftfb_shard_flush(&ss->v[i].shard);
}

int ftfb_shard_set_collect(struct ftfb_shard_set *ss, bool drop)
{
	if (!ss || !ss->relay_open)
		return 0;
	if (drop) {
		ftfb_relay_done(&ss->relay, ftfb_relay_take(&ss->relay));
		return 0;
	}
	return ftfb_shard_collect(&ss->relay, ss->t);
}

void ftfb_shard_set_add_by_kind(const struct ftfb_shard_set *ss,
				uint64_t by_kind[FTFB_EV_KIND_MAX])
{
	for (unsigned i = 0; ss && i < ss->n; i++)
		for (int k = 0; k < FTFB_EV_KIND_MAX; k++)
			by_kind[k] += ss->v[i].shard.st.by_kind[k];
}

unsigned ftfb_shard_set_stats(const struct ftfb_shard_set *ss,
			      struct ftfb_shard_stats *sum, uint64_t *waits)
{
	if (!ss)
		return 0;
	for (unsigned i = 0; i < ss->n; i++)
		ftfb_shard_stats_add(sum, &ss->v[i].shard.st);
	*waits = ss->relay.waits;
	return ss->n;
}

void ftfb_shard_set_free(struct ftfb_shard_set *ss)
{
	if (!ss)
		return;
	for (unsigned i = 0; i < ss->n; i++)
		ftfb_shard_free(&ss->v[i].shard);
	if (ss->relay_open)
		ftfb_relay_free(&ss->relay);
	free(ss);
}
