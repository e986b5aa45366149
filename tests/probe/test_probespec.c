// SPDX-License-Identifier: MIT
/*
 * Unit tests for ELF symbol resolution (elfsym.c) and -u SPEC resolution
 * (probespec.c) on binaries built by these tests.
 *
 * Reference values are independent of the code under test:
 *   - file offsets: the target prints its functions' run-time addresses
 *     and the test converts them through the kernel's /proc/PID/maps
 *     (offset = addr - map start + map file offset), which is exactly
 *     what a uprobe at that file offset hits; for libraries loaded in this
 *     process, dlsym + /proc/self/maps;
 *   - sizes: `nm -S` from binutils;
 *   - C++ manglings written by hand from the Itanium ABI;
 *   - workload counts from its documented arithmetic.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfsym.h"
#include "probespec.h"

#define MAXSYM 16

struct target {
	pid_t pid;
	int in_fd; /* its stdin: closing it ends the target */
	int n;
	char names[MAXSYM][64];
	uint64_t addr[MAXSYM];
};

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		fail_msg("environment variable %s not set (run through meson test)",
			 name);
	return v;
}

static void start_target(const char *bin, struct target *t)
{
	int in[2], out[2];
	char line[256];
	FILE *f;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(bin, bin, "addrs", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->in_fd = in[1];
	t->n = 0;
	f = fdopen(out[0], "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long a;

		if (strcmp(line, "end\n") == 0)
			break;
		assert_int_equal(sscanf(line, "%63s %llx", name, &a), 2);
		assert_true(t->n < MAXSYM);
		strcpy(t->names[t->n], name);
		t->addr[t->n++] = a;
	}
	fclose(f);
	assert_true(t->n > 0);
}

static void stop_target(struct target *t)
{
	int st;

	close(t->in_fd);
	assert_int_equal(waitpid(t->pid, &st, 0), t->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Run-time address -> (file offset, mapped path) through /proc/PID/maps. */
static uint64_t maps_offset(pid_t pid, uint64_t addr, char *path,
			    size_t pathlen)
{
	char p[64], line[PATH_MAX + 128];
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
	f = fopen(p, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char *slash;

		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &off) != 3)
			continue;
		if (addr < start || addr >= end)
			continue;
		fclose(f);
		slash = strchr(line, '/');
		assert_non_null(slash);
		slash[strcspn(slash, "\n")] = '\0';
		if (path)
			snprintf(path, pathlen, "%s", slash);
		return addr - start + off;
	}
	fclose(f);
	fail_msg("address 0x%" PRIx64 " not mapped in pid %d", addr, pid);
	return 0;
}

static uint64_t target_offset(const struct target *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->names[i], name) == 0)
			return maps_offset(t->pid, t->addr[i], NULL, 0);
	fail_msg("target printed no address for %s", name);
	return 0;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Resolves @spec, expects exactly one function at @off named @name. */
static void expect_one(const char *spec, int pid, const char *main_bin,
		       const char *name, uint64_t off)
{
	struct ftfb_symlist l;
	char err[512] = "";
	int r = ftfb_probespec_resolve(spec, pid, main_bin, &l, err,
				       sizeof(err));

	if (r != 0)
		fail_msg("resolving '%s' (pid %d): %d %s", spec, pid, r, err);
	if (l.n != 1)
		fail_msg("'%s' matched %zu functions, expected 1", spec, l.n);
	assert_string_equal(l.v[0].name, name);
	if (l.v[0].offset != off)
		fail_msg("'%s': offset 0x%" PRIx64 ", /proc/PID/maps says 0x%" PRIx64,
			 spec, l.v[0].offset, off);
	ftfb_symlist_free(&l);
}

static void expect_error(const char *spec, int pid, const char *main_bin,
			 int code, const char *msg_part)
{
	struct ftfb_symlist l = { (void *)1, 1 };
	char err[512] = "";
	int r = ftfb_probespec_resolve(spec, pid, main_bin, &l, err,
				       sizeof(err));

	if (r != code)
		fail_msg("'%s': got %d (%s), expected %d", spec, r, err, code);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	if (!strstr(err, msg_part))
		fail_msg("'%s': message \"%s\" lacks \"%s\"", spec, err,
			 msg_part);
	assert_null(strchr(err, '\n'));
}

