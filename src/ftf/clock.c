// SPDX-License-Identifier: MIT
/*
 * clock.c - the trace's tick domain: a calibrated TSC, or CLOCK_MONOTONIC
 * nanoseconds when the TSC cannot be trusted.
 *
 * Calibration reads (clock, rdtsc, clock) brackets and keeps the tightest
 * of several, once at the start and once ~20 ms later; the TSC rate is the
 * ratio of the two deltas. All tick <-> ns conversions go through 128-bit
 * intermediates so that no product overflows.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ftf/clock.h"

#define NS_PER_SEC 1000000000ull
#define CALIB_SLEEP_NS 20000000ull
#define BRACKET_TRIES 64

static uint64_t read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Both flags are needed: constant_tsc (fixed rate across P-states) and
 * nonstop_tsc (keeps ticking in deep C-states). */
static int tsc_is_invariant(char *why, size_t whylen)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	int constant = 0, nonstop = 0, seen_flags = 0;

	if (!f) {
		snprintf(why, whylen, "cannot read /proc/cpuinfo");
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line, "flags", 5) != 0)
			continue;
		seen_flags = 1;
		tok = strchr(line, ':');
		if (!tok)
			continue;
		for (tok = strtok_r(tok + 1, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (!strcmp(tok, "constant_tsc"))
				constant = 1;
			else if (!strcmp(tok, "nonstop_tsc"))
				nonstop = 1;
		}
		break; /* the first CPU's flags speak for all */
	}
	fclose(f);
	if (!seen_flags) {
		snprintf(why, whylen, "no flags line in /proc/cpuinfo");
		return 0;
	}
	if (!constant || !nonstop) {
		snprintf(why, whylen, "TSC not invariant (%s%s missing)",
			 constant ? "" : "constant_tsc ",
			 nonstop ? "" : "nonstop_tsc");
		return 0;
	}
	return 1;
}

/* The tightest of BRACKET_TRIES (mono, rdtsc, mono) brackets. Returns the
 * bracket width in ns. */
static uint64_t bracket(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < BRACKET_TRIES; i++) {
		uint64_t a = read_ns(CLOCK_MONOTONIC);
		uint64_t t = rdtsc();
		uint64_t b = read_ns(CLOCK_MONOTONIC);

		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*mono = a + (b - a) / 2;
		}
	}
	return best;
}
#endif

/* CLOCK_REALTIME at the CLOCK_MONOTONIC moment `mono`, from the tightest
 * (mono, realtime, mono) bracket. */
static int64_t realtime_at(uint64_t mono)
{
	uint64_t best = UINT64_MAX;
	int64_t offset = 0;

	for (int i = 0; i < BRACKET_TRIES; i++) {
		uint64_t a = read_ns(CLOCK_MONOTONIC);
		uint64_t r = read_ns(CLOCK_REALTIME);
		uint64_t b = read_ns(CLOCK_MONOTONIC);

		if (b - a < best) {
			best = b - a;
			offset = (int64_t)(r - (a + (b - a) / 2));
		}
	}
	return (int64_t)mono + offset;
}

static void init_mono(struct ftf_clock *c)
{
	c->source = FTF_CLOCK_MONO;
	c->ticks_per_second = NS_PER_SEC;
	c->ref_mono_ns = read_ns(CLOCK_MONOTONIC);
	c->ref_ticks = c->ref_mono_ns;
	c->ref_realtime_ns = realtime_at(c->ref_mono_ns);
}

