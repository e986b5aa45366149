// SPDX-License-Identifier: MIT
/*
 * test_uprobe_set.c - the functions a trace must never probe, and the -u
 * function set built from specs.
 *
 * Expected values come from outside the code: the instruction bytes and
 * their prefixes from the Intel SDM (vol. 2, 2.1.1: LOCK F0, segment
 * overrides 2E 36 3E 26 64 65, operand/address size 66 67, REP F2 F3;
 * the kernel's is_prefix_bad() refuses LOCK and the CS/DS/ES/SS
 * overrides), the returns-twice functions from glibc's ABI (its exported
 * setjmp, vfork, clone, *context names), and libc's own symbols.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uprobe_set.h"

#define BYTES(...) ((const unsigned char[]){ __VA_ARGS__ })
#define PROBEABLE(...)                                                         \
	ftfb_x86_insn_probeable(BYTES(__VA_ARGS__),                           \
				sizeof(BYTES(__VA_ARGS__)))

static void test_prefix_decoding(void **state)
{
	(void)state;
	assert_true(PROBEABLE(0x55));			   /* push %rbp */
	assert_true(PROBEABLE(0xf3, 0x0f, 0x1e, 0xfa));	   /* endbr64 */
	assert_true(PROBEABLE(0x64, 0x48, 0x8b, 0x04));	   /* mov %fs:..,%rax */
	assert_true(PROBEABLE(0x66, 0x90));		   /* xchg %ax,%ax */
	assert_false(PROBEABLE(0xf0, 0x48, 0x0f, 0xb1));   /* lock cmpxchg */
	assert_false(PROBEABLE(0x66, 0xf0, 0xff, 0x00));   /* lock after 66 */
	assert_false(PROBEABLE(0x3e, 0xff, 0xe0));	   /* notrack jmp *%rax */
	assert_false(PROBEABLE(0x2e, 0x0f, 0x1f, 0x84));   /* cs nopw */
	assert_false(PROBEABLE(0x26, 0x8b, 0x00));	   /* es: mov */
	assert_false(PROBEABLE(0x36, 0x8b, 0x00));	   /* ss: mov */
	assert_false(PROBEABLE(0xf3, 0x66, 0x3e, 0x90));   /* ds after two */
	assert_true(PROBEABLE(0x66, 0x66, 0x66, 0x66));	   /* cannot tell */
	assert_true(ftfb_x86_insn_probeable(NULL, 0));	   /* nothing read */
}

static void test_returns_twice_names(void **state)
{
	static const char *const twice[] = {
		"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "vfork",
		"__vfork", "clone", "clone3", "getcontext", "setcontext",
		"swapcontext",
	};
	static const char *const once[] = {
		"longjmp", "makecontext", "fork", "setjmp_wrapper", "vfork2",
		"malloc", "",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(twice) / sizeof(twice[0]); i++)
		assert_true(ftfb_returns_twice(twice[i]));
	for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
		assert_false(ftfb_returns_twice(once[i]));
	assert_false(ftfb_returns_twice(NULL));
}

/* A file whose bytes at offsets 0 and 8 start a plain and a LOCK
 * instruction. */