static const char *const tgt_funcs[] = { "tgt_parse_args", "tgt_parse_line",
					 "tgt_compute", "tgt_local_helper" };

/* All four functions, by BINARY:FUNC and by bare FUNC with -p. */
static void check_exe(const char *bin, bool has_local)
{
	struct target t;
	char spec[PATH_MAX + 64];

	start_target(bin, &t);
	for (size_t i = 0; i < 4; i++) {
		uint64_t off = target_offset(&t, tgt_funcs[i]);

		snprintf(spec, sizeof(spec), "%s:%s", bin, tgt_funcs[i]);
		if (i == 3 && !has_local) {
			expect_error(spec, 0, NULL, -ENOENT,
				     "no function matches 'tgt_local_helper'");
			continue;
		}
		expect_one(spec, 0, NULL, tgt_funcs[i], off);
		/* bare name: main binary from /proc/PID/exe */
		expect_one(tgt_funcs[i], t.pid, NULL, tgt_funcs[i], off);
		/* bare name: main binary given */
		expect_one(tgt_funcs[i], 0, bin, tgt_funcs[i], off);
	}
	stop_target(&t);
}

static void test_pie_offsets(void **state)
{
	(void)state;
	check_exe(env("TGT_PIE"), true);
}

static void test_nopie_offsets(void **state)
{
	(void)state;
	check_exe(env("TGT_NOPIE"), true);
}

/* Stripped: no .symtab, exported functions (-rdynamic) from .dynsym only;
 * the static function is gone. */
static void test_stripped_offsets(void **state)
{
	char cmd[PATH_MAX + 32], line[256];
	FILE *p;
	bool symtab = false;

	(void)state;
	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", env("TGT_STRIPPED"));
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		symtab |= strstr(line, " .symtab ") != NULL;
	pclose(p);
	assert_false(symtab);
	check_exe(env("TGT_STRIPPED"), false);
}

/* The sizes agree with binutils' nm -S. */
static void test_sizes_match_nm(void **state)
{
	const char *bin = env("TGT_PIE");
	char cmd[PATH_MAX + 64], line[512], spec[PATH_MAX + 64];
	int checked = 0;
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", bin);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long addr, size;
		char type, name[256];
		struct ftfb_symlist l;
		char err[256];

		if (sscanf(line, "%llx %llx %c %255s", &addr, &size, &type,
			   name) != 4 ||
		    strncmp(name, "tgt_", 4) != 0 ||
		    (type != 'T' && type != 't'))
			continue;
		snprintf(spec, sizeof(spec), "%s:%s", bin, name);
		assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
							sizeof(err)),
				 0);
		assert_int_equal(l.n, 1);
		assert_int_equal(l.v[0].size, size);
		ftfb_symlist_free(&l);
		checked++;
	}
	pclose(p);
	assert_int_equal(checked, 4);
}

static void *dl_self(const char *lib, const char *sym, uint64_t *off,
		     char *path, size_t pathlen)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void *a;

	assert_non_null(h);
	a = dlsym(h, sym);
	assert_non_null(a);
	*off = maps_offset(getpid(), (uint64_t)(uintptr_t)a, path, pathlen);
	return h;
}

static void test_shared_library(void **state)
{
	const char *lib = env("TGT_LIB");
	char spec[PATH_MAX + 64], mapped[PATH_MAX];
	uint64_t add_off, hello_off;
	struct ftfb_symlist l;
	char err[512];
	struct target t;
	void *h;

	(void)state;
	h = dl_self(lib, "tgtlib_add", &add_off, mapped, sizeof(mapped));
	dlclose(dl_self(lib, "tgtlib_hello", &hello_off, NULL, 0));
	assert_true(same_file(mapped, lib));

	snprintf(spec, sizeof(spec), "%s:tgtlib_add", lib);
	expect_one(spec, 0, NULL, "tgtlib_add", add_off);
	snprintf(spec, sizeof(spec), "%s:tgtlib_hello", lib);
	expect_one(spec, 0, NULL, "tgtlib_hello", hello_off);
	/* an alias at the same address: named as asked, one entry */
	snprintf(spec, sizeof(spec), "%s:tgtlib_add_alias", lib);
	expect_one(spec, 0, NULL, "tgtlib_add_alias", add_off);
	snprintf(spec, sizeof(spec), "%s:tgtlib_add*", lib);
	assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
						sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].offset, add_off);
	ftfb_symlist_free(&l);

	/* short name on the linker's search path (LD_LIBRARY_PATH) */
	assert_int_equal(ftfb_probespec_resolve("libftfbtgt:tgtlib_hello", 0,
						NULL, &l, err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].offset, hello_off);
	assert_true(same_file(l.v[0].binary, lib));
	ftfb_symlist_free(&l);

	/* short name through the target's /proc/PID/maps */
	start_target(env("TGT_PIE"), &t);
	assert_int_equal(ftfb_probespec_resolve("libftfbtgt:tgtlib_add", t.pid,
						NULL, &l, err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].offset, add_off);
	assert_true(same_file(l.v[0].binary, lib));
	ftfb_symlist_free(&l);
	stop_target(&t);
	dlclose(h);
}

