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

/* Ticks to ns as Perfetto's Fuchsia importer converts an FTF timestamp:
 * the high 32 bits of the ticks times a truncated (1e9 << 32) / tps, plus
 * the low 32 bits times 1e9 / tps. The truncation puts its result up to
 * ticks >> 32 ns early (1.3 us an hour after boot on a 2.6 GHz TSC, more
 * with uptime), so a sample timed exactly would not land on the
 * scheduling records it belongs with. */
uint64_t ftfb_ticks_to_ns_as_perfetto(uint64_t ticks, uint64_t tps)
{
	const uint64_t ns_per_s = 1000000000ull;

	if (!tps)
		return 0;
	return (ticks >> 32) * ((ns_per_s << 32) / tps) +
	       (ticks & 0xffffffffull) * ns_per_s / tps;
}
