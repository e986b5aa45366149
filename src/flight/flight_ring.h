/* SPDX-License-Identifier: MIT */
/*
 * src/flight_ring.h - the flight recorder's memory: the raw events of the
 * last DUR seconds (or of the last SIZE bytes), in a list of chunks.
 *
 * Events are kept as the loader delivers them (the raw structs of
 * bpf/events.h, 20-90 bytes), each behind an 8-byte length word, so a
 * snapshot is the translator run over them. The oldest chunk goes when
 * its newest event is older than the window or when a new chunk would
 * pass the memory cap; an evicted chunk is handed to a callback first
 * (the recorder feeds it to the tracker of what the window's start
 * inherits: names, calls still open). Nothing is allocated per event.
 */
#ifndef FTFB_FLIGHT_RING_H
#define FTFB_FLIGHT_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct ftfb_fchunk {
	struct ftfb_fchunk *next; /* newer */
	uint64_t first_ts, last_ts; /* event times (CLOCK_MONOTONIC ns) */
	/* the newest event time when it began (0: the first chunk): what
	 * happened from then on is here or in a newer chunk. first_ts can be
	 * earlier (an off-CPU sample carries the time its thread blocked,
	 * a uprobe batch comes at its thread's switch), so the window whose
	 * events are all kept starts here, not there. */
	uint64_t since_ts;
	/* drop counters (cumulative, by kind) when the chunk began */
	uint64_t drops_before[FTFB_EV_KIND_MAX];
	size_t used;
	size_t raw; /* the events' own bytes (used less length words) */
	unsigned char data[];
};

/* Called for each evicted chunk, oldest first, before it is reused. */
typedef void (*ftfb_fring_evict_fn)(void *ctx, const struct ftfb_fchunk *c);
/* Called for each event; non-zero stops the walk and is returned. */
typedef int (*ftfb_fring_event_fn)(void *ctx, const void *data, size_t size);

struct ftfb_fring {
	size_t chunk_bytes;   /* data bytes per chunk */
	size_t max_chunks;    /* memory cap / chunk size */
	uint64_t window_ns;
	struct ftfb_fchunk *oldest, *newest;
	struct ftfb_fchunk *spare; /* one evicted chunk kept for reuse */
	size_t nchunks;
	uint64_t newest_ts;
	uint64_t first_ts; /* the first event's time ever (0: none yet) */
	/* newest_ts as the last ftfb_fring_expire saw it, and when (the
	 * reading clock): the data's own clock goes on from there only
	 * while no newer event comes (ftfb_fring_end) */
	uint64_t seen_ts, seen_at;
	uint64_t evicted_by_age, evicted_by_size;
	uint64_t refused; /* events larger than a chunk (never: they are
			   * at most a few hundred bytes) */
	ftfb_fring_evict_fn evict;
	void *evict_ctx;
};

/* max_bytes: the cap on the chunks' memory (at least 2 chunks). 0 or
 * -ENOMEM. */
int ftfb_fring_init(struct ftfb_fring *r, uint64_t window_ns,
		    size_t max_bytes, ftfb_fring_evict_fn evict, void *ctx);
void ftfb_fring_free(struct ftfb_fring *r);

/* Appends one event (it starts with struct ftfb_hdr); drops are the
 * cumulative drop counters now, kept with a new chunk. 0 or -ENOMEM. */
int ftfb_fring_append(struct ftfb_fring *r, const void *data, size_t size,
		      const uint64_t drops[FTFB_EV_KIND_MAX]);

/* Where the window ends at reading time now_ns, on the events' own
 * clock: the newest event's time while events keep coming (a reader
 * behind the kernel by more than the window still holds the newest
 * window, never none), moving on with now_ns only from the look
 * (ftfb_fring_expire) that saw no newer event: the time since is a time
 * nothing happened. Never later than now_ns. */
uint64_t ftfb_fring_end(const struct ftfb_fring *r, uint64_t now_ns);

/* Evicts the chunks whose events are all older than the window ending
 * at ftfb_fring_end(now_ns): a window that moves on with no new events
 * gives back their memory (called on the run loop's ticks). */
void ftfb_fring_expire(struct ftfb_fring *r, uint64_t now_ns);

/* Every event of chunk c, in order. */
int ftfb_fchunk_walk(const struct ftfb_fchunk *c, ftfb_fring_event_fn fn,
		     void *ctx);

/* Bytes the chunks hold (allocated). */
size_t ftfb_fring_bytes(const struct ftfb_fring *r);
/* Bytes of the events themselves in the chunks. */
size_t ftfb_fring_raw_bytes(const struct ftfb_fring *r);

#endif
