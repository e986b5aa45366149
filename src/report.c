// SPDX-License-Identifier: MIT
/*
 * report.c - the status line and the summary (see report.h).
 */
#include <sys/stat.h>

#include "bpf_loader.h"
#include "sources.h"
#include "ring_shard.h"
#include "report.h"
#include "stack_finish.h"
#include "syscall_names.h"
#include "unwind_maps.h"

#define TOP_N 10

uint64_t report_total(const uint64_t v[FTFB_EV_KIND_MAX])
{
	uint64_t t = 0;

	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		t += v[i];
	return t;
}

void report_status(FILE *f, double elapsed_s, double events_per_s,
		   uint64_t dropped, uint64_t bytes, const char *bytes_label)
{
	fprintf(f,
		"\r\033[Kftf-bpf: %6.1fs  %9.0f events/s  %llu dropped  %.1f MB%s",
		elapsed_s, events_per_s, (unsigned long long)dropped,
		(double)bytes / 1e6, bytes_label);
	fflush(f);
}

void report_status_clear(FILE *f)
{
	fprintf(f, "\r\033[K");
}

void report_head(FILE *f, const char *stop_reason, double elapsed_s,
		 const uint64_t by_kind[FTFB_EV_KIND_MAX], uint64_t events,
		 const uint64_t drops[FTFB_EV_KIND_MAX], bool output_failed)
{
	uint64_t lost = report_total(drops);

	fprintf(f, "ftf-bpf: stopped (%s) after %.2f s\n", stop_reason,
		elapsed_s);
	fprintf(f, "  events:");
	for (int k = 1; k < FTFB_EV_KIND_MAX; k++)
		if (by_kind[k])
			fprintf(f, " %llu %s,", (unsigned long long)by_kind[k],
				ftfb_sources_kind_label(k));
	fprintf(f, " %llu in all\n", (unsigned long long)events);
	if (lost) {
		fprintf(f, "  LOST: %llu events (ring buffer full:",
			(unsigned long long)lost);
		for (int k = 1; k < FTFB_EV_KIND_MAX; k++)
			if (drops[k])
				fprintf(f, " %llu %s",
					(unsigned long long)drops[k],
					ftfb_sources_kind_label(k));
		fprintf(f,
			"); the trace holds a \"dropped events\" counter; try a larger --buffer-size, or --rings N to read them on N threads\n");
	} else if (!output_failed) {
		fprintf(f, "  lost: 0 events\n");
	}
	if (output_failed)
		fprintf(f,
			"  NOT RECORDED: everything after the output error (the ring buffer was not drained)\n");
}

void report_hint_children(FILE *f, const uint64_t by_kind[FTFB_EV_KIND_MAX])
{
	if (!by_kind[FTFB_EV_FORK] || by_kind[FTFB_EV_UENTRY] ||
	    by_kind[FTFB_EV_USDT])
		return;
	fprintf(f,
		"  no probe fired, while %llu tasks were forked (processes or threads): -f probes the traced process's children too\n",
		(unsigned long long)by_kind[FTFB_EV_FORK]);
}

/* The calls per function, top 10 by count and by total time. */
static void report_functions(FILE *f, const struct ftfb_translator *t,
			     const struct ftfb_func *funcs, size_t nfuncs)
{
	size_t idx[TOP_N], n;

	if (!nfuncs)
		return;
	for (int by_time = 0; by_time < 2; by_time++) {
		n = ftfb_translator_top(t, by_time, idx, TOP_N);
		if (!n)
			continue;
		fprintf(f, "  top functions by %s:\n",
			by_time ? "total time" : "calls");
		for (size_t i = 0; i < n; i++) {
			const struct ftfb_func_stats *fs =
				ftfb_translator_func_stats(t, idx[i]);

			fprintf(f, "    %10llu calls %12.3f ms  %s:%s\n",
				(unsigned long long)fs->calls,
				(double)fs->total_ns / 1e6,
				funcs[idx[i]].category, funcs[idx[i]].name);
		}
	}
}

