/* SPDX-License-Identifier: MIT */
/*
 * ticks.h - CLOCK_MONOTONIC ns -> the trace's ticks, inline: what every
 * record's time goes through. A copy of the writer's clock, so a
 * translator and the lanes writing beside it (lane.h) stamp alike.
 */
#ifndef FTFB_TICKS_H
#define FTFB_TICKS_H

#include <stdbool.h>
#include <stdint.h>

#include "ftf/clock.h"

struct ftfb_ticks {
	const struct ftf_clock *clock;
	uint64_t ref_ns, ref_ticks, tps;
	bool identity; /* ticks are the ns (--clock mono) */
	bool offset;   /* ticks are ns from the reference (a writer clock
			* that fell back to CLOCK_MONOTONIC) */
	bool split;    /* tps fits the exact split below */
};

/* From the writer's clock c (which must outlive tk); identity: the
 * trace's ticks are the monotonic ns themselves. */
void ftfb_ticks_init(struct ftfb_ticks *tk, const struct ftf_clock *c,
		     bool identity);

uint64_t ftfb_ticks_slow(const struct ftfb_ticks *tk, uint64_t ns);

/* As ftf_clock_mono_to_ticks() (rounded toward zero, exact): for
 * d = ns - ref = q * 1e9 + r it is q * tps + r * tps / 1e9, two constant
 * divisions the compiler turns into multiplications (r * tps fits 64
 * bits for tps < 18.4 GHz). Times before the reference take the
 * library's path. */
static inline uint64_t ftfb_ticks_of(const struct ftfb_ticks *tk, uint64_t ns)
{
	uint64_t d = ns - tk->ref_ns;

	if (tk->identity)
		return ns;
	if (tk->offset)
		return tk->ref_ticks + d;
	if (__builtin_expect(!tk->split || (int64_t)d < 0, 0))
		return ftfb_ticks_slow(tk, ns);
	return tk->ref_ticks + d / 1000000000u * tk->tps +
	       d % 1000000000u * tk->tps / 1000000000u;
}

#endif
