/* SPDX-License-Identifier: MIT */
/*
 * ticks.h - CLOCK_MONOTONIC ns -> the trace's ticks, inline: what every
 * record's time goes through. A copy of the writer's clock, so a
 * translator and the shards writing beside it (ring_shard.h) stamp alike.
 */
#ifndef FTFB_TICKS_H
#define FTFB_TICKS_H

#include <stdbool.h>
#include <stdint.h>

#include "ftf/clock.h"

struct ftfb_ticks {
	const struct ftf_clock *clock;
	uint64_t ref_ns, ref_ticks, tps;
	bool split; /* tps fits the exact split below */
	/* the whole second of the stream seen last, from the reference
	 * (ns, a multiple of 1e9) and its ticks: the events of one second
	 * need one division each, not two */
	uint64_t sec_d, sec_ticks;
};

/* From the writer's clock c (which must outlive tk); identity: the
 * trace's ticks are the monotonic ns themselves. */
void ftfb_ticks_init(struct ftfb_ticks *tk, const struct ftf_clock *c,
		     bool identity);

/* A second of the stream not seen last (or a time before the
 * reference): sets the cache, or takes the library's path. */
uint64_t ftfb_ticks_new_second(struct ftfb_ticks *tk, uint64_t ns);

/* As ftf_clock_mono_to_ticks() (rounded toward zero, exact): for
 * d = ns - ref = q * 1e9 + r it is q * tps + r * tps / 1e9; q * tps is
 * kept for the second last seen, and r * tps / 1e9 is a constant
 * division the compiler turns into a multiplication (r * tps fits 64
 * bits for tps < 18.4 GHz). Ticks that are ns (--clock mono, or a clock
 * that fell back to CLOCK_MONOTONIC) are the same formula with tps 1e9. */
static inline uint64_t ftfb_ticks_of(struct ftfb_ticks *tk, uint64_t ns)
{
	uint64_t r = ns - tk->ref_ns - tk->sec_d;

	if (__builtin_expect(r >= 1000000000u, 0))
		return ftfb_ticks_new_second(tk, ns);
	return tk->sec_ticks + r * tk->tps / 1000000000u;
}

/* An FTF timestamp in ns as Perfetto reads it (its truncating formula,
 * not the exact quotient): what the stack samples' packets carry. */
uint64_t ftfb_ticks_to_ns_as_perfetto(uint64_t ticks, uint64_t tps);

#endif