/* The system calls, top 10 by count and by total time. */
static void report_syscalls(FILE *f, const struct ftfb_translator *t)
{
	size_t idx[TOP_N], n;
	char buf[32];

	for (int by_time = 0; by_time < 2; by_time++) {
		n = ftfb_translator_top_syscalls(t, by_time, idx, TOP_N);
		if (!n)
			continue;
		fprintf(f, "  top system calls by %s:\n",
			by_time ? "total time" : "calls");
		for (size_t i = 0; i < n; i++) {
			const struct ftfb_func_stats *fs =
				ftfb_translator_syscall_stats(t, (uint32_t)idx[i]);

			fprintf(f, "    %10llu calls %12.3f ms  %s\n",
				(unsigned long long)fs->calls,
				(double)fs->total_ns / 1e6,
				ftfb_syscall_name((uint32_t)idx[i], buf,
						  sizeof(buf)));
		}
	}
}

void report_translator(FILE *f, const struct ftfb_translator *t,
		       const struct ftfb_func *funcs, size_t nfuncs,
		       size_t nusdt, const struct ftfb_report_ctx *ctx)
{
	const struct ftfb_translator_stats *st = ftfb_translator_stats(t);

	if (st->depth_capped || st->unmatched_returns ||
	    st->slices_closed_early || st->skipped)
		fprintf(f,
			"  slices: %llu calls past the depth cap (not written), %llu returns without a recorded call, %llu calls closed without a return (unfinished), %llu events skipped\n",
			(unsigned long long)st->depth_capped,
			(unsigned long long)st->unmatched_returns,
			(unsigned long long)st->slices_closed_early,
			(unsigned long long)st->skipped);
	if (st->switches_repaired)
		fprintf(f,
			"  scheduling: %llu switch-outs the kernel did not report (a CPU's next switch left another task, or another CPU took the task in): the task was ended there\n",
			(unsigned long long)st->switches_repaired);
	if (nusdt)
		fprintf(f,
			"  USDT: %llu instants, %llu slices (%llu ends without a recorded start, %llu starts past the %d open slices not written)\n",
			(unsigned long long)st->usdt_instants,
			(unsigned long long)st->usdt_slices,
			(unsigned long long)st->usdt_unmatched,
			(unsigned long long)st->usdt_capped, FTFB_USLICE_MAX);
	report_functions(f, t, funcs, nfuncs);
	if (ctx->syscalls)
		report_syscalls(f, t);
}

void report_shards(FILE *f, unsigned nshards, const struct ftfb_shard_stats *st,
		  uint64_t relay_waits)
{
	fprintf(f,
		"  ring shards (rings 2 to %u of --rings %u, a thread each): %llu events read, %llu records written in %llu chunks",
		nshards + 1, nshards + 1, (unsigned long long)st->events,
		(unsigned long long)st->records,
		(unsigned long long)st->chunks);
	if (st->repaired)
		fprintf(f, " (%llu missing switch-outs repaired)",
			(unsigned long long)st->repaired);
	if (relay_waits)
		fprintf(f, "; they waited %llu times for the writer's thread",
			(unsigned long long)relay_waits);
	fprintf(f, "\n");
}

/* The top functions of one kind of sample. */
static void report_top_stacks(FILE *f, const struct ftfb_stackprof *sp,
			      int k)
{
	const char *names[TOP_N];
	uint64_t w[TOP_N];
	size_t n = ftfb_stackprof_top(sp, k, names, w, TOP_N);

	if (!n)
		return;
	fprintf(f, "  top %s functions (innermost user frame; a kernel thread's innermost frame):\n",
		k ? "off-CPU" : "on-CPU");
	for (size_t i = 0; i < n; i++)
		if (k)
			fprintf(f, "    %12.3f ms  %s\n", (double)w[i] / 1e6,
				names[i]);
		else
			fprintf(f, "    %10llu samples  %s\n",
				(unsigned long long)w[i], names[i]);
}

void report_stack_copies(FILE *f, const struct ftfb_sf *sf)
{
	struct ftfb_sf_stats st;

	ftfb_sf_get_stats(sf, &st);
	if (!st.copies)
		return;
	fprintf(f,
		"  user stacks copied (tables not loaded yet): %llu; finished in userspace once loaded: %llu complete, %llu stopped further on; %llu left as they were (%llu: exec or exit first; no table in time%s)",
		(unsigned long long)st.copies,
		(unsigned long long)st.finished,
		(unsigned long long)st.resumed,
		(unsigned long long)st.as_is, (unsigned long long)st.gone,
		st.no_room ? ", or no room" : "");
	if (st.bad)
		fprintf(f, "; %llu malformed", (unsigned long long)st.bad);
	fputc('\n', f);
}

