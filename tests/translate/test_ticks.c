// SPDX-License-Identifier: MIT
/*
 * test_ticks.c - the translator's inline ns -> ticks mapping (ticks.h)
 * gives exactly what libftf's ftf_clock_mono_to_ticks() gives (rounded
 * toward zero on both sides of the reference), for times in order, out
 * of order, across seconds, before the reference, with a rate too high
 * for its split, and as ns (--clock mono).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ticks.h"

static struct ftf_clock clock_of(enum ftf_clock_source src, uint64_t tps,
				 uint64_t ref_ticks, uint64_t ref_ns)
{
	struct ftf_clock c;

	memset(&c, 0, sizeof(c));
	c.source = src;
	c.ticks_per_second = tps;
	c.ref_ticks = ref_ticks;
	c.ref_mono_ns = ref_ns;
	return c;
}

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* n times from start: mostly forward by up to `step` ns, now and then
 * back by up to a second (events of other CPUs), or far away */
static void check_walk(struct ftf_clock *c, bool identity, uint64_t start,
		       uint64_t step, int n)
{
	struct ftfb_ticks tk;
	uint64_t x = 88172645463325252ull, ns = start;

	ftfb_ticks_init(&tk, c, identity);
	for (int i = 0; i < n; i++) {
		uint64_t r = next_rand(&x);
		uint64_t want = identity ? ns : ftf_clock_mono_to_ticks(c, ns);

		assert_int_equal(ftfb_ticks_of(&tk, ns), want);
		if (r % 100 == 0)
			ns -= r % 1000000000u < ns ? r % 1000000000u : 0;
		else if (r % 1000 == 1)
			ns = start + r % (100 * 1000000000ull);
		else
			ns += r % step;
	}
}

static void tsc_clock_in_and_out_of_order(void **state)
{
	struct ftf_clock c = clock_of(FTF_CLOCK_TSC, 2596141863ull, 123456789,
				      5000000000ull);

	(void)state;
	check_walk(&c, false, 5000000000ull, 3000000, 200000);
	/* starting before the reference: negative distances */
	check_walk(&c, false, 3000000000ull, 50000000, 20000);
}

static void odd_rates(void **state)
{
	static const uint64_t rates[] = {1, 999999999ull, 1000000001ull,
					 18000000000ull, 19000000000ull,
					 1000000000000ull};

	(void)state;
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct ftf_clock c = clock_of(FTF_CLOCK_TSC, rates[i], 7,
					      1000000000ull);

		check_walk(&c, false, 1000000000ull, 10000000, 20000);
	}
}

static void mono_clocks(void **state)
{
	struct ftf_clock fell_back = clock_of(FTF_CLOCK_MONO, 1000000000ull,
					      42, 9000000000ull);
	struct ftf_clock any = clock_of(FTF_CLOCK_TSC, 2445678901ull, 5, 77);

	(void)state;
	check_walk(&fell_back, false, 8000000000ull, 5000000, 20000);
	check_walk(&any, true, 1, 5000000, 20000); /* --clock mono */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tsc_clock_in_and_out_of_order),
		cmocka_unit_test(odd_rates),
		cmocka_unit_test(mono_clocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