static void test_cpp_names(void **state)
{
	const char *bin = getenv("TGT_CPP");
	char spec[PATH_MAX + 64];
	uint64_t oi, od, mk;
	struct ftfb_symlist l;
	char err[512];
	struct target t;

	(void)state;
	if (!bin || !*bin)
		skip(); /* no C++ compiler */
	start_target(bin, &t);
	oi = target_offset(&t, "overloaded_int");
	od = target_offset(&t, "overloaded_double");
	mk = target_offset(&t, "widget_make");

	/* demangled without parameters: both overloads */
	snprintf(spec, sizeof(spec), "%s:ns::overloaded", bin);
	assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
						sizeof(err)),
			 0);
	assert_int_equal(l.n, 2);
	assert_true((l.v[0].offset == oi && l.v[1].offset == od) ||
		    (l.v[0].offset == od && l.v[1].offset == oi));
	for (size_t i = 0; i < 2; i++) {
		assert_non_null(l.v[i].demangled);
		assert_string_equal(l.v[i].demangled,
				    l.v[i].offset == oi ? "ns::overloaded(int)"
							: "ns::overloaded(double)");
		assert_string_equal(l.v[i].name, l.v[i].offset == oi
							 ? "_ZN2ns10overloadedEi"
							 : "_ZN2ns10overloadedEd");
	}
	ftfb_symlist_free(&l);

	/* mangled name, full demangled name, glob on demangled */
	snprintf(spec, sizeof(spec), "%s:_ZN2ns10overloadedEi", bin);
	expect_one(spec, 0, NULL, "_ZN2ns10overloadedEi", oi);
	snprintf(spec, sizeof(spec), "%s:ns::overloaded(double)", bin);
	expect_one(spec, 0, NULL, "_ZN2ns10overloadedEd", od);
	snprintf(spec, sizeof(spec), "%s:*Widget::mak?", bin);
	expect_one(spec, 0, NULL, "_ZN2ns6Widget4makeEi", mk);
	snprintf(spec, sizeof(spec), "%s:_ZN2ns6Widget*", bin);
	expect_one(spec, 0, NULL, "_ZN2ns6Widget4makeEi", mk);
	/* bare C++ name with -p: "::" is not a BINARY: separator */
	expect_one("ns::Widget::make", t.pid, NULL, "_ZN2ns6Widget4makeEi",
		   mk);
	snprintf(spec, sizeof(spec), "%s:ns::Widget::mkae", bin);
	expect_error(spec, 0, NULL, -ENOENT, "closest: ns::Widget::make");
	stop_target(&t);
}

static void test_demangle(void **state)
{
	char *s;

	(void)state;
	s = ftfb_demangle("_ZN2ns10overloadedEi");
	if (!s)
		skip(); /* built without libiberty */
	assert_string_equal(s, "ns::overloaded(int)");
	free(s);
	/* Rust legacy: hash dropped */
	s = ftfb_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
	assert_non_null(s);
	assert_string_equal(s, "core::fmt::write");
	free(s);
	/* Rust v0 */
	s = ftfb_demangle("_RNvCs1234_7mycrate3foo");
	assert_non_null(s);
	assert_string_equal(s, "mycrate::foo");
	free(s);
	assert_null(ftfb_demangle("main"));
	assert_null(ftfb_demangle("_Zgarbage"));
}

