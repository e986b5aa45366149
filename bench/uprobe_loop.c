/* SPDX-License-Identifier: MIT */
/*
 * uprobe_loop - the uprobe benchmark's workload: calls an empty noinline
 * function N times (default 1,000,000) and prints "N calls T ns, C ns on
 * cpu", T being the loop's wall time and C its CPU time (user and system:
 * what a cpu-clock sampler sees of it, whatever the machine's load). empty_fn is built without optimization so it has
 * an ordinary prologue (push %rbp) for the probe to sit on.
 *
 * With --wait it first waits for a line on stdin, so a tracer can attach
 * with -p.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __clang__
#define UNOPTIMIZED __attribute__((noinline, optnone))
#else
#define UNOPTIMIZED __attribute__((noinline, optimize("O0")))
#endif

UNOPTIMIZED void empty_fn(void)
{
}

int main(int argc, char **argv)
{
	long n = 1000000;
	struct timespec a, b, ca, cb;
	char line[16];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait")) {
			printf("ready\n");
			fflush(stdout);
			if (!fgets(line, sizeof(line), stdin)) {
				/* EOF: go */
			}
		} else {
			n = atol(argv[i]);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	for (long i = 0; i < n; i++)
		empty_fn();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld calls %.0f ns, %.0f ns on cpu\n", n,
	       (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec),
	       (double)(cb.tv_sec - ca.tv_sec) * 1e9 +
		       (double)(cb.tv_nsec - ca.tv_nsec));
	return 0;
}
