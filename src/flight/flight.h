/* SPDX-License-Identifier: MIT */
/*
 * src/flight.h - the flight recorder (-F DUR): record all the time, keep
 * the raw events of the last DUR in memory, write a snapshot of them when
 * asked (SIGUSR1), when a --trigger call runs too long, and at the stop.
 *
 * A snapshot is the translator run over the window's raw events into its
 * own file, so it is a complete trace: names of every task it shows (also
 * of tasks created long before the window), calls that began before the
 * window begun at its start (marked before_window), calls still open
 * closed at its end (unfinished), the drops counted in the window. What
 * the window's start inherits comes from a second translator, the
 * tracker, that reads every event as it leaves the window and writes
 * nothing anywhere.
 *
 * A snapshot taken while recording is written by a forked child (a copy
 * of the memory at that instant), so the recording goes on meanwhile;
 * the one at the stop is written in place.
 */
#ifndef FTFB_FLIGHT_H
#define FTFB_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ftf/clock.h"
#include "defaults.h"
#include "translate.h"

#define FTFB_FLIGHT_NO_TRIGGER UINT64_MAX

struct ftfb_flight_opts {
	uint64_t window_ns;
	size_t max_bytes;
	const char *output;      /* -o: snapshots go to OUTPUT-1.fxt, ... */
	bool compress;           /* gzip them (-o X.fxt.gz: X-1.fxt.gz, ...) */
	unsigned max_snapshots;  /* later ones are counted, not written */
	uint64_t post_ns;        /* recording after a trigger */
	/* per function (cookie): the duration a call must pass to trigger
	 * (0: any call), FTFB_FLIGHT_NO_TRIGGER for none; NULL: none */
	const uint64_t *trigger_ns;
	/* the translators' options (w and lookup are set by the recorder) */
	struct ftfb_translator_opts tr;
	/* -g: the snapshots' stack sample writers (w and store are set by
	 * the recorder); NULL: no stacks */
	const struct ftfb_stackprof_opts *stacks;
	const struct ftf_clock *clock;
	uint64_t start_ns; /* the trace's start, for the times printed */
	bool quiet;
	bool verbose; /* say which limit decides the window, once full */
};

struct ftfb_flight; /* opaque */

int ftfb_flight_open(struct ftfb_flight **out,
		     const struct ftfb_flight_opts *o, char *err,
		     size_t errlen);
void ftfb_flight_close(struct ftfb_flight *f);

/* A task alive at the start (/proc scan). */
int ftfb_flight_add_task(struct ftfb_flight *f,
			 const struct ftfb_task_info *ti);

/* One raw event from the loader. 0 or -errno (out of memory). */
int ftfb_flight_event(struct ftfb_flight *f, const void *data, size_t size);

/* The loader's cumulative drop counters, as often as the caller reads
 * them (a snapshot's drop counter has this resolution). */
void ftfb_flight_set_drops(struct ftfb_flight *f,
			   const uint64_t drops[FTFB_EV_KIND_MAX]);

/* Asks for a snapshot now (SIGUSR1). */
void ftfb_flight_request(struct ftfb_flight *f, const char *why);

/* Starts the snapshots that are due (a trigger's --post has passed, a
 * request) and collects the finished ones. Call it often. */
void ftfb_flight_tick(struct ftfb_flight *f, uint64_t now_ns);

/* At the stop: waits for the snapshots being written, then writes the
 * last window (why: the stop's reason). 0, or -errno if it or any earlier
 * snapshot failed (a line was printed for each). */
int ftfb_flight_finish(struct ftfb_flight *f, uint64_t now_ns,
		       const char *why);

/* Events by kind received, and the summary's lines about the window
 * and the snapshots. */
const uint64_t *ftfb_flight_by_kind(const struct ftfb_flight *f);
uint64_t ftfb_flight_events(const struct ftfb_flight *f);
size_t ftfb_flight_held_bytes(const struct ftfb_flight *f);
void ftfb_flight_summary(const struct ftfb_flight *f, FILE *out);

/* OUTPUT-N.fxt for OUTPUT.fxt (else OUTPUT-N). */
void ftfb_flight_snapshot_path(const char *output, unsigned n, char *buf,
			       size_t len);

#endif