static void write_code(char *path, size_t len)
{
	static const unsigned char code[16] = {
		0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90, 0x90, /* push, mov */
		0xf0, 0x48, 0x0f, 0xb1, 0x0a, 0xc3, 0x90, 0x90, /* lock cmpxchg */
	};
	int fd;

	snprintf(path, len, "/tmp/ftfb_uprobe_set_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, code, sizeof(code)), sizeof(code));
	close(fd);
}

static void test_unprobeable_reasons(void **state)
{
	char path[64], *alias = "__sigsetjmp";
	struct ftfb_sym s = { 0 };
	const char *why;

	(void)state;
	write_code(path, sizeof(path));
	s.binary = path;
	s.name = "work";
	assert_null(ftfb_unprobeable(&s));
	s.offset = 8;
	why = ftfb_unprobeable(&s);
	assert_non_null(why);
	assert_non_null(strstr(why, "LOCK"));
	/* an alias at the same address that returns twice decides */
	s.offset = 0;
	s.aliases = &alias;
	s.naliases = 1;
	why = ftfb_unprobeable(&s);
	assert_non_null(why);
	assert_non_null(strstr(why, "returns twice"));
	/* and a demangled name */
	s.naliases = 0;
	s.demangled = "vfork";
	assert_non_null(ftfb_unprobeable(&s));
	unlink(path);
}

static void test_short_binary_names(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(ftfb_short_binary_name("/lib/x86_64-linux-gnu/libc.so.6", buf, sizeof(buf)), "libc");
	assert_string_equal(ftfb_short_binary_name("libssl.so.3", buf, sizeof(buf)), "libssl");
	assert_string_equal(ftfb_short_binary_name("/usr/bin/python3.11", buf, sizeof(buf)), "python3.11");
	assert_string_equal(ftfb_short_binary_name("/x/.so", buf, sizeof(buf)), ".so");
}

/* Two specs: the cookies count their functions in spec order; a usdt:
 * spec is left to the USDT set. */
static void test_set_in_spec_order(void **state)
{
	const char *specs[] = { "libc:getpid", "usdt:python:gc__start",
				"libc:getppid" };
	struct ftfb_uprobe_set u;
	char err[512] = "";
	const struct ftfb_sym *pid;

	(void)state;
	assert_int_equal(ftfb_uprobe_set_build(&u, specs, 3, 0, NULL, err,
					       sizeof(err)), 0);
	assert_int_equal(u.nfuncs, 2);
	assert_string_equal(u.funcs[0].name, "getpid");
	assert_string_equal(u.funcs[1].name, "getppid");
	assert_string_equal(u.funcs[0].category, "libc");
	assert_int_equal(u.lists[1].n, 0);
	pid = &u.lists[0].v[0];
	assert_int_equal(ftfb_uprobe_set_find(&u, pid->binary, pid->offset), 0);
	assert_int_equal(ftfb_uprobe_set_find(&u, u.lists[2].v[0].binary,
					      u.lists[2].v[0].offset), 1);
	assert_int_equal(ftfb_uprobe_set_find(&u, pid->binary, pid->offset + 1),
			 -1);
	ftfb_uprobe_set_free(&u);
}

/* libc:*context: makecontext is kept, getcontext, setcontext and
 * swapcontext are left out. */
static void test_set_drops_returns_twice(void **state)
{
	const char *specs[] = { "libc:*context" };
	struct ftfb_uprobe_set u;
	char err[512] = "";
	bool make = false;

	(void)state;
	assert_int_equal(ftfb_uprobe_set_build(&u, specs, 1, 0, NULL, err,
					       sizeof(err)), 0);
	assert_true(u.nfuncs >= 1);
	for (size_t i = 0; i < u.nfuncs; i++) {
		assert_false(ftfb_returns_twice(u.funcs[i].name));
		make |= strstr(u.funcs[i].name, "makecontext") != NULL;
	}
	assert_true(make);
	ftfb_uprobe_set_free(&u);
}

/* A spec that keeps nothing is an error naming what and why. */
static void test_set_refuses_only_unprobeable(void **state)
{
	const char *specs[] = { "libc:vfork" };
	struct ftfb_uprobe_set u;
	char err[512] = "";

	(void)state;
	assert_int_equal(ftfb_uprobe_set_build(&u, specs, 1, 0, NULL, err,
					       sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "vfork"));
	assert_non_null(strstr(err, "probe its caller instead"));
	ftfb_uprobe_set_free(&u);
}

/* Specs that name a function again (glibc's __libc_malloc is malloc
 * itself, a strong alias; libc.so.6 by a symbolic link of another name is
 * the same file): each function is probed once, else every call came
 * twice, the second slice unfinished; a trigger's lookup by the other
 * path finds the one probe. */
static void test_set_probes_a_function_once(void **state)
{
	const char *first[] = { "libc:getpid" };
	char dir[] = "/tmp/uprobe-set-XXXXXX", link[PATH_MAX], spec[PATH_MAX + 16];
	const char *specs[] = { "libc:malloc", "libc:__libc_malloc",
				"libc:getpid", spec, "libc:getppid" };
	struct ftfb_uprobe_set u;
	char err[512] = "";
	uint64_t getpid_at;

	(void)state;
	/* where libc is, then a link to it under another name */
	assert_int_equal(ftfb_uprobe_set_build(&u, first, 1, 0, NULL, err,
					       sizeof(err)), 0);
	assert_non_null(mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/other-name.so", dir);
	assert_int_equal(symlink(u.lists[0].v[0].binary, link), 0);
	getpid_at = u.lists[0].v[0].offset;
	ftfb_uprobe_set_free(&u);
	snprintf(spec, sizeof(spec), "%s:getpid", link);

	assert_int_equal(ftfb_uprobe_set_build(&u, specs, 5, 0, NULL, err,
					       sizeof(err)), 0);
	assert_int_equal(u.nfuncs, 3);
	assert_string_equal(u.funcs[0].name, "malloc");
	assert_string_equal(u.funcs[1].name, "getpid");
	assert_string_equal(u.funcs[2].name, "getppid");
	assert_int_equal(u.lists[1].n, 0);
	assert_int_equal(u.lists[3].n, 0);
	assert_int_equal(ftfb_uprobe_set_find(&u, link, getpid_at), 1);
	ftfb_uprobe_set_free(&u);
	unlink(link);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_decoding),
		cmocka_unit_test(test_returns_twice_names),
		cmocka_unit_test(test_unprobeable_reasons),
		cmocka_unit_test(test_short_binary_names),
		cmocka_unit_test(test_set_in_spec_order),
		cmocka_unit_test(test_set_drops_returns_twice),
		cmocka_unit_test(test_set_refuses_only_unprobeable),
		cmocka_unit_test(test_set_probes_a_function_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
