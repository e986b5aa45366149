// SPDX-License-Identifier: MIT
/*
 * test_cfi_budget - a table build's budget and its cancel
 * (ftfb_uw_table_from_file_opts), on gen_cfi.py's cfi_many: one FDE of N
 * CFA changes, N + 1 rows (N is given, as the generator was).
 *
 * usage: test_cfi_budget LIBCFI_MANY_SO N
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unwind_table.h"

static const char *many_path;
static size_t many_n;

struct polls {
	unsigned calls, cancel_at; /* cancel on call cancel_at (0: never) */
};

static bool count_polls(void *arg)
{
	struct polls *p = arg;

	return ++p->calls == p->cancel_at;
}

/* The whole table, the default budget: every row, and the cancel polled
 * as the FDE's instructions run, not only between FDEs. */
static void test_default_budget(void **state)
{
	struct polls p = {0};
	struct ftfb_uw_build_opts o = {.cancelled = count_polls, .arg = &p};
	struct ftfb_uw_table_built t;
	char err[256] = "";

	(void)state;
	assert_int_equal(ftfb_uw_table_from_file_opts(many_path, &o, &t, err,
						      sizeof(err)),
			 0);
	assert_true(t.n >= many_n + 1);
	/* every 4096 instructions of the FDE (2 each row: advance, offset) */
	assert_true(p.calls >= 2 * many_n / 4096);
	ftfb_uw_table_free(&t);
}

static void test_row_budget(void **state)
{
	struct ftfb_uw_build_opts o = {.max_rows = 1000};
	struct ftfb_uw_table_built t;
	char err[256] = "";

	(void)state;
	assert_int_equal(ftfb_uw_table_from_file_opts(many_path, &o, &t, err,
						      sizeof(err)),
			 -E2BIG);
	assert_non_null(strstr(err, many_path));
	assert_non_null(strstr(err, "over budget: more than 1000 rows"));
	assert_null(t.rows);
	assert_int_equal(t.n, 0);
}

/* 1 ns: over by the first poll */
static void test_time_budget(void **state)
{
	struct ftfb_uw_build_opts o = {.max_ns = 1};
	struct ftfb_uw_table_built t;
	char err[256] = "";

	(void)state;
	assert_int_equal(ftfb_uw_table_from_file_opts(many_path, &o, &t, err,
						      sizeof(err)),
			 -ETIMEDOUT);
	assert_non_null(strstr(err, "over budget"));
	assert_null(t.rows);
}

/* Cancelled on the first poll (before any FDE), and in the middle of the
 * big FDE: no table, and no more polls after the one that said stop. */
static void test_cancel(void **state)
{
	unsigned at[] = {1, 5};
	struct ftfb_uw_table_built t;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct polls p = {.cancel_at = at[i]};
		struct ftfb_uw_build_opts o = {.cancelled = count_polls,
					       .arg = &p};

		err[0] = 0;
		assert_int_equal(ftfb_uw_table_from_file_opts(many_path, &o, &t,
							      err, sizeof(err)),
				 -ECANCELED);
		assert_int_equal(p.calls, at[i]);
		assert_non_null(strstr(err, "cancelled"));
		assert_null(t.rows);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_budget),
		cmocka_unit_test(test_row_budget),
		cmocka_unit_test(test_time_budget),
		cmocka_unit_test(test_cancel),
	};

	if (argc != 3)
		return 2;
	many_path = argv[1];
	many_n = strtoul(argv[2], NULL, 10);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
