/* SPDX-License-Identifier: MIT */
/*
 * sink.h - where the run loop hands the raw events: the trace file (the
 * translator writing through libftf) or the flight recorder (a window of
 * raw events, snapshots on demand). The session and its loop talk to
 * either through these operations and never ask which one they have.
 *
 * Life: open (prepare phase: the file is created, or the snapshots'
 * folder checked), start (attach phase, once the probes are resolved:
 * the translator's options), commit (the trace started), add_task /
 * event / drops / tick / request while running, finish (the stop: open
 * slices ended, the last snapshot written), close_output, summary, free.
 */
#ifndef FTFB_SINK_H
#define FTFB_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ftf/clock.h"
#include "events.h"
#include "stackprof.h"
#include "translate.h"

struct ftfb_loader;

/* What a sink's part of the summary may need from the session. */
struct ftfb_report_ctx {
	const uint64_t *drops;	    /* events lost, by kind */
	struct ftfb_loader *loader; /* the stack programs' BPF run time */
	bool syscalls;		    /* --syscalls: the top system calls */
};

struct ftfb_sink;

struct ftfb_sink_ops {
	/* to: the translator's options (w is the sink's own); stacks: -g's
	 * sample writer options (w is set by the sink), NULL without -g;
	 * 0, or -1 with one line in err */
	int (*start)(struct ftfb_sink *s, const struct ftfb_translator_opts *to,
		     const struct ftfb_stackprof_opts *stacks, char *err,
		     size_t errlen);
	int (*add_task)(struct ftfb_sink *s, const struct ftfb_task_info *ti);
	int (*event)(struct ftfb_sink *s, const void *data, size_t size);
	/* the loader's cumulative drop counters, by kind */
	int (*drops)(struct ftfb_sink *s, uint64_t now_ns,
		     const uint64_t drops[FTFB_EV_KIND_MAX]);
	/* once per loop turn: what is due by now (a flush, a snapshot) */
	void (*tick)(struct ftfb_sink *s, uint64_t now_ns);
	/* a snapshot asked for (SIGUSR1) */
	void (*request)(struct ftfb_sink *s, const char *why);
	/* the trace started: the output put in place (the file written
	 * under a temporary name replaces what was at -o only now, so a
	 * failed start leaves it); 0, or -1 with one line in err */
	int (*commit)(struct ftfb_sink *s, char *err, size_t errlen);
	int (*finish)(struct ftfb_sink *s, uint64_t now_ns, const char *why);
	int (*close_output)(struct ftfb_sink *s);
	/* --rings N: shards for rings 1..n (ring_threads.h), each used by one
	 * thread: open (before they start: 0, or -1 with one line in err),
	 * an event of shard i, a turn of its thread (hand over what is due),
	 * its last turn. collect: on the loop's thread, put what the shards
	 * handed over in the output. NULL shards_open: no shards, the loop's
	 * thread reads every ring. */
	int (*shards_open)(struct ftfb_sink *s, unsigned n, char *err,
			  size_t errlen);
	int (*shard_event)(struct ftfb_sink *s, unsigned i, const void *data,
			  size_t size);
	void (*shard_tick)(struct ftfb_sink *s, unsigned i, uint64_t now_ns);
	void (*shard_done)(struct ftfb_sink *s, unsigned i);
	void (*shards_collect)(struct ftfb_sink *s);
	/* events received, by kind */
	const uint64_t *(*by_kind)(const struct ftfb_sink *s);
	/* bytes written (or held) so far, for the status line */
	uint64_t (*bytes)(const struct ftfb_sink *s);
	void (*summary)(const struct ftfb_sink *s,
			const struct ftfb_report_ctx *ctx, FILE *f);
	void (*free)(struct ftfb_sink *s);
};

struct ftfb_sink {
	const struct ftfb_sink_ops *ops;
	const char *bytes_label; /* after the status line's MB ("", " held") */
	int err;		 /* the first output error, 0: none */
	char errmsg[512];	 /* its line */
};

/* -o FILE: creates it (an existing one kept as .old) and writes the
 * trace's header. 0, or -1 with one line in err. */
int ftfb_sink_file_open(struct ftfb_sink **out, const char *path,
			bool compress, const struct ftf_clock *clock,
			char *err, size_t errlen);

/* -F: the recorder's options (its translator and stacks options come
 * at start); checks now that the snapshots' folder takes files. 0, or -1
 * with one line in err. */
struct ftfb_flight_opts;
int ftfb_sink_flight_open(struct ftfb_sink **out,
			  const struct ftfb_flight_opts *fo, char *err,
			  size_t errlen);

/* Records the first error of a sink (later ones are consequences). */
void ftfb_sink_fail(struct ftfb_sink *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