void report_stacks(FILE *f, const struct ftfb_stackprof *sp,
		   const struct ftfb_report_ctx *ctx)
{
	const struct ftfb_stackprof_stats *st;
	struct ftfb_uw_stats uw;
	struct ftfb_prog_stats on, off;
	uint64_t samples;

	if (!sp)
		return;
	st = ftfb_stackprof_stats(sp);
	samples = st->samples[0] + st->samples[1];
	fprintf(f,
		"  stacks: %llu on-CPU samples (%llu lost), %llu off-CPU stacks for %.3f s (%llu lost); %llu Perfetto packets, %.1f bytes per sample\n",
		(unsigned long long)st->samples[0],
		(unsigned long long)ctx->drops[FTFB_EV_STACK_ON],
		(unsigned long long)st->samples[1], (double)st->weight[1] / 1e9,
		(unsigned long long)ctx->drops[FTFB_EV_STACK_OFF],
		(unsigned long long)st->packets,
		samples ? (double)st->bytes / (double)samples : 0.0);
	if (st->python_samples)
		fprintf(f,
			"  stacks: %llu samples with Python frames (%llu among a whole native stack, the rest with the Python frames as their root)%s\n",
			(unsigned long long)st->python_samples,
			(unsigned long long)st->python_interleaved,
			st->unknown_pycodes ? "; some Python functions unnamed (their strings were lost)" : "");
	if (st->samples[FTFB_STACK_WAKER] || ctx->drops[FTFB_EV_STACK_WAKER])
		fprintf(f, "  stacks: %llu waker stacks (%llu lost)\n",
			(unsigned long long)st->samples[FTFB_STACK_WAKER],
			(unsigned long long)ctx->drops[FTFB_EV_STACK_WAKER]);
	if (st->unknown_stacks)
		fprintf(f,
			"  stacks: %llu samples name a stack whose frames were lost (written without them)\n",
			(unsigned long long)st->unknown_stacks);
	if (ctx->loader && !ftfb_loader_unwind_stats(ctx->loader, &uw))
		ftfb_uw_print_summary(&uw, f);
	if (ctx->loader && !ftfb_loader_stack_stats(ctx->loader, &on, &off) &&
	    on.run_cnt)
		fprintf(f,
			"  stacks BPF run time (kernel.bpf_stats_enabled): %.0f ns per on-CPU sample, %.0f ns per context switch\n",
			(double)on.run_time_ns / (double)on.run_cnt,
			off.run_cnt ? (double)off.run_time_ns / (double)off.run_cnt : 0.0);
	for (int k = 0; k < 2; k++)
		report_top_stacks(f, sp, k);
}

void report_written(FILE *f, const char *path, bool gzip,
		    uint64_t record_bytes)
{
	struct stat sb;
	long long bytes = -1;

	if (stat(path, &sb) == 0)
		bytes = (long long)sb.st_size;
	if (gzip && bytes > 0)
		fprintf(f, "  wrote %s (%lld bytes: gzip of %llu bytes, %.1fx)\n",
			path, bytes, (unsigned long long)record_bytes,
			(double)record_bytes / (double)bytes);
	else
		fprintf(f, "  wrote %s (%lld bytes)\n", path, bytes);
	fprintf(f,
		"  open it in Perfetto: https://ui.perfetto.dev -> Open trace file -> %s\n",
		path);
}

void report_clock(FILE *f, const struct ftf_clock *c)
{
	if (c->source == FTF_CLOCK_TSC)
		fprintf(f, "ftf-bpf: clock: TSC at %.6f GHz\n",
			(double)c->ticks_per_second / 1e9);
	else
		fprintf(f, "ftf-bpf: clock: CLOCK_MONOTONIC ns%s%s%s\n",
			c->fallback_reason[0] ? " (TSC not used: " : "",
			c->fallback_reason, c->fallback_reason[0] ? ")" : "");
}
