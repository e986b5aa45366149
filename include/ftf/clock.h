/* SPDX-License-Identifier: MIT */
/*
 * ftf/clock.h - the trace's tick domain.
 *
 * A trace's timestamps are "ticks". By default ticks are the CPU's
 * time-stamp counter (rdtsc), whose rate is measured against the system
 * clock at start-up (bracketed reads, as the seed's calibrator does). When
 * the TSC is not invariant (no constant_tsc/nonstop_tsc in /proc/cpuinfo),
 * not on x86-64, or calibration fails, the clock falls back to
 * CLOCK_MONOTONIC nanoseconds (1e9 ticks per second) and says why.
 *
 * The clock also maps CLOCK_MONOTONIC nanoseconds (what BPF's
 * bpf_ktime_get_ns() returns) onto ticks, so kernel events share the
 * domain of events stamped in userspace.
 */
#ifndef FTF_CLOCK_H
#define FTF_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

enum ftf_clock_source {
	FTF_CLOCK_TSC = 0,  /* calibrated time-stamp counter */
	FTF_CLOCK_MONO = 1, /* CLOCK_MONOTONIC nanoseconds */
};

/* What the seed calls Tick_translation: the 3 payload words of the
 * 4-word initialization record. */
struct ftf_tick_translation {
	uint64_t ticks_per_second;
	uint64_t base_ticks;
	int64_t base_time_ns; /* ns since the Unix epoch at base_ticks */
};

struct ftf_clock {
	enum ftf_clock_source source;
	uint64_t ticks_per_second;
	/* One reference moment, read as close together as possible. */
	uint64_t ref_ticks;
	uint64_t ref_mono_ns;
	int64_t ref_realtime_ns;
	/* Why the clock is not the TSC when it was asked to be; "" otherwise. */
	char fallback_reason[128];
	/* Test hook (additive): when set, ftf_clock_now() returns
	 * now_fn(c) instead of reading the hardware; now_ctx is for its use.
	 * ftf_clock_init() clears both. */
	uint64_t (*now_fn)(const struct ftf_clock *c);
	void *now_ctx;
};

/*
 * Sets up a clock. want == FTF_CLOCK_TSC calibrates the TSC (takes about
 * 20 ms) and falls back to FTF_CLOCK_MONO, filling fallback_reason, if it
 * cannot. want == FTF_CLOCK_MONO never calibrates. Returns 0; never fails
 * (the fallback is the failure mode), but check c->source.
 */
int ftf_clock_init(struct ftf_clock *c, enum ftf_clock_source want);

/* Current time in the clock's ticks. */
uint64_t ftf_clock_now(const struct ftf_clock *c);

/* CLOCK_MONOTONIC nanoseconds -> ticks of this clock. */
uint64_t ftf_clock_mono_to_ticks(const struct ftf_clock *c, uint64_t mono_ns);

/* The translation for the moment `ticks` (ticks per second, ticks, and
 * the wall-clock time at that tick). */
void ftf_clock_translation(const struct ftf_clock *c, uint64_t ticks,
			   struct ftf_tick_translation *out);

/* Ticks for a span of nanoseconds (e.g. the 1 s buffer refresh). */
uint64_t ftf_clock_ns_to_ticks_span(const struct ftf_clock *c, uint64_t ns);

#endif
