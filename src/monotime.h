/* SPDX-License-Identifier: MIT */
/*
 * monotime.h - CLOCK_MONOTONIC in ns: the BPF programs' clock
 * (bpf_ktime_get_ns), so the tool's own times compare with the events'.
 */
#ifndef FTFB_MONOTIME_H
#define FTFB_MONOTIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ftfb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