static void test_libc_malloc(void **state)
{
	char mapped[PATH_MAX], err[512];
	struct ftfb_symlist l;
	uint64_t off;
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *a;

	(void)state;
	assert_non_null(h);
	a = dlsym(h, "malloc");
	assert_non_null(a);
	off = maps_offset(getpid(), (uint64_t)(uintptr_t)a, mapped,
			  sizeof(mapped));
	dlclose(h);

	/* without a target: the linker's search path */
	assert_int_equal(ftfb_probespec_resolve("libc:malloc", 0, NULL, &l, err,
						sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].name, "malloc");
	assert_int_equal(l.v[0].offset, off);
	assert_true(same_file(l.v[0].binary, mapped));
	assert_true(l.v[0].size > 0);
	ftfb_symlist_free(&l);

	/* with a target: its /proc/PID/maps */
	assert_int_equal(ftfb_probespec_resolve("libc:malloc", getpid(), NULL,
						&l, err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].offset, off);
	assert_true(same_file(l.v[0].binary, mapped));
	ftfb_symlist_free(&l);
}

static bool has_name(const struct ftfb_symlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return true;
	return false;
}

static void test_globs(void **state)
{
	const char *bin = env("TGT_PIE");
	char spec[PATH_MAX + 64], err[512];
	struct ftfb_symlist l;

	(void)state;
	snprintf(spec, sizeof(spec), "%s:tgt_parse_*", bin);
	assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
						sizeof(err)),
			 0);
	assert_int_equal(l.n, 2);
	assert_true(has_name(&l, "tgt_parse_args"));
	assert_true(has_name(&l, "tgt_parse_line"));
	ftfb_symlist_free(&l);

	/* tgt_sink is a variable: not a function */
	snprintf(spec, sizeof(spec), "%s:tgt_*", bin);
	assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
						sizeof(err)),
			 0);
	assert_int_equal(l.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_true(has_name(&l, tgt_funcs[i]));
	ftfb_symlist_free(&l);

	snprintf(spec, sizeof(spec), "%s:tgt_[cl]*[et]", bin);
	assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
						sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].name, "tgt_compute");
	ftfb_symlist_free(&l);
}

static void test_raw_offsets(void **state)
{
	const char *bin = env("TGT_PIE");
	char spec[PATH_MAX + 64];
	struct target t;
	uint64_t off;
	struct stat st;

	(void)state;
	start_target(bin, &t);
	off = target_offset(&t, "tgt_compute");
	stop_target(&t);
	snprintf(spec, sizeof(spec), "%s:0x%" PRIx64, bin, off);
	expect_one(spec, 0, NULL, "tgt_compute", off);
	snprintf(spec, sizeof(spec), "%s:0x%" PRIx64, bin, off + 1);
	{
		char name[32];

		snprintf(name, sizeof(name), "0x%" PRIx64, off + 1);
		expect_one(spec, 0, NULL, name, off + 1);
	}
	assert_int_equal(stat(bin, &st), 0);
	snprintf(spec, sizeof(spec), "%s:0x%llx", bin,
		 (unsigned long long)st.st_size);
	expect_error(spec, 0, NULL, -EINVAL, "past the end of");
	/* offset 0 is the ELF header: in the file, in no executable
	 * segment (ld's -z separate-code, the x86-64 default) */
	snprintf(spec, sizeof(spec), "%s:0x0", bin);
	expect_error(spec, 0, NULL, -EINVAL, "is not in the code of");
}

static void test_list_output(void **state)
{
	const char *bin = env("TGT_PIE");
	char spec[PATH_MAX + 64], err[256], want[PATH_MAX + 128];
	struct ftfb_symlist l;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	snprintf(spec, sizeof(spec), "%s:tgt_compute", bin);
	assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
						sizeof(err)),
			 0);
	snprintf(want, sizeof(want), "tgt_compute\t%s\t0x%" PRIx64 "\t%" PRIu64 "\n",
		 bin, l.v[0].offset, l.v[0].size);
	ftfb_symlist_free(&l);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(ftfb_probespec_list(f, spec, 0, NULL, err, sizeof(err)),
			 1);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_err_no_match(void **state)
{
	const char *bin = env("TGT_PIE");
	char spec[PATH_MAX + 64], want[PATH_MAX + 128];

	(void)state;
	snprintf(spec, sizeof(spec), "%s:tgt_prase_*", bin);
	snprintf(want, sizeof(want),
		 "no function matches 'tgt_prase_*' in %s; closest: tgt_parse_args, tgt_parse_line",
		 bin);
	expect_error(spec, 0, NULL, -ENOENT, want);
	snprintf(spec, sizeof(spec), "%s:tgt_comptue", bin);
	expect_error(spec, 0, NULL, -ENOENT, "closest: tgt_compute");
	/* nothing close: points at --list */
	snprintf(spec, sizeof(spec), "%s:zzzzzzzzzzzzzzzz", bin);
	expect_error(spec, 0, NULL, -ENOENT, "see --list");
}

