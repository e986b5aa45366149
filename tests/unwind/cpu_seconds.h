/* SPDX-License-Identifier: MIT */
/*
 * cpu_seconds.h - the process's CPU time, for workloads that spin for
 * CPU seconds rather than wall seconds: on a loaded machine a wall-time
 * spin gets a fraction of the CPU and too few samples.
 */
#ifndef FTFB_TEST_CPU_SECONDS_H
#define FTFB_TEST_CPU_SECONDS_H

#include <time.h>

static inline double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
