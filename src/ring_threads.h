/* SPDX-License-Identifier: MIT */
/*
 * ring_threads.h - the consumer threads of --rings N: rings 1..N-1 (switches,
 * wakeups, task names) each read by a thread of its own, which hands the
 * events to the sink's shard (sink.h: shard_event); the loop's thread keeps
 * ring 0 and, at each turn, the sink collects what the shards wrote. With
 * one ring, or a sink that has no shards (the flight recorder), nothing
 * starts and the loop's thread reads every ring as before.
 */
#ifndef FTFB_RING_THREADS_H
#define FTFB_RING_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"

struct ftfb_loader;
struct ftfb_ring_threads;

/* Starts the threads, if any (*out stays NULL otherwise). 0, or -1 with
 * one line in err. */
int ftfb_ring_threads_start(struct ftfb_ring_threads **out, struct ftfb_loader *l,
		     struct ftfb_sink *sink, char *err, size_t errlen);

/* Events the ring threads have read so far (for the status line and summary). */
uint64_t ftfb_ring_threads_events(const struct ftfb_ring_threads *ls);

/* After the loader's drain (recording stopped): each thread reads what
 * is left in its ring, hands over its last records and ends; meanwhile
 * and after, the sink collects. 0, or -1 with one line in err (the first
 * thread that failed). ls may be NULL. */
int ftfb_ring_threads_stop(struct ftfb_ring_threads *ls, char *err, size_t errlen);

/* Frees (stops first if needed). ls may be NULL. */
void ftfb_ring_threads_free(struct ftfb_ring_threads *ls);

#endif
