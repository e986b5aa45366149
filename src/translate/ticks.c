// SPDX-License-Identifier: MIT
/*
 * ticks.c - the mapping of ticks.h, set up from a writer's clock.
 */
#include "ticks.h"

void ftfb_ticks_init(struct ftfb_ticks *tk, const struct ftf_clock *c,
		     bool identity)
{
	tk->clock = c;
	tk->identity = identity;
	tk->ref_ns = c->ref_mono_ns;
	tk->ref_ticks = c->ref_ticks;
	tk->tps = c->ticks_per_second;
	tk->offset = c->source == FTF_CLOCK_MONO &&
		     c->ticks_per_second == 1000000000u;
	tk->split = c->ticks_per_second <= UINT64_MAX / 1000000000u;
}

uint64_t ftfb_ticks_slow(const struct ftfb_ticks *tk, uint64_t ns)
{
	return ftf_clock_mono_to_ticks(tk->clock, ns);
}
