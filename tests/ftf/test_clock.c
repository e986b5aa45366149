// SPDX-License-Identifier: MIT
/*
 * The clock: tick arithmetic on hand-built clocks (values worked out
 * here, including products that overflow 64 bits), and the calibrated
 * TSC checked against CLOCK_MONOTONIC / CLOCK_REALTIME over 100 ms.
 */
#include "helpers.h"

#include <time.h>

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hand_built(struct ftf_clock *c, uint64_t tps)
{
	memset(c, 0, sizeof(*c));
	c->source = FTF_CLOCK_TSC;
	c->ticks_per_second = tps;
	c->ref_ticks = 10000000000ull;
	c->ref_mono_ns = 2000000000ull;
	c->ref_realtime_ns = 5;
}

static void arithmetic_uses_128_bits(void **state)
{
	struct ftf_clock c;
	struct ftf_tick_translation tt;

	(void)state;
	hand_built(&c, 3000000000ull);
	/* 1e18 ns * 3e9 overflows 64 bits; the answer 3e18 does not */
	assert_int_equal(ftf_clock_mono_to_ticks(
				 &c, 2000000000ull + 1000000000000000000ull),
			 10000000000ull + 3000000000000000000ull);
	/* before the reference moment */
	assert_int_equal(ftf_clock_mono_to_ticks(&c, 1000000000ull),
			 10000000000ull - 3000000000ull);
	assert_int_equal(ftf_clock_ns_to_ticks_span(&c, 1000000000000000000ull),
			 3000000000000000000ull);
	assert_int_equal(ftf_clock_ns_to_ticks_span(&c, FTF_REFRESH_NS),
			 3000000000ull);
	ftf_clock_translation(&c, 10000000000ull + 3000000000000000000ull, &tt);
	assert_int_equal(tt.ticks_per_second, 3000000000ull);
	assert_int_equal(tt.base_ticks,
			 10000000000ull + 3000000000000000000ull);
	assert_int_equal(tt.base_time_ns, 5 + 1000000000000000000ll);
	/* a rate that does not divide 1e9 evenly */
	hand_built(&c, 2999999999ull);
	ftf_clock_translation(&c, 10000000000ull + 2999999999ull, &tt);
	assert_int_equal(tt.base_time_ns, 5 + 1000000000ll);
	ftf_clock_translation(&c, 10000000000ull - 2999999999ull, &tt);
	assert_int_equal(tt.base_time_ns, 5 - 1000000000ll);
}

/* The mapping without a 128-bit division against the 128-bit quotient,
 * worked out here, for deltas on both sides of the reference and rates
 * from 1 Hz past the 18.4 GHz where its shortcut stops. */
static void mono_to_ticks_matches_128_bit_quotient(void **state)
{
	static const uint64_t rates[] = {1, 999999999, 1000000001,
					 2445678901ull, 3000000000ull,
					 18000000000ull, 19000000000ull,
					 1000000000000ull};
	uint64_t x = 88172645463325252ull;
	struct ftf_clock c;

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		hand_built(&c, rates[i]);
		for (int k = 0; k < 2000; k++) {
			int64_t d;
			__int128 want;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			d = (int64_t)(x >> (k % 40)) * (k % 2 ? -1 : 1);
			want = (__int128)d * (__int128)rates[i] /
			       1000000000;
			assert_int_equal(ftf_clock_mono_to_ticks(
						 &c, c.ref_mono_ns + (uint64_t)d),
					 c.ref_ticks + (uint64_t)(int64_t)want);
		}
	}
}

static void fake_clock_hook(void **state)
{
	struct ftf_clock c;
	struct fake_time t = {424242};

	(void)state;
	fake_clock_init(&c, &t);
	assert_int_equal(ftf_clock_now(&c), 424242);
	t.now = 7;
	assert_int_equal(ftf_clock_now(&c), 7);
}

static void monotonic_source(void **state)
{
	struct ftf_clock c;
	uint64_t a, n, b;

	(void)state;
	assert_int_equal(ftf_clock_init(&c, FTF_CLOCK_MONO), 0);
	assert_int_equal(c.source, FTF_CLOCK_MONO);
	assert_int_equal(c.ticks_per_second, 1000000000ull);
	assert_string_equal(c.fallback_reason, "");
	assert_null(c.now_fn);
	a = ns_of(CLOCK_MONOTONIC);
	n = ftf_clock_now(&c);
	b = ns_of(CLOCK_MONOTONIC);
	assert_true(a <= n && n <= b);
	assert_int_equal(ftf_clock_mono_to_ticks(&c, 123456789), 123456789);
}

static int cpuinfo_has_invariant_tsc(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int ok = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) == 0) {
			ok = strstr(line, " constant_tsc") &&
			     strstr(line, " nonstop_tsc");
			break;
		}
	}
	fclose(f);
	return ok;
}

static void tsc_calibration(void **state)
{
	struct ftf_clock c;
	struct timespec sl = {0, 100000000};
	uint64_t t0, m0, t1, m1, mono, real;
	double rate, err;
	int64_t d;
	struct ftf_tick_translation tt;

	(void)state;
	assert_int_equal(ftf_clock_init(&c, FTF_CLOCK_TSC), 0);
#if !defined(__x86_64__)
	assert_int_equal(c.source, FTF_CLOCK_MONO);
	assert_string_not_equal(c.fallback_reason, "");
	return;
#endif
	printf("# clock: source %s, %llu ticks/s%s%s\n",
	       c.source == FTF_CLOCK_TSC ? "TSC" : "MONO",
	       (unsigned long long)c.ticks_per_second,
	       c.fallback_reason[0] ? ", fallback: " : "", c.fallback_reason);
	if (!cpuinfo_has_invariant_tsc()) {
		assert_int_equal(c.source, FTF_CLOCK_MONO);
		assert_non_null(strstr(c.fallback_reason, "TSC"));
		return;
	}
	assert_int_equal(c.source, FTF_CLOCK_TSC);
	assert_string_equal(c.fallback_reason, "");
	/* measure the rate again, independently, over 100 ms */
	m0 = ns_of(CLOCK_MONOTONIC);
	t0 = ftf_clock_now(&c);
	nanosleep(&sl, NULL);
	m1 = ns_of(CLOCK_MONOTONIC);
	t1 = ftf_clock_now(&c);
	rate = (double)(t1 - t0) * 1e9 / (double)(m1 - m0);
	err = (rate - (double)c.ticks_per_second) / rate;
	printf("# re-measured %.0f ticks/s (%.4f%% off)\n", rate, err * 100);
	assert_true(err < 0.005 && err > -0.005);
	/* mono -> ticks agrees with reading the TSC now, within 1 ms */
	mono = ns_of(CLOCK_MONOTONIC);
	d = (int64_t)(ftf_clock_now(&c) - ftf_clock_mono_to_ticks(&c, mono));
	assert_true(d > -(int64_t)(c.ticks_per_second / 1000) &&
		    d < (int64_t)(c.ticks_per_second / 1000));
	/* the translation's wall-clock time is CLOCK_REALTIME, within 1 ms */
	ftf_clock_translation(&c, ftf_clock_now(&c), &tt);
	real = ns_of(CLOCK_REALTIME);
	d = (int64_t)real - tt.base_time_ns;
	assert_true(d > -1000000 && d < 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arithmetic_uses_128_bits),
		cmocka_unit_test(mono_to_ticks_matches_128_bit_quotient),
		cmocka_unit_test(fake_clock_hook),
		cmocka_unit_test(monotonic_source),
		cmocka_unit_test(tsc_calibration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
