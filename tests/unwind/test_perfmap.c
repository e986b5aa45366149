// SPDX-License-Identifier: MIT
/*
 * test_perfmap - JIT names from a perf map file (src/perfmap.c), on
 * files written here in the format Node, the JVM agents and Python 3.12
 * write: "START SIZE NAME", hex, one a line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* a line longer than FTFB_PERFMAP_LINE_MAX is skipped whole: its tail,
 * shaped like an entry, names nothing; the lines around it are kept */
static void long_line_skipped(void **state)
{
	struct ftfb_perfmap pm = {0};
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	fputs("1000 10 before\n2000 10 ", f);
	for (int i = 0; i < FTFB_PERFMAP_LINE_MAX; i++)
		fputc('x', f);
	fputs(" 3000 10 forged\n4000 10 after\n", f);
	fclose(f);
	assert_int_equal(ftfb_perfmap_load(&pm, path), 0);
	assert_int_equal(pm.n, 2);
	assert_string_equal(ftfb_perfmap_find(&pm, 0x1000), "before");
	assert_null(ftfb_perfmap_find(&pm, 0x2000));
	assert_null(ftfb_perfmap_find(&pm, 0x3000));
	assert_string_equal(ftfb_perfmap_find(&pm, 0x4000), "after");
	ftfb_perfmap_free(&pm);
}

/* a name is cut at FTFB_PERFMAP_NAME_MAX bytes; ESC, CR and a byte
 * that is not UTF-8 become '?' */
static void names_cut_and_safe(void **state)
{
	struct ftfb_perfmap pm = {0};
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	fputs("1000 10 a\x1b[2Jb\rc\xff\n2000 10 ", f);
	for (int i = 0; i < FTFB_PERFMAP_NAME_MAX + 100; i++)
		fputc('n', f);
	fputc('\n', f);
	fclose(f);
	assert_int_equal(ftfb_perfmap_load(&pm, path), 0);
	assert_string_equal(ftfb_perfmap_find(&pm, 0x1000), "a?[2Jb?c?");
	assert_int_equal(strlen(ftfb_perfmap_find(&pm, 0x2000)),
			 FTFB_PERFMAP_NAME_MAX);
	ftfb_perfmap_free(&pm);
}

/* a FIFO is refused at once (no writer: an open without O_NONBLOCK
 * would wait forever), a directory too */
static void fifo_refused(void **state)
{
	struct ftfb_perfmap pm = {0};

	(void)state;
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(ftfb_perfmap_load(&pm, path), -ENOEXEC);
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(ftfb_perfmap_load(&pm, path), -EISDIR);
	rmdir(path);
}

/* a map one byte over FTFB_PERFMAP_MAX (sparse) is not read at all */
static void size_cap(void **state)
{
	struct ftfb_perfmap pm = {0};
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	fputs("1000 10 first\n", f);
	fclose(f);
	assert_int_equal(truncate(path, (off_t)FTFB_PERFMAP_MAX + 1), 0);
	assert_int_equal(ftfb_perfmap_load(&pm, path), -EFBIG);
	assert_int_equal(pm.n, 0);
	assert_int_equal(truncate(path, (off_t)FTFB_PERFMAP_MAX), 0);
	assert_int_equal(ftfb_perfmap_load(&pm, path), 0);
	assert_string_equal(ftfb_perfmap_find(&pm, 0x1000), "first");
	ftfb_perfmap_free(&pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(names_by_range, setup,
						teardown),
		cmocka_unit_test_setup_teardown(later_line_wins, setup,
						teardown),
		cmocka_unit_test_setup_teardown(missing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(long_line_skipped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(names_cut_and_safe, setup,
						teardown),
		cmocka_unit_test_setup_teardown(fifo_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(size_cap, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