int ftf_clock_init(struct ftf_clock *c, enum ftf_clock_source want)
{
	memset(c, 0, sizeof(*c));
	if (want != FTF_CLOCK_TSC) {
		init_mono(c);
		return 0;
	}
#if defined(__x86_64__)
	{
		uint64_t t0 = 0, m0 = 0, t1 = 0, m1 = 0, w0, w1;
		struct timespec sl = {0, (long)CALIB_SLEEP_NS};
		unsigned __int128 tps;

		if (!tsc_is_invariant(c->fallback_reason,
				      sizeof(c->fallback_reason)))
			goto fallback;
		w0 = bracket(&t0, &m0);
		while (nanosleep(&sl, &sl) != 0)
			;
		w1 = bracket(&t1, &m1);
		if (m1 <= m0 || t1 <= t0 || w0 > 100000 || w1 > 100000) {
			snprintf(c->fallback_reason, sizeof(c->fallback_reason),
				 "TSC calibration failed (brackets %llu/%llu "
				 "ns)",
				 (unsigned long long)w0,
				 (unsigned long long)w1);
			goto fallback;
		}
		tps = (unsigned __int128)(t1 - t0) * NS_PER_SEC / (m1 - m0);
		if (tps < 1000000 || tps > 100000000000ull) {
			snprintf(c->fallback_reason, sizeof(c->fallback_reason),
				 "TSC calibration implausible: %llu Hz",
				 (unsigned long long)tps);
			goto fallback;
		}
		c->source = FTF_CLOCK_TSC;
		c->ticks_per_second = (uint64_t)tps;
		c->ref_ticks = t1;
		c->ref_mono_ns = m1;
		c->ref_realtime_ns = realtime_at(m1);
		return 0;
	}
fallback:
#else
	snprintf(c->fallback_reason, sizeof(c->fallback_reason),
		 "no TSC support on this architecture");
#endif
	init_mono(c);
	return 0;
}

uint64_t ftf_clock_now(const struct ftf_clock *c)
{
	if (c->now_fn)
		return c->now_fn(c);
#if defined(__x86_64__)
	if (c->source == FTF_CLOCK_TSC)
		return rdtsc();
#endif
	return read_ns(CLOCK_MONOTONIC);
}

/* a * num / den, rounded toward zero, for signed a, without overflow. */
static int64_t scale(int64_t a, uint64_t num, uint64_t den)
{
	__int128 p = (__int128)a * (__int128)num;

	return (int64_t)(p / (__int128)den);
}

/* floor(a * num / 1e9) modulo 2^64, exact, without a 128-bit division
 * (a library call of about 40 ns, paid for every kernel event): with
 * a = q * 1e9 + r, it is q * num + r * num / 1e9, where r * num fits 64
 * bits for any num up to 18.4e9 ticks per second. */
static uint64_t mul_div_ns(uint64_t a, uint64_t num)
{
	uint64_t q = a / NS_PER_SEC, r = a % NS_PER_SEC;

	if (num > UINT64_MAX / NS_PER_SEC)
		return (uint64_t)((unsigned __int128)a * num / NS_PER_SEC);
	return q * num + r * num / NS_PER_SEC;
}

uint64_t ftf_clock_mono_to_ticks(const struct ftf_clock *c, uint64_t mono_ns)
{
	int64_t d = (int64_t)(mono_ns - c->ref_mono_ns);
	uint64_t tps = c->ticks_per_second;

	if (c->source == FTF_CLOCK_MONO && tps == NS_PER_SEC)
		return c->ref_ticks + (uint64_t)d;
	/* rounded toward zero on both sides of the reference, as scale() */
	if (d >= 0)
		return c->ref_ticks + mul_div_ns((uint64_t)d, tps);
	return c->ref_ticks - mul_div_ns(0 - (uint64_t)d, tps);
}

void ftf_clock_translation(const struct ftf_clock *c, uint64_t ticks,
			   struct ftf_tick_translation *out)
{
	int64_t d = (int64_t)(ticks - c->ref_ticks);

	out->ticks_per_second = c->ticks_per_second;
	out->base_ticks = ticks;
	out->base_time_ns = c->ref_realtime_ns;
	if (c->ticks_per_second) /* a hand-built clock may leave it 0 */
		out->base_time_ns += scale(d, NS_PER_SEC, c->ticks_per_second);
}

uint64_t ftf_clock_ns_to_ticks_span(const struct ftf_clock *c, uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * c->ticks_per_second /
			  NS_PER_SEC);
}
