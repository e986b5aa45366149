// SPDX-License-Identifier: MIT
/*
 * ticks.c - the mapping of ticks.h, set up from a writer's clock.
 */
#include "ticks.h"

#define NS_PER_SEC 1000000000u

void ftfb_ticks_init(struct ftfb_ticks *tk, const struct ftf_clock *c,
		     bool identity)
{
	tk->clock = c;
	if (identity) { /* ticks = ns: reference 0, 1e9 per second */
		tk->ref_ns = 0;
		tk->ref_ticks = 0;
		tk->tps = NS_PER_SEC;
	} else {
		tk->ref_ns = c->ref_mono_ns;
		tk->ref_ticks = c->ref_ticks;
		tk->tps = c->ticks_per_second;
	}
	tk->split = tk->tps <= UINT64_MAX / NS_PER_SEC;
	tk->sec_ticks = tk->ref_ticks;
	/* (a rate too high for the split never takes the fast path: from a
	 * second 292 years away every time is in another second) */
	tk->sec_d = tk->split ? 0 : 1ull << 63;
}

uint64_t ftfb_ticks_new_second(struct ftfb_ticks *tk, uint64_t ns)
{
	uint64_t d = ns - tk->ref_ns;

	/* (before the reference, or a rate too high for the split: the
	 * library's own exact path; a --clock mono trace never gets here
	 * before its reference 0) */
	if ((int64_t)d < 0 || !tk->split)
		return ftf_clock_mono_to_ticks(tk->clock, ns);
	tk->sec_d = d / NS_PER_SEC * NS_PER_SEC;
	tk->sec_ticks = tk->ref_ticks + d / NS_PER_SEC * tk->tps;
	return tk->sec_ticks + (d - tk->sec_d) * tk->tps / NS_PER_SEC;
}
