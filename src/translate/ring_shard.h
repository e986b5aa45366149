/* SPDX-License-Identifier: MIT */
/*
 * ring_shard.h - a ring's events written on a thread of their own (--rings N:
 * rings 1..N-1 hold only context switches, wakeups and the names of
 * exiting tasks, see bpf/common.bpf.h). A shard writes the switches and
 * wakeups as FTF records into chunks of its own, with the translator's
 * clock and argument names, and hands to the translator's thread (through
 * the relay) the chunks, the tasks it sees first (the translator names
 * them) and every other event.
 *
 * A shard is used by one thread at a time; its chunks reach the file in
 * whole records, later than the translator's records of the same time
 * (Perfetto and ftf-dump sort by time).
 */
#ifndef FTFB_RING_SHARD_H
#define FTFB_RING_SHARD_H

#include <stdint.h>

#include "events.h"
#include "ftf/writer.h"
#include "relay.h"
#include "sched_records.h"
#include "ticks.h"

struct ftfb_translator;

struct ftfb_shard_dest {
	struct ftf_destination base;
	struct ftfb_shard *shard;
	struct ftfb_relay_item *chunk; /* the writer's buffer */
	bool discard; /* closing: what is left is not handed over */
};

struct ftfb_shard_stats {
	uint64_t by_kind[FTFB_EV_KIND_MAX]; /* events read, by kind */
	uint64_t events;
	uint64_t records;  /* FTF records written */
	uint64_t repaired; /* missing switch-outs repaired */
	uint64_t chunks;   /* chunks handed over */
};

struct ftfb_shard {
	struct ftfb_relay *relay;
	struct ftfb_shard_dest dest;
	struct ftf_writer w;
	bool open;
	struct ftfb_ticks tk;
	struct ftfb_sched_rec sched;
	uint32_t *seen; /* tids seen (tid + 1; 0: empty), open addressing */
	size_t seen_cap, seen_n;
	struct ftfb_shard_stats st;
};

/* A shard writing like translator t (its clock and names) into relay.
 * 0 or -errno. */
int ftfb_shard_init(struct ftfb_shard *l, struct ftfb_translator *t,
		   struct ftfb_relay *relay);
/* Closes and frees; records not handed over (ftfb_shard_flush) are
 * dropped. */
void ftfb_shard_free(struct ftfb_shard *l);

/* One raw event of the ring: 0 or a negative errno (out of memory, the
 * shard's writer). */
int ftfb_shard_event(struct ftfb_shard *l, const void *data, size_t size);

/* Hands the records written so far to the relay. */
int ftfb_shard_flush(struct ftfb_shard *l);

/* sum += add */
void ftfb_shard_stats_add(struct ftfb_shard_stats *sum,
			 const struct ftfb_shard_stats *add);

/* The translator's side: takes what the shards queued and puts it in the
 * trace, in order: records into its writer, tasks named, events
 * translated. 0 or the writer's negative error. */
int ftfb_shard_collect(struct ftfb_relay *relay, struct ftfb_translator *t);

#endif
