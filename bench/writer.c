// SPDX-License-Identifier: MIT
/*
 * bench-writer: ns per event of the libftf writer on a memory destination,
 * each beside a floor loop that stores the same number of precomputed
 * 64-bit words into the same buffer. Prints each ratio to its floor.
 *
 *   (a) duration begin, no arguments            (2 words)
 *   (b) instant, 2 int64 + 1 interned string    (7 words)
 *   (c) expert fast path: precompute_header + write_from_header_and_get_tsc
 *       (reads the TSC), 0 args                 (2 words)
 *
 * Usage: bench-writer [EVENTS]   (default 1000000; best of 7 runs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftf/destination.h"
#include "ftf/writer.h"

#define REPS 7

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint8_t *arena;
static size_t arena_size;
static struct ftf_clock clk;

struct setup {
	struct ftf_dest_mem mem;
	struct ftf_writer w;
};

static void setup(struct setup *s)
{
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &clk};

	ftf_dest_mem_init_fixed(&s->mem, arena, arena_size);
	if (ftf_writer_init_no_header(&s->w, &s->mem.base, &o)) {
		fprintf(stderr, "bench-writer: %s\n", ftf_writer_error(&s->w));
		exit(1);
	}
}

static void finish(struct setup *s, size_t expect_bytes)
{
	size_t got = (size_t)(s->w.buf - arena) + s->w.pos;

	if (s->w.err || got < expect_bytes) {
		fprintf(stderr,
			"bench-writer: wrote %zu bytes, expected %zu: %s\n",
			got, expect_bytes, ftf_writer_error(&s->w));
		exit(1);
	}
	ftf_writer_close(&s->w);
}

static inline void barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* Stores `words` precomputed words per event, n events. */
static double floor_run(size_t n, const uint64_t *pre, int words)
{
	uint64_t *out = (uint64_t *)arena, t0 = now_ns();

	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < words; k++)
			out[k] = pre[k] + i;
		out += words;
		barrier();
	}
	return (double)(now_ns() - t0) / (double)n;
}

static double run_a(size_t n)
{
	struct setup s;
	uint64_t t0;

	setup(&s);
	t0 = now_ns();
	for (size_t i = 0; i < n; i++)
		ftf_write_duration_begin(&s.w, FTF_ARG_TYPES_NONE, 1, 300, 301,
					 1000 + i);
	t0 = now_ns() - t0;
	finish(&s, n * 16);
	return (double)t0 / (double)n;
}

static double run_b(size_t n)
{
	struct setup s;
	ftf_arg_types t = FTF_ARG_TYPES(2, 0, 0, 0, 1, 0);
	uint64_t t0;

	setup(&s);
	t0 = now_ns();
	for (size_t i = 0; i < n; i++) {
		ftf_write_instant(&s.w, t, 1, 300, 301, 1000 + i);
		ftf_arg_int64(&s.w, 302, (int64_t)i);
		ftf_arg_int64(&s.w, 303, -(int64_t)i);
		ftf_arg_string(&s.w, 304, 305);
	}
	ftf_flush(&s.w);
	t0 = now_ns() - t0;
	finish(&s, n * 56);
	return (double)t0 / (double)n;
}

static double run_c(size_t n)
{
	struct setup s;
	uint64_t h, t0;

	setup(&s);
	h = ftf_precompute_header(FTF_EVENT_DURATION_BEGIN, 0,
				  FTF_ARG_TYPES_NONE, 1, 300, 301);
	t0 = now_ns();
	for (size_t i = 0; i < n; i++)
		ftf_write_from_header_and_get_tsc(&s.w, h, NULL);
	t0 = now_ns() - t0;
	finish(&s, n * 16);
	return (double)t0 / (double)n;
}

/* (c)'s floor plus the same clock read per event: what the fast path
 * adds beyond reading the clock. */
static double floor_clock(size_t n)
{
	uint64_t *out = (uint64_t *)arena, t0 = now_ns();

	for (size_t i = 0; i < n; i++) {
		out[0] = 0x1234;
		out[1] = ftf_clock_now(&clk);
		out += 2;
		barrier();
	}
	return (double)(now_ns() - t0) / (double)n;
}

/* The clock read alone, for context on (c). */
static double run_clock(size_t n)
{
	uint64_t t0 = now_ns(), acc = 0;

	for (size_t i = 0; i < n; i++)
		acc += ftf_clock_now(&clk);
	t0 = now_ns() - t0;
	barrier();
	if (acc == 42)
		puts("");
	return (double)t0 / (double)n;
}

static double best(double (*f)(size_t), size_t n)
{
	double b = 1e99;

	for (int r = 0; r < REPS; r++) {
		double x = f(n);

		if (x < b)
			b = x;
	}
	return b;
}

static size_t bench_n;
static const uint64_t pre[7] = {0x1234, 0x5678, 0x9abc, 0xdef0,
				0x1111, 0x2222, 0x3333};

static double floor2(size_t n)
{
	return floor_run(n, pre, 2);
}

static double floor7(size_t n)
{
	return floor_run(n, pre, 7);
}

int main(int argc, char **argv)
{
	double a, b, c, f2, f7, ck, fc;

	bench_n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	if (bench_n == 0) {
		fprintf(stderr, "usage: bench-writer [EVENTS]\n");
		return 2;
	}
	arena_size = bench_n * 56 + 4096;
	arena = malloc(arena_size);
	if (!arena) {
		fprintf(stderr, "bench-writer: cannot allocate %zu bytes\n",
			arena_size);
		return 1;
	}
	memset(arena, 0, arena_size); /* fault the pages in once */
	ftf_clock_init(&clk, FTF_CLOCK_TSC);
	printf("clock: %s, %llu ticks/s%s%s\n",
	       clk.source == FTF_CLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC",
	       (unsigned long long)clk.ticks_per_second,
	       clk.fallback_reason[0] ? " - " : "", clk.fallback_reason);
	printf("%zu events per run, best of %d runs\n\n", bench_n, REPS);

	f2 = best(floor2, bench_n);
	f7 = best(floor7, bench_n);
	a = best(run_a, bench_n);
	b = best(run_b, bench_n);
	c = best(run_c, bench_n);
	ck = best(run_clock, bench_n);
	fc = best(floor_clock, bench_n);

	printf("%-44s %8s %8s %7s\n", "case", "ns/event", "floor", "ratio");
	printf("%-44s %8.2f %8.2f %6.2fx\n", "(a) duration begin, 0 args", a,
	       f2, a / f2);
	printf("%-44s %8.2f %8.2f %6.2fx\n",
	       "(b) instant, 2 int64 + 1 interned string", b, f7, b / f7);
	printf("%-44s %8.2f %8.2f %6.2fx\n",
	       "(c) fast path (header + TSC read)", c, f2, c / f2);
	printf("%-44s %8.2f\n", "    clock read alone (ftf_clock_now)", ck);
	printf("%-44s %8.2f %8.2f %6.2fx\n",
	       "    (c) vs a floor that also reads the clock", c, fc, c / fc);
	free(arena);
	return 0;
}
