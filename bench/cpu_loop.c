// SPDX-License-Identifier: MIT
/*
 * cpu_loop ITERATIONS [DEPTH] - the --stacks benchmark's workload: a
 * CPU-bound loop (ITERATIONS x 1000 multiply-adds) run DEPTH calls deep
 * (default 16, so each sample has a stack of some depth), then prints
 * "loop N ns" (its own wall time). Built with frame pointers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t spin(long n)
{
	uint64_t x = 1;

	for (long i = 0; i < n; i++)
		for (int j = 0; j < 1000; j++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) static uint64_t nest(int depth, long n)
{
	uint64_t r;

	if (depth <= 0)
		return spin(n);
	r = nest(depth - 1, n);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return r + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int depth = argc > 2 ? atoi(argv[2]) : 16;
	struct timespec a, b, ca, cb;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
	sink = nest(depth, n);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("loop %ld ns cpu %ld ns\n",
	       (long)((b.tv_sec - a.tv_sec) * 1000000000L +
		      (b.tv_nsec - a.tv_nsec)),
	       (long)((cb.tv_sec - ca.tv_sec) * 1000000000L +
		      (cb.tv_nsec - ca.tv_nsec)));
	return 0;
}
