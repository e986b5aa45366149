// SPDX-License-Identifier: MIT
/*
 * merge_time.c - tick domain mapping for ftf-merge, in 128-bit integers:
 * TSC values near 2.4e15 times a rate near 2e9 overflow 64 bits, and a
 * double keeps only 53 bits (a TSC value to about 0.25 ticks, but the
 * product to microseconds).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "merge_time.h"

#define NS_PER_S 1000000000ll
#define SAME_RATE_PPM 50.0
#define SAME_BASE_NS 1000000.0 /* 1 ms ... */
#define SAME_BASE_PER_NS 1e-4  /* ... plus 100 ppm of the distance */

/* a * b / c rounded to nearest, c > 0 */
static __int128 muldiv(__int128 a, __int128 b, __int128 c)
{
	__int128 p = a * b;

	return p >= 0 ? (p + c / 2) / c : -((-p + c / 2) / c);
}

int merge_map_setup(struct merge_map *m, const struct merge_domain *out,
		    const struct merge_domain *in, bool have_offset,
		    int64_t offset_ns)
{
	memset(m, 0, sizeof(*m));
	m->in_tps = in->tps;
	m->out_tps = out->tps;
	m->rate_ppm =
		((double)in->tps - (double)out->tps) / (double)out->tps * 1e6;
	if (have_offset) {
		m->kind = MERGE_OFFSET;
		m->out_at_0 = muldiv(offset_ns, out->tps, NS_PER_S);
		return 0;
	}
	if (!in->has_base || !out->has_base)
		return -EINVAL;
	if (fabs(m->rate_ppm) <= SAME_RATE_PPM) {
		/* Where out's pair puts in's base tick, against in's time. */
		__int128 predicted =
			out->base_time +
			muldiv((__int128)in->base_ticks - out->base_ticks,
			       NS_PER_S, out->tps);
		double diff = (double)(predicted - in->base_time);
		double apart =
			fabs((double)in->base_time - (double)out->base_time);

		m->bases_us = diff / 1e3;
		if (fabs(diff) <= SAME_BASE_NS + apart * SAME_BASE_PER_NS) {
			m->kind = MERGE_SAME;
			return 0;
		}
	}
	m->kind = MERGE_REBASE;
	m->in_base = in->base_ticks;
	m->out_at_0 = (__int128)out->base_ticks +
		      muldiv((__int128)in->base_time - out->base_time, out->tps,
			     NS_PER_S);
	return 0;
}

uint64_t merge_map_ts(struct merge_map *m, uint64_t ts)
{
	__int128 v;

	switch (m->kind) {
	case MERGE_SAME:
		return ts;
	case MERGE_REBASE:
		v = m->out_at_0 +
		    muldiv((__int128)ts - m->in_base, m->out_tps, m->in_tps);
		break;
	default:
		v = m->out_at_0 + muldiv(ts, m->out_tps, m->in_tps);
		break;
	}
	if (v >= 0 && v <= (__int128)UINT64_MAX)
		return (uint64_t)v;
	m->clamped++;
	return v < 0 ? 0 : UINT64_MAX;
}

int merge_parse_offset(const char *s, int64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1e9},
	};
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].ns;
		if (!isfinite(v) || fabs(v) > 9.2e18)
			return -EINVAL;
		*ns = (int64_t)llround(v);
		return 0;
	}
	return -EINVAL;
}
