// SPDX-License-Identifier: MIT
/*
 * tests/bpf/test_uprobe.c - the uprobe programs, for real (root): a
 * noinline function of this binary called a known number of times with
 * known arguments gives exactly that many entry and return events, with
 * the cookie, arguments and return values expected; the tgid filter
 * keeps out calls from an untraced process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common.h"
#include "offset.h"

#define CALLS 1000
#define COOKIE 42
#define COOKIE2 7

/* The probed functions: not inlined, not merged, results used. */
__attribute__((noinline, used)) long ftfb_probe_target(long a, long b,
						       long c, long d, long e,
						       long f)
{
	__asm__ volatile("" ::: "memory");
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

__attribute__((noinline, used)) long ftfb_probe_other(long a)
{
	__asm__ volatile("" ::: "memory");
	return -a;
}

/* Returns its own entry stack pointer (which points at its return
 * address): what the entry program must record as sp; the return
 * program must see that + 8 (the return popped the return address). */
__asm__(".text\n"
	".globl ftfb_probe_sp\n"
	".type ftfb_probe_sp, @function\n"
	"ftfb_probe_sp:\n"
	"	mov %rsp, %rax\n"
	"	ret\n"
	".size ftfb_probe_sp, .-ftfb_probe_sp\n");
unsigned long ftfb_probe_sp(void);
static unsigned long (*volatile sp_fn)(void) = ftfb_probe_sp;

static long (*volatile target_fn)(long, long, long, long, long,
				  long) = ftfb_probe_target;
static long (*volatile other_fn)(long) = ftfb_probe_other;
static volatile long sink;

static void attach_fn(struct ftfb_loader *l, const void *fn, uint64_t cookie,
		      int pid)
{
	char path[4096], err[256] = "";
	uint64_t off;
	int rc;

	assert_int_equal(file_offset_of(fn, path, sizeof(path), &off), 0);
	rc = ftfb_loader_attach_uprobes(l, path, &off, &cookie, 1, pid, err,
					sizeof(err));
	if (rc)
		fprintf(stderr, "attach: %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	ftfb_loader_arm_uprobes(l, true);
}

static void drain_all(struct ftfb_loader *l, struct evlog *log)
{
	int n;

	do {
		n = ftfb_loader_drain(l, evlog_add, log);
		assert_true(n >= 0);
	} while (n > 0);
}

static void run_calls(int n, long base)
{
	for (long i = 0; i < n; i++)
		sink = target_fn(base + i, i, -i, 1000 + i, i * i, 7);
}

static long expected_ret(long a, long b, long c, long d, long e, long f)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

/* Entries and returns of `cookie` by this thread: each call's args and
 * ret checked in order. Returns the number of calls seen. */
static size_t check_calls(const struct evlog *log, uint32_t cookie, long base,
			  uint32_t nargs)
{
	size_t entries = 0, rets = 0;
	uint32_t tid = gettid();

	for (size_t i = 0; i < log->n; i++) {
		const struct ftfb_hdr *h = evlog_hdr(log, i);

		if (h->kind == FTFB_EV_UENTRY) {
			const struct ftfb_uentry *e = (const void *)h;
			long k = entries;
			long want[6] = { base + k, k, -k, 1000 + k, k * k, 7 };

			if (e->cookie != cookie)
				continue;
			assert_int_equal(h->tid, tid);
			assert_int_equal(h->tgid, getpid());
			assert_int_equal(log->v[i].size, sizeof(*e));
			assert_int_equal(e->nargs, nargs);
			for (uint32_t a = 0; a < FTFB_MAX_ARGS; a++)
				assert_int_equal((long)e->args[a],
						 a < nargs ? want[a] : 0);
			/* an entry comes before its return */
			assert_int_equal(entries, rets);
			entries++;
		} else if (h->kind == FTFB_EV_URET) {
			const struct ftfb_uret *r = (const void *)h;
			long k = rets;

			if (r->cookie != cookie)
				continue;
			assert_int_equal(h->tid, tid);
			assert_int_equal(log->v[i].size, sizeof(*r));
			assert_int_equal((long)r->ret,
					 expected_ret(base + k, k, -k,
						      1000 + k, k * k, 7));
			rets++;
			assert_int_equal(entries, rets);
		}
	}
	assert_int_equal(entries, rets);
	return entries;
}

/* Uprobe events in the log (lifecycle events of other processes are
 * reported too, with or without the sched capture). */
static size_t uprobe_events(const struct evlog *log)
{
	size_t n = 0;

	for (size_t i = 0; i < log->n; i++) {
		unsigned kind = evlog_hdr(log, i)->kind;

		n += kind == FTFB_EV_UENTRY || kind == FTFB_EV_URET;
	}
	return n;
}

static void test_uprobe_exact_calls(void **state)
{
	struct ftfb_loader_opts o = { .uprobe_nargs = 6 };
	struct ftfb_loader *l = open_or_skip(&o);
	uint64_t drops[FTFB_EV_KIND_MAX], fired[FTFB_EV_KIND_MAX];
	struct evlog log = { 0 };
	size_t n, others = 0;

	(void)state;
	attach_fn(l, (const void *)ftfb_probe_target, COOKIE, getpid());
	attach_fn(l, (const void *)ftfb_probe_other, COOKIE2, getpid());
	run_calls(CALLS, 100);
	for (int i = 0; i < 3; i++)
		sink = other_fn(i);
	drain_all(l, &log);
	n = check_calls(&log, COOKIE, 100, 6);
	for (size_t i = 0; i < log.n; i++) {
		const struct ftfb_hdr *h = evlog_hdr(&log, i);

		if (h->kind == FTFB_EV_URET &&
		    ((const struct ftfb_uret *)h)->cookie == COOKIE2)
			others++;
	}
	assert_true(ftfb_loader_uprobe_multi(l)); /* Linux 6.6+ */
	printf("uprobe (%s links): %zu calls of ftfb_probe_target, %zu of "
	       "ftfb_probe_other\n",
	       ftfb_loader_uprobe_multi(l) ? "uprobe_multi" : "single", n,
	       others);
	assert_int_equal(n, CALLS);
	assert_int_equal(others, 3);
	assert_int_equal(uprobe_events(&log), 2 * (CALLS + 3)); /* no other */
	assert_int_equal(ftfb_loader_counters(l, drops, fired), 0);
	assert_int_equal(fired[FTFB_EV_UENTRY], CALLS + 3);
	assert_int_equal(fired[FTFB_EV_URET], CALLS + 3);
	assert_int_equal(drops[FTFB_EV_UENTRY] + drops[FTFB_EV_URET], 0);
	ftfb_loader_close(l);
	free(log.v);
}

/* Per-function links (the fallback where the kernel has no uprobe_multi)
 * give the same events. */
static void test_uprobe_single_links(void **state)
{
	struct ftfb_loader_opts o = { .uprobe_nargs = 6,
				      .uprobe_no_multi = true };
	struct ftfb_loader *l = open_or_skip(&o);
	struct evlog log = { 0 };

	(void)state;
	attach_fn(l, (const void *)ftfb_probe_target, COOKIE, getpid());
	assert_false(ftfb_loader_uprobe_multi(l));
	run_calls(CALLS, 3);
	drain_all(l, &log);
	assert_int_equal(check_calls(&log, COOKIE, 3, 6), CALLS);
	assert_int_equal(uprobe_events(&log), 2 * CALLS);
	ftfb_loader_close(l);
	free(log.v);
}

static void test_uprobe_nargs(void **state)
{
	struct ftfb_loader_opts o = { .uprobe_nargs = 2 };
	struct ftfb_loader *l = open_or_skip(&o);
	struct evlog log = { 0 };

	(void)state;
	attach_fn(l, (const void *)ftfb_probe_target, COOKIE, -1);
	run_calls(10, 5);
	drain_all(l, &log);
	assert_int_equal(check_calls(&log, COOKIE, 5, 2), 10);
	ftfb_loader_close(l);
	free(log.v);
}

/* With the filter on, only traced tgids' calls count: an untraced child
 * calling the same function is not seen, nor are our calls before we
 * trace ourselves. */
static void test_uprobe_filter(void **state)
{
	struct ftfb_loader_opts o = { .uprobe_nargs = 6,
				      .filter_tgids = true };
	struct ftfb_loader *l = open_or_skip(&o);
	struct evlog log = { 0 };
	int status;
	pid_t child;

	(void)state;
	attach_fn(l, (const void *)ftfb_probe_target, COOKIE, -1);
	run_calls(20, 0); /* not traced yet */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		run_calls(50, 0);
		_exit(0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(ftfb_loader_trace_tgid(l, getpid()), 0);
	run_calls(30, 1);
	drain_all(l, &log);
	assert_int_equal(check_calls(&log, COOKIE, 1, 6), 30);
	assert_int_equal(uprobe_events(&log), 60);
	ftfb_loader_close(l);
	free(log.v);
}

static void test_uprobe_errors(void **state)
{
	struct ftfb_loader_opts o = { 0 };
	struct ftfb_loader *l = open_or_skip(&o);
	uint64_t off = 0x1000, cookie = 1;
	char err[256] = "";
	int rc;

	(void)state;
	rc = ftfb_loader_attach_uprobes(l, "/nonexistent/ftfb-binary", &off,
					&cookie, 1, -1, err, sizeof(err));
	printf("missing binary: %d: %s\n", rc, err);
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/ftfb-binary"));
	ftfb_loader_close(l);

	o.ring_bytes = 12345;
	rc = ftfb_loader_open(&l, &o, err, sizeof(err));
	assert_int_equal(rc, -EINVAL);
	assert_null(l);
	assert_non_null(strstr(err, "power of 2"));
	o.ring_bytes = 0;
	o.uprobe_nargs = 7;
	rc = ftfb_loader_open(&l, &o, err, sizeof(err));
	assert_int_equal(rc, -EINVAL);
	assert_null(l);
}

/* Several ring buffers: events of both CPUs still all arrive. */
static void test_uprobe_two_rings(void **state)
{
	struct ftfb_loader_opts o = { .uprobe_nargs = 6, .nr_rings = 2,
				      .ring_bytes = 1 << 16 };
	struct ftfb_loader *l = open_or_skip(&o);
	uint64_t drops[FTFB_EV_KIND_MAX], fired[FTFB_EV_KIND_MAX];
	struct evlog log = { 0 };
	size_t nu = 0;
	int status, n;
	pid_t child;

	(void)state;
	attach_fn(l, (const void *)ftfb_probe_target, COOKIE, -1);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		run_calls(100, 0);
		_exit(0);
	}
	run_calls(100, 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	n = ftfb_loader_poll(l, 100, evlog_add, &log);
	assert_true(n >= 0);
	drain_all(l, &log);
	assert_int_equal(ftfb_loader_counters(l, drops, fired), 0);
	assert_int_equal(fired[FTFB_EV_UENTRY], 200);
	/* the uprobe events (the child's fork and exit are reported too) */
	for (size_t i = 0; i < log.n; i++) {
		uint16_t k = evlog_hdr(&log, i)->kind;

		nu += k == FTFB_EV_UENTRY || k == FTFB_EV_URET;
	}
	assert_int_equal(nu + drops[FTFB_EV_UENTRY] + drops[FTFB_EV_URET],
			 400);
	ftfb_loader_close(l);
	free(log.v);
}

/* A tiny ring and no reader: written + dropped = fired, per kind. */
static void test_drops_counted(void **state)
{
	struct ftfb_loader_opts o = { .uprobe_nargs = 6, .ring_bytes = 4096 };
	struct ftfb_loader *l = open_or_skip(&o);
	uint64_t drops[FTFB_EV_KIND_MAX], fired[FTFB_EV_KIND_MAX];
	size_t got[FTFB_EV_KIND_MAX] = { 0 };
	struct evlog log = { 0 };

	(void)state;
	attach_fn(l, (const void *)ftfb_probe_target, COOKIE, getpid());
	run_calls(200, 0);
	drain_all(l, &log);
	for (size_t i = 0; i < log.n; i++)
		got[evlog_hdr(&log, i)->kind]++;
	assert_int_equal(ftfb_loader_counters(l, drops, fired), 0);
	printf("4 KiB ring: %zu+%zu written, %llu+%llu dropped, of %llu+%llu\n",
	       got[FTFB_EV_UENTRY], got[FTFB_EV_URET],
	       (unsigned long long)drops[FTFB_EV_UENTRY],
	       (unsigned long long)drops[FTFB_EV_URET],
	       (unsigned long long)fired[FTFB_EV_UENTRY],
	       (unsigned long long)fired[FTFB_EV_URET]);
	assert_int_equal(fired[FTFB_EV_UENTRY], 200);
	assert_int_equal(fired[FTFB_EV_URET], 200);
	assert_true(drops[FTFB_EV_UENTRY] > 0);
	assert_int_equal(got[FTFB_EV_UENTRY] + drops[FTFB_EV_UENTRY], 200);
	assert_int_equal(got[FTFB_EV_URET] + drops[FTFB_EV_URET], 200);
	ftfb_loader_close(l);
	free(log.v);
}

/* The recorded stack pointers, against the one the probed function sees
 * itself, from varying stack depths (alloca), for both link kinds. */
static void check_sp(bool no_multi)
{
	struct ftfb_loader_opts o = { .uprobe_no_multi = no_multi };
	struct ftfb_loader *l = open_or_skip(&o);
	unsigned long seen[16];
	struct evlog log = { 0 };
	size_t ne = 0, nr = 0;

	attach_fn(l, (const void *)ftfb_probe_sp, COOKIE, getpid());
	for (int i = 0; i < 16; i++) {
		volatile char *pad = __builtin_alloca(16 + 64 * i);

		pad[0] = 1;
		seen[i] = sp_fn();
	}
	drain_all(l, &log);
	for (size_t i = 0; i < log.n; i++) {
		const struct ftfb_hdr *h = evlog_hdr(&log, i);

		if (h->kind == FTFB_EV_UENTRY) {
			const struct ftfb_uentry *e = (const void *)h;

			assert_true(ne < 16);
			assert_int_equal(e->sp, seen[ne]);
			ne++;
		} else if (h->kind == FTFB_EV_URET) {
			const struct ftfb_uret *r = (const void *)h;

			assert_true(nr < 16);
			assert_int_equal(r->ret, seen[nr]);
			assert_int_equal(r->sp, seen[nr] + 8);
			nr++;
		}
	}
	assert_int_equal(ne, 16);
	assert_int_equal(nr, 16);
	assert_true(seen[0] > seen[15]); /* the depths did vary */
	ftfb_loader_close(l);
	free(log.v);
}

static void test_uprobe_sp(void **state)
{
	(void)state;
	check_sp(false);
	check_sp(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uprobe_exact_calls),
		cmocka_unit_test(test_uprobe_single_links),
		cmocka_unit_test(test_uprobe_nargs),
		cmocka_unit_test(test_uprobe_filter),
		cmocka_unit_test(test_uprobe_errors),
		cmocka_unit_test(test_uprobe_two_rings),
		cmocka_unit_test(test_drops_counted),
		cmocka_unit_test(test_uprobe_sp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
