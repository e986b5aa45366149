/* SPDX-License-Identifier: MIT */
/*
 * report.h - what ftf-bpf tells on stderr while and after it traces: the
 * live status line and the summary (why it stopped, the events by kind,
 * what was lost, then the sink's own part: slices, top functions and
 * system calls, stacks, the file written, or the flight recorder's
 * snapshots).
 */
#ifndef FTFB_REPORT_H
#define FTFB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "events.h"
#include "ftf/clock.h"
#include "sink.h"
#include "stackprof.h"
#include "translate.h"

/* The sum of a by-kind counter array. */
uint64_t report_total(const uint64_t v[FTFB_EV_KIND_MAX]);

/* The live status line (on a terminal, or with --status), redrawn in
 * place: elapsed s, events per second since the last line, drops, MB. */
void report_status(FILE *f, double elapsed_s, double events_per_s,
		   uint64_t dropped, uint64_t bytes, const char *bytes_label);
/* Erases it before the summary. */
void report_status_clear(FILE *f);

/* The summary's common head: why and when it stopped, the events by
 * kind, the events lost by kind (or none), output_failed: a note that
 * what came after the output error is not in the trace. */
void report_head(FILE *f, const char *stop_reason, double elapsed_s,
		 const uint64_t by_kind[FTFB_EV_KIND_MAX], uint64_t events,
		 const uint64_t drops[FTFB_EV_KIND_MAX], bool output_failed);

/* -p / -- without -f probe the process itself only: a server that forks
 * its workers gives no slice at all, which says nothing of why. Says so
 * when tasks were forked and no probe fired (the caller asks only where
 * probes were given without -f). */
void report_hint_children(FILE *f, const uint64_t by_kind[FTFB_EV_KIND_MAX]);

/* The trace file's part: the translator's slices, USDT and top
 * functions (named by funcs) and, with ctx->syscalls, system calls. */
void report_translator(FILE *f, const struct ftfb_translator *t,
		       const struct ftfb_func *funcs, size_t nfuncs,
		       size_t nusdt, const struct ftfb_report_ctx *ctx);

/* -g: samples taken and lost, BPF run time, top functions on and off
 * CPU. */
/* --rings N: what the ring shards (ring_threads.h, ring_shard.h) read and wrote, summed */
struct ftfb_shard_stats;
void report_shards(FILE *f, unsigned nshards, const struct ftfb_shard_stats *st,
		  uint64_t relay_waits);
/* -g: the samples that came with a copy of their user stack (the walk
 * stopped "not loaded yet"), and how many were finished from it. */
struct ftfb_sf;
void report_stack_copies(FILE *f, const struct ftfb_sf *sf);
void report_stacks(FILE *f, const struct ftfb_stackprof *sp,
		   const struct ftfb_report_ctx *ctx);

/* The file written (its size, the gzip ratio) and how to open it. */
void report_written(FILE *f, const char *path, bool gzip,
		    uint64_t record_bytes);

/* -v: the clock the trace's timestamps use. */
void report_clock(FILE *f, const struct ftf_clock *c);

#endif
