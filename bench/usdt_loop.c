/* SPDX-License-Identifier: MIT */
/*
 * usdt_loop - the USDT benchmark's workload: hits the probe
 * bench:hit(i, 2i) (two int64 arguments, no semaphore) N times (default
 * 1,000,000) and prints "N hits T ns", T being the loop's wall time.
 * Untraced, the probe is a nop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		DTRACE_PROBE2(bench, hit, i, 2 * i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld hits %.0f ns\n", n,
	       (double)(b.tv_sec - a.tv_sec) * 1e9 +
		       (double)(b.tv_nsec - a.tv_nsec));
	return 0;
}
