// SPDX-License-Identifier: MIT
/*
 * test_uw_skips - the summary's lines about binaries whose unwind table
 * was refused (unwind_skips.h): one per binary named, at most
 * FTFB_UW_SKIPS_SHOWN (4), then "and N more"; a path's control bytes
 * (chosen by the traced process's user) never reach the terminal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unwind_maps.h"

/* What print_skips writes for st. */
static char *printed(const struct ftfb_uw_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	ftfb_uw_print_skips(st->skipped, st->over_budget, f);
	fclose(f);
	return buf;
}

static void test_one_line_each_then_more(void **state)
{
	struct ftfb_uw_stats st = {0};
	char *out;

	(void)state;
	st.over_budget = 7;
	ftfb_uw_skip_fill(&st.skipped[0], "/a/libbig.so", -E2BIG, 100000, 0);
	ftfb_uw_skip_fill(&st.skipped[1], "/a/libslow.so", -ETIMEDOUT,
			  5000000000ull, 0);
	ftfb_uw_skip_fill(&st.skipped[2], "/a/liblate.so", -E2BIG, 1234, 1);
	ftfb_uw_skip_fill(&st.skipped[3], "/a/x\033[2J\r.so", -E2BIG, 10, 0);
	out = printed(&st);
	assert_string_equal(
		out,
		"  unwind tables: /a/libbig.so skipped: CFI over budget (more "
		"than 100000 rows)\n"
		"  unwind tables: /a/libslow.so skipped: CFI over budget (more "
		"than 5.0 s of CPU to read)\n"
		"  unwind tables: /a/liblate.so skipped: CFI over budget (more "
		"than the 1234 rows left in the table space)\n"
		"  unwind tables: /a/x?[2J?.so skipped: CFI over budget (more "
		"than 10 rows)\n"
		"  unwind tables: and 3 more binaries skipped\n");
	free(out);
}

static void test_none(void **state)
{
	struct ftfb_uw_stats st = {0};
	char *out;

	(void)state;
	out = printed(&st);
	assert_string_equal(out, "");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_line_each_then_more),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