static void test_err_missing_binary(void **state)
{
	char want[128];

	(void)state;
	expect_error("/nonexistent/dir/prog:main", 0, NULL, -ENOENT,
		     "/nonexistent/dir/prog: No such file or directory");
	expect_error("libftfbnosuchlib:f", 0, NULL, -ENOENT,
		     "'libftfbnosuchlib' is not found on the linker's search path");
	snprintf(want, sizeof(want),
		 "'libftfbnosuchlib' is not a library mapped by pid %d nor found on the linker's search path",
		 (int)getpid());
	expect_error("libftfbnosuchlib:f", getpid(), NULL, -ENOENT, want);
	expect_error("ftfbnosuchprog:f", 0, NULL, -ENOENT,
		     "'ftfbnosuchprog' is not on PATH");
}

static char *tmpfile_with(const void *data, size_t len)
{
	char *path = strdup("/tmp/ftfb-elfsym-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_err_not_elf(void **state)
{
	static const char *const contents[] = { "", "hello world\n", "\177EL",
						"#!/bin/sh\necho hi\n" };
	char spec[PATH_MAX], want[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		char *p = tmpfile_with(contents[i], strlen(contents[i]));

		snprintf(spec, sizeof(spec), "%s:main", p);
		snprintf(want, sizeof(want), "%s: not an ELF file", p);
		expect_error(spec, 0, NULL, -ENOEXEC, want);
		snprintf(spec, sizeof(spec), "%s:0x0", p);
		expect_error(spec, 0, NULL, -ENOEXEC, want);
		unlink(p);
		free(p);
	}
	/* a directory */
	expect_error("/tmp/:main", 0, NULL, -EISDIR, "not a regular file");
}

static void test_err_truncated(void **state)
{
	const char *bin = env("TGT_PIE");
	char spec[PATH_MAX], want[PATH_MAX];
	struct stat st;
	char *data;
	int fd;

	(void)state;
	assert_int_equal(stat(bin, &st), 0);
	data = malloc((size_t)st.st_size);
	assert_non_null(data);
	fd = open(bin, O_RDONLY);
	assert_int_equal(read(fd, data, (size_t)st.st_size), st.st_size);
	close(fd);

	size_t lens[] = { 5, 16, 40, 64, 200, (size_t)st.st_size / 2,
			  (size_t)st.st_size - 1 };
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *p = tmpfile_with(data, lens[i]);
		struct ftfb_symlist l;
		char err[PATH_MAX];

		snprintf(spec, sizeof(spec), "%s:tgt_compute", p);
		snprintf(want, sizeof(want), "%s: truncated ELF file", p);
		expect_error(spec, 0, NULL, -ENOEXEC, want);
		assert_int_equal(ftfb_elf_functions(p, &l, err, sizeof(err)),
				 -ENOEXEC);
		assert_string_equal(err, want);
		unlink(p);
		free(p);
	}
	free(data);
}

static void test_err_pid_gone(void **state)
{
	char want[64];
	pid_t pid = fork();

	(void)state;
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	snprintf(want, sizeof(want), "pid %d does not exist", (int)pid);
	expect_error("tgt_compute", pid, NULL, -ESRCH, want);
	expect_error("libc:malloc", pid, NULL, -ESRCH, want);
}

static void test_err_kernel_thread(void **state)
{
	char link[64];

	(void)state;
	/* pid 2 is kthreadd unless we are in a pid namespace */
	if (readlink("/proc/2/exe", link, sizeof(link)) >= 0 ||
	    access("/proc/2", F_OK) != 0)
		skip();
	expect_error("main", 2, NULL, -ESRCH, "pid 2 has no executable");
}

static void test_err_bad_spec(void **state)
{
	(void)state;
	expect_error("", 0, NULL, -EINVAL, "empty probe spec");
	expect_error(":main", 0, NULL, -EINVAL, "expected BINARY:FUNC");
	expect_error("/bin/true:", 0, NULL, -EINVAL, "expected BINARY:FUNC");
	expect_error("main", 0, NULL, -EINVAL, "needs a target");
}

static void test_elf_functions(void **state)
{
	const char *bin = env("TGT_PIE");
	struct ftfb_symlist l;
	char err[256];
	struct stat st;

	(void)state;
	assert_int_equal(stat(bin, &st), 0);
	assert_int_equal(ftfb_elf_functions(bin, &l, err, sizeof(err)), 0);
	assert_true(l.n >= 5); /* 4 tgt_* + main, + crt functions */
	assert_true(has_name(&l, "main"));
	for (size_t i = 0; i < l.n; i++) {
		assert_true(l.v[i].offset < (uint64_t)st.st_size);
		if (i)
			assert_true(l.v[i].offset > l.v[i - 1].offset);
		assert_string_equal(l.v[i].binary, bin);
	}
	ftfb_symlist_free(&l);
	ftfb_symlist_free(&l); /* idempotent */
	ftfb_symlist_free(NULL);
}

static void test_glob_distance(void **state)
{
	(void)state;
	assert_int_equal(ftfb_glob_distance("abc", "abc"), 0);
	assert_int_equal(ftfb_glob_distance("abc", ""), 3);
	assert_int_equal(ftfb_glob_distance("", "abc"), 3);
	assert_int_equal(ftfb_glob_distance("a*c", "abbbbc"), 0);
	assert_int_equal(ftfb_glob_distance("?bc", "xbc"), 0);
	assert_int_equal(ftfb_glob_distance("[xy]bc", "zbc"), 0);
	assert_int_equal(ftfb_glob_distance("prase_*", "parse_args"), 2);
	assert_int_equal(ftfb_glob_distance("mallco", "malloc"), 2);
	assert_int_equal(ftfb_glob_distance("malloc", "malloc_usable"), 7);
	assert_int_equal(ftfb_glob_distance("kitten", "sitting"), 3);
}

/* The workload runs and its functions return what its comment says, and
 * its traced functions exist under their own names (no compiler clones
 * such as fib.part.0 or fib.constprop.0). The call counts are checked
 * with kernel uprobes by tracefs_counts.sh (suite bpf). */
static void test_workload(void **state)
{
	const char *wl = env("WORKLOAD");
	char cmd[PATH_MAX + 32], line[256], spec[PATH_MAX + 64];
	static const char *const funcs[] = { "work_a", "work_b", "fib",
					     "args6" };
	bool done = false;
	FILE *p;

	(void)state;
	snprintf(cmd, sizeof(cmd), "'%s'", wl);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		done |= strcmp(line, "done\n") == 0;
	/* exit 0: every traced function returned its documented value */
	assert_int_equal(pclose(p), 0);
	assert_true(done);
	for (size_t i = 0; i < 4; i++) {
		struct ftfb_symlist l;
		char err[512];

		snprintf(spec, sizeof(spec), "%s:%s", wl, funcs[i]);
		assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
							sizeof(err)),
				 0);
		assert_int_equal(l.n, 1);
		ftfb_symlist_free(&l);
		snprintf(spec, sizeof(spec), "%s:%s.*", wl, funcs[i]);
		expect_error(spec, 0, NULL, -ENOENT, "no function matches");
	}
	/* the library by short name (LD_LIBRARY_PATH) and by path agree */
	{
		struct ftfb_symlist l;
		char err[512];

		snprintf(spec, sizeof(spec), "%s:wl_lib_add",
			 env("WORKLOAD_LIB"));
		assert_int_equal(ftfb_probespec_resolve(spec, 0, NULL, &l, err,
							sizeof(err)),
				 0);
		assert_int_equal(l.n, 1);
		expect_one("libftfbwl:wl_lib_add", 0, NULL, "wl_lib_add",
			   l.v[0].offset);
		ftfb_symlist_free(&l);
	}
}

