// SPDX-License-Identifier: MIT
/*
 * test_mapped_log.c - the mappings each process made, as the kernel
 * recorded them (src/stacks/native/mapped_log.h): a copy of a stack
 * taken at a time gets the mappings its image had made by then, the
 * latest first; an exec drops the image before's, even those whose
 * records come after the exec's (another CPU's ring drained later);
 * the log of a process is bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mapped_log.h"

static struct ftfb_uw_vma at(uint64_t start)
{
	struct ftfb_uw_vma v = {start, start + 0x1000, 0, 8, start >> 12};

	return v;
}

static void test_by_time(void **state)
{
	struct ftfb_uw_vma v[4], a = at(0x10000), b = at(0x20000);

	(void)state;
	ftfb_mapped_clear();
	ftfb_mapped_put(7, &a, 100);
	ftfb_mapped_put(7, &b, 200);
	assert_int_equal(ftfb_mapped_list(7, 99, v, 4), 0);
	assert_int_equal(ftfb_mapped_list(7, 150, v, 4), 1);
	assert_int_equal(v[0].start, 0x10000);
	assert_int_equal(ftfb_mapped_list(7, 200, v, 4), 2);
	assert_int_equal(v[0].start, 0x20000); /* (the latest first) */
	assert_int_equal(v[1].start, 0x10000);
	assert_int_equal(v[1].ino, 0x10);
	assert_int_equal(ftfb_mapped_list(7, 200, v, 1), 1);
	assert_int_equal(ftfb_mapped_list(8, 200, v, 4), 0); /* another */
}

static void test_exec_drops_the_image_before(void **state)
{
	struct ftfb_uw_vma v[4], a = at(0x10000), b = at(0x20000),
				 c = at(0x30000);

	(void)state;
	ftfb_mapped_clear();
	ftfb_mapped_put(7, &a, 100);
	ftfb_mapped_exec(7, 300);
	ftfb_mapped_put(7, &b, 250); /* (drained late: of the image before) */
	ftfb_mapped_put(7, &c, 310);
	assert_int_equal(ftfb_mapped_exec_ns(7), 300);
	assert_int_equal(ftfb_mapped_list(7, 1000, v, 4), 1);
	assert_int_equal(v[0].start, 0x30000);
	/* an exec's record drained after its new image's mappings */
	ftfb_mapped_put(7, &a, 400);
	ftfb_mapped_exec(7, 350);
	assert_int_equal(ftfb_mapped_list(7, 1000, v, 4), 1);
	assert_int_equal(v[0].start, 0x10000);
	assert_int_equal(ftfb_mapped_exec_ns(8), 0);
}

static void test_bounded(void **state)
{
	struct ftfb_uw_vma v[FTFB_MAPPED_PER_PROC + 4];

	(void)state;
	ftfb_mapped_clear();
	for (uint64_t i = 1; i <= FTFB_MAPPED_PER_PROC + 3; i++) {
		struct ftfb_uw_vma m = at(i << 16);

		ftfb_mapped_put(7, &m, i);
	}
	assert_int_equal(ftfb_mapped_list(7, 1000, v, FTFB_MAPPED_PER_PROC + 4),
			 FTFB_MAPPED_PER_PROC);
	assert_int_equal(v[0].start, (uint64_t)(FTFB_MAPPED_PER_PROC + 3)
					     << 16);
	assert_int_equal(v[FTFB_MAPPED_PER_PROC - 1].start, 4ull << 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_time),
		cmocka_unit_test(test_exec_drops_the_image_before),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
