/* SPDX-License-Identifier: MIT */
/*
 * lanes.h - the consumer threads of --rings N: rings 1..N-1 (switches,
 * wakeups, task names) each read by a thread of its own, which hands the
 * events to the sink's lane (sink.h: lane_event); the loop's thread keeps
 * ring 0 and, at each turn, the sink collects what the lanes wrote. With
 * one ring, or a sink that has no lanes (the flight recorder), nothing
 * starts and the loop's thread reads every ring as before.
 */
#ifndef FTFB_LANES_H
#define FTFB_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "sink.h"

struct ftfb_loader;
struct ftfb_lanes;

/* Starts the threads, if any (*out stays NULL otherwise). 0, or -1 with
 * one line in err. */
int ftfb_lanes_start(struct ftfb_lanes **out, struct ftfb_loader *l,
		     struct ftfb_sink *sink, char *err, size_t errlen);

/* Events the lanes have read so far (for the status line and summary). */
uint64_t ftfb_lanes_events(const struct ftfb_lanes *ls);

/* After the loader's drain (recording stopped): each thread reads what
 * is left in its ring, hands over its last records and ends; meanwhile
 * and after, the sink collects. 0, or -1 with one line in err (the first
 * lane that failed). ls may be NULL. */
int ftfb_lanes_stop(struct ftfb_lanes *ls, char *err, size_t errlen);

/* Frees (stops first if needed). ls may be NULL. */
void ftfb_lanes_free(struct ftfb_lanes *ls);

#endif