static void copy_file(const char *from, const char *to)
{
	char cmd[2 * PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

/* BINARY names on PATH: scripts (pyenv-like shims) are skipped for a
 * later ELF file of that name; a script alone is "not an ELF file". */
static void test_path_lookup(void **state)
{
	char d1[] = "/tmp/ftfb-path1-XXXXXX", d2[] = "/tmp/ftfb-path2-XXXXXX";
	char p1[256], p2[256], newpath[600], want[PATH_MAX];
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	struct ftfb_symlist l;
	char err[512];
	struct target t;
	uint64_t off;
	FILE *f;

	(void)state;
	start_target(env("TGT_PIE"), &t);
	off = target_offset(&t, "tgt_compute");
	stop_target(&t);
	assert_non_null(mkdtemp(d1));
	assert_non_null(mkdtemp(d2));
	snprintf(p1, sizeof(p1), "%s/ftfbprog", d1);
	snprintf(p2, sizeof(p2), "%s/ftfbprog", d2);
	f = fopen(p1, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexec true\n", f);
	fclose(f);
	assert_int_equal(chmod(p1, 0755), 0);
	copy_file(env("TGT_PIE"), p2);

	snprintf(newpath, sizeof(newpath), "%s:%s", d1, d2);
	setenv("PATH", newpath, 1);
	assert_int_equal(ftfb_probespec_resolve("ftfbprog:tgt_compute", 0, NULL,
						&l, err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].binary, p2);
	assert_int_equal(l.v[0].offset, off);
	ftfb_symlist_free(&l);
	setenv("PATH", d1, 1);
	snprintf(want, sizeof(want), "%s: not an ELF file", p1);
	expect_error("ftfbprog:tgt_compute", 0, NULL, -ENOEXEC, want);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	unlink(p1);
	unlink(p2);
	rmdir(d1);
	rmdir(d2);
}

/* A target with its own root (as in a container): its paths are opened
 * through /proc/PID/root. Needs CAP_SYS_CHROOT; skipped without. */
static void test_container_root(void **state)
{
	char root[] = "/tmp/ftfb-root-XXXXXX", dir[PATH_MAX], bin[PATH_MAX];
	char want[PATH_MAX], err[512];
	int ready[2], hold[2];
	struct ftfb_symlist l;
	struct target t;
	uint64_t off;
	pid_t pid;
	char c;

	(void)state;
	start_target(env("TGT_PIE"), &t);
	off = target_offset(&t, "tgt_compute");
	stop_target(&t);
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/opt", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(bin, sizeof(bin), "%s/opt/ftfb-only-in-root", root);
	copy_file(env("TGT_PIE"), bin);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(hold[1]);
		c = chroot(root) == 0 ? 'y' : 'n';
		(void)!write(ready[1], &c, 1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	if (c == 'y') {
		assert_int_equal(ftfb_probespec_resolve(
					 "/opt/ftfb-only-in-root:tgt_compute",
					 pid, NULL, &l, err, sizeof(err)),
				 0);
		assert_int_equal(l.n, 1);
		assert_int_equal(l.v[0].offset, off);
		snprintf(want, sizeof(want),
			 "/proc/%d/root/opt/ftfb-only-in-root", (int)pid);
		assert_string_equal(l.v[0].binary, want);
		ftfb_symlist_free(&l);
		/* without the pid the path does not exist here */
		expect_error("/opt/ftfb-only-in-root:tgt_compute", 0, NULL,
			     -ENOENT, "No such file");
	}
	close(hold[1]);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(ready[1]);
	unlink(bin);
	rmdir(dir);
	rmdir(root);
	if (c != 'y')
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_offsets),
		cmocka_unit_test(test_nopie_offsets),
		cmocka_unit_test(test_stripped_offsets),
		cmocka_unit_test(test_sizes_match_nm),
		cmocka_unit_test(test_shared_library),
		cmocka_unit_test(test_cpp_names),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_libc_malloc),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_raw_offsets),
		cmocka_unit_test(test_list_output),
		cmocka_unit_test(test_err_no_match),
		cmocka_unit_test(test_err_missing_binary),
		cmocka_unit_test(test_err_not_elf),
		cmocka_unit_test(test_err_truncated),
		cmocka_unit_test(test_err_pid_gone),
		cmocka_unit_test(test_err_kernel_thread),
		cmocka_unit_test(test_err_bad_spec),
		cmocka_unit_test(test_elf_functions),
		cmocka_unit_test(test_glob_distance),
		cmocka_unit_test(test_workload),
		cmocka_unit_test(test_path_lookup),
		cmocka_unit_test(test_container_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
