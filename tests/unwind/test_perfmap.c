// SPDX-License-Identifier: MIT
/*
 * test_perfmap - JIT names from a perf map file (src/perfmap.c), on
 * files written here in the format Node, the JVM agents and Python 3.12
 * write: "START SIZE NAME", hex, one a line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfmap.h"

static char path[64];

static void write_map(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_perfmap-%d.map", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* each address named by the entry covering it; outside all: NULL */
static void names_by_range(void **state)
{
	struct ftfb_perfmap pm = {0};

	(void)state;
	write_map("7f0000001000 40 LazyCompile:~main /app.js:1\n"
		  "7f0000000000 100 py::f:/x.py\n"
		  "garbage line\n"
		  "7f0000002000 0 empty\n");
	assert_int_equal(ftfb_perfmap_load(&pm, path), 0);
	assert_int_equal(pm.n, 2); /* the garbage and the empty one skipped */
	assert_string_equal(ftfb_perfmap_find(&pm, 0x7f0000000000),
			    "py::f:/x.py");
	assert_string_equal(ftfb_perfmap_find(&pm, 0x7f00000000ff),
			    "py::f:/x.py");
	assert_null(ftfb_perfmap_find(&pm, 0x7f0000000100));
	assert_string_equal(ftfb_perfmap_find(&pm, 0x7f000000103f),
			    "LazyCompile:~main /app.js:1");
	assert_null(ftfb_perfmap_find(&pm, 0x7f0000001040));
	assert_null(ftfb_perfmap_find(&pm, 0x1000));
	ftfb_perfmap_free(&pm);
}

/* code recompiled at the same address: the later line names it */
static void later_line_wins(void **state)
{
	struct ftfb_perfmap pm = {0};

	(void)state;
	write_map("1000 20 old\n1000 20 new\n");
	assert_int_equal(ftfb_perfmap_load(&pm, path), 0);
	assert_string_equal(ftfb_perfmap_find(&pm, 0x1010), "new");
	ftfb_perfmap_free(&pm);
}

static void missing_file(void **state)
{
	struct ftfb_perfmap pm = {0};

	(void)state;
	unlink(path);
	assert_int_equal(ftfb_perfmap_load(&pm, path), -2 /* ENOENT */);
	assert_null(ftfb_perfmap_find(&pm, 0x1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(names_by_range, setup,
						teardown),
		cmocka_unit_test_setup_teardown(later_line_wins, setup,
						teardown),
		cmocka_unit_test_setup_teardown(missing_file, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
