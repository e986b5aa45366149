/* SPDX-License-Identifier: MIT */
/*
 * shard_set.h - --rings N: the ring shards that feed one translator's
 * writer (ring_shard.h: rings 1..n, each written on its ring thread) and
 * the relay that hands their records over. The set belongs with the
 * translator it feeds, below the sink, which only passes events and
 * turns through: the data flows ring -> shard -> relay -> writer.
 */
#ifndef FTFB_SHARD_SET_H
#define FTFB_SHARD_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"
#include "ring_shard.h"

struct ftfb_shard_set;
struct ftfb_translator;

/* n shards writing for t. 0, or -1 with one line in err. */
int ftfb_shard_set_new(struct ftfb_shard_set **out, struct ftfb_translator *t,
		       unsigned n, char *err, size_t errlen);
/* On shard i's thread: an event of its ring; a turn of the thread (its
 * records handed over when due); its last turn (all handed over). */
int ftfb_shard_set_event(struct ftfb_shard_set *ss, unsigned i,
			 const void *data, size_t size);
void ftfb_shard_set_tick(struct ftfb_shard_set *ss, unsigned i, uint64_t now);
void ftfb_shard_set_done(struct ftfb_shard_set *ss, unsigned i);
/* On the translator's thread: what the shards handed over, into its
 * writer (drop: thrown away, after an output error, so the shards never
 * wait for room that will not come). 0 or the writer's error; NULL ss:
 * nothing. */
int ftfb_shard_set_collect(struct ftfb_shard_set *ss, bool drop);
/* The shards' events by kind added to by_kind (read once their threads
 * have ended); the shards' statistics summed, and the relay's waits: the
 * number of shards (0 for a NULL ss). */
void ftfb_shard_set_add_by_kind(const struct ftfb_shard_set *ss,
				uint64_t by_kind[FTFB_EV_KIND_MAX]);
unsigned ftfb_shard_set_stats(const struct ftfb_shard_set *ss,
			      struct ftfb_shard_stats *sum, uint64_t *waits);
void ftfb_shard_set_free(struct ftfb_shard_set *ss);

#endif
