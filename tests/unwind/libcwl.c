// SPDX-License-Identifier: MIT
/*
 * libcwl.c - a workload whose time is in libc code that only a separate
 * debug file names (test_debug_names.py).
 *
 * usage: libcwl qsort|clock SECONDS   (of its own CPU time: a loaded
 *                                      machine must not thin its samples)
 *   qsort: sorts 4096 ints again and again; glibc's qsort spends it in
 *          msort_with_tmp, a static function (in the debug file's
 *          .symtab, not in libc.so.6's .dynsym);
 *   clock: calls clock_gettime in a loop, in the vDSO.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return seconds(CLOCK_MONOTONIC);
}

/* what the clock loop adds up, so it is not optimized away (a global:
 * clang warns of a local that is only set) */
static volatile long sink;

int main(int argc, char **argv)
{
	static int v[N];
	double end;
	unsigned seed = 1;

	if (argc != 3 ||
	    (strcmp(argv[1], "qsort") && strcmp(argv[1], "clock"))) {
		fprintf(stderr, "usage: libcwl qsort|clock SECONDS\n");
		return 2;
	}
	end = seconds(CLOCK_PROCESS_CPUTIME_ID) + atof(argv[2]);
	while (seconds(CLOCK_PROCESS_CPUTIME_ID) < end) {
		if (argv[1][0] == 'c') {
			for (int i = 0; i < 10000; i++)
				sink += (long)now();
			continue;
		}
		for (int i = 0; i < N; i++)
			v[i] = (int)((seed = seed * 1103515245u + 12345u) >> 8);
		qsort(v, N, sizeof(v[0]), cmp);
	}
	return 0;
}
