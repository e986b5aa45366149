/* SPDX-License-Identifier: MIT */
/*
 * merge_time.h - ftf-merge's tick domains: how one input's timestamps
 * become ticks of the output, which are the first input's.
 */
#ifndef FTF_MERGE_TIME_H
#define FTF_MERGE_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The fastest clock an input may declare: 1e12 ticks per second keeps
 * a 64-bit time times a rate inside the 128-bit mapping's range. */
#define MERGE_MAX_TPS 1000000000000ull

/* What an input's first initialization record says. */
struct merge_domain {
	uint64_t tps;  /* ticks per second (1e9 if no record) */
	bool has_base; /* the 4-word form */
	uint64_t base_ticks;
	int64_t base_time; /* ns since the Unix epoch at base_ticks */
};

enum merge_map_kind {
	MERGE_SAME,   /* the same counter: ticks kept as they are */
	MERGE_REBASE, /* through both base pairs (wall-clock time) */
	MERGE_OFFSET, /* --offset: rescaled, then shifted */
};

struct merge_map {
	enum merge_map_kind kind;
	uint64_t in_tps, out_tps;
	uint64_t in_base;  /* REBASE: ticks are taken relative to this */
	__int128 out_at_0; /* the output tick of in_base (REBASE) or of
			    * input tick 0 (OFFSET) */
	double rate_ppm;   /* the rates' difference, for messages */
	double bases_us;   /* SAME: how far the base pairs disagree */
	uint64_t clamped;  /* timestamps merge_map_ts had to clamp */
};

/*
 * How ticks of `in` map onto ticks of `out`. With an offset (have_offset)
 * the input's seconds (ticks / its rate) plus offset_ns are the output's
 * seconds (out ticks / out rate). Without one: the same counter if the
 * rates agree within 50 ppm (two calibrations of one TSC) and the base
 * pairs agree within 1 ms plus 100 ppm of the time between them; else
 * through the bases. Returns 0, or -EINVAL if a base is missing (`in`'s or
 * `out`'s) and there is no offset.
 */
int merge_map_setup(struct merge_map *m, const struct merge_domain *out,
		    const struct merge_domain *in, bool have_offset,
		    int64_t offset_ns);

/* An input timestamp as an output one (clamped to 0 .. UINT64_MAX, and
 * counted in m->clamped then). */
uint64_t merge_map_ts(struct merge_map *m, uint64_t ts);

/* "1.5ms", "-200us", "3s", "10ns", a bare number is seconds: 0 or
 * -EINVAL. */
int merge_parse_offset(const char *s, int64_t *ns);

#endif
