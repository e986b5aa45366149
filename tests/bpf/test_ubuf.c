// SPDX-License-Identifier: MIT
/*
 * tests/bpf/test_ubuf.c - the buffering of uprobe events, for real
 * (root): the uprobe programs keep events in per-cpu buffers that reach
 * the ring when full, at context switches, exec, exit, and at stop. These
 * tests check that no event is lost or reordered on the way: a thread's
 * calls arrive before its exit, calls still buffered when the tracer
 * stops arrive through ftfb_loader_drain(), and a thread's calls and
 * switches come out in time order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common.h"
#include "offset.h"

#define COOKIE 11

__attribute__((noinline, used)) long ftfb_ubuf_target(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return 3 * a - b;
}

static long (*volatile target_fn)(long, long) = ftfb_ubuf_target;
static volatile long sink;

static void attach_target_in(struct ftfb_loader *l, pid_t pid)
{
	char path[4096], err[256] = "";
	uint64_t off, cookie = COOKIE;
	int rc;

	assert_int_equal(file_offset_of((const void *)ftfb_ubuf_target, path,
					sizeof(path), &off),
			 0);
	rc = ftfb_loader_attach_uprobes(l, path, &off, &cookie, 1, pid, err,
					sizeof(err));
	if (rc)
		fprintf(stderr, "attach: %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	ftfb_loader_arm_uprobes(l, true);
}

static void attach_target(struct ftfb_loader *l)
{
	attach_target_in(l, getpid());
}

static void drain_all(struct ftfb_loader *l, struct evlog *log)
{
	int n;

	do {
		n = ftfb_loader_drain(l, evlog_add, log);
		assert_true(n >= 0);
	} while (n > 0);
}

/* Checks the events of thread tid in log order: its calls (entry then
 * return, arguments (base + i, i) and return values as computed here),
 * timestamps never going back across calls, switches and exit, and no
 * call after its exit. Returns the number of calls; *switches
 * and *exit_at (log index of its exit, or -1) if asked. */
static size_t check_thread(const struct evlog *log, uint32_t tid, long base,
			   size_t *switches, long *exit_at)
{
	size_t entries = 0, rets = 0, sw = 0;
	uint64_t last_ts = 0;
	long ex = -1;

	for (size_t i = 0; i < log->n; i++) {
		const struct ftfb_hdr *h = evlog_hdr(log, i);

		if (h->tid != tid)
			continue;
		if (h->kind == FTFB_EV_UENTRY) {
			const struct ftfb_uentry *e = (const void *)h;

			assert_int_equal(e->cookie, COOKIE);
			assert_int_equal(log->v[i].size, sizeof(*e));
			assert_int_equal((long)e->args[0],
					 base + (long)entries);
			assert_int_equal((long)e->args[1], (long)entries);
			assert_int_equal(entries, rets);
			entries++;
		} else if (h->kind == FTFB_EV_URET) {
			const struct ftfb_uret *r = (const void *)h;
			long k = rets;

			assert_int_equal(r->cookie, COOKIE);
			assert_int_equal(log->v[i].size, sizeof(*r));
			assert_int_equal((long)r->ret, 3 * (base + k) - k);
			rets++;
			assert_int_equal(entries, rets);
		} else if (h->kind == FTFB_EV_SWITCH) {
			sw++;
		} else if (h->kind == FTFB_EV_EXIT) {
			ex = (long)i;
		} else {
			continue;
		}
		if (h->ts < last_ts)
			fail_msg("tid %u: event %zu (kind %u) at %llu after "
				 "one at %llu",
				 tid, i, h->kind, (unsigned long long)h->ts,
				 (unsigned long long)last_ts);
		last_ts = h->ts;
		/* (its last switch, to die, comes after its exit) */
		if (ex >= 0 && (long)i > ex && h->kind != FTFB_EV_SWITCH)
			fail_msg("tid %u: event %zu (kind %u) after its exit "
				 "(%ld)",
				 tid, i, h->kind, ex);
	}
	assert_int_equal(entries, rets);
	if (switches)
		*switches = sw;
	if (exit_at)
		*exit_at = ex;
	return entries;
}

struct worker {
	long base;
	int calls;
	int sleep_us; /* between calls; 0: none */
	pid_t tid;
	long nsw; /* its context switches while calling, by getrusage */
};

static void *calls_then_exit(void *arg)
{
	struct worker *w = arg;
	struct rusage r0, r1;

	w->tid = gettid();
	getrusage(RUSAGE_THREAD, &r0);
	for (int i = 0; i < w->calls; i++) {
		sink = target_fn(w->base + i, i);
		if (w->sleep_us)
			usleep(w->sleep_us);
	}
	getrusage(RUSAGE_THREAD, &r1);
	w->nsw = (r1.ru_nvcsw - r0.ru_nvcsw) + (r1.ru_nivcsw - r0.ru_nivcsw);
	return NULL;
}

/* A thread calls the function a few times (far fewer than a buffer
 * holds) and exits at once: all its calls arrive, before its exit. */
static void test_exit_flushes_tail(void **state)
{
	struct ftfb_loader_opts o = {
		.sched = true, .filter_tgids = true, .uprobe_nargs = 2};
	struct ftfb_loader *l = open_or_skip(&o);
	struct worker w[3] = {{.base = 1000, .calls = 7},
			      {.base = 2000, .calls = 1},
			      {.base = 3000, .calls = 25}};
	struct evlog log = {0};
	pthread_t th;

	(void)state;
	assert_int_equal(ftfb_loader_trace_tgid(l, getpid()), 0);
	attach_target(l);
	for (int t = 0; t < 3; t++) {
		assert_int_equal(
			pthread_create(&th, NULL, calls_then_exit, &w[t]), 0);
		assert_int_equal(pthread_join(th, NULL), 0);
	}
	drain_all(l, &log);
	for (int t = 0; t < 3; t++) {
		long ex;
		size_t n = check_thread(&log, w[t].tid, w[t].base, NULL, &ex);

		printf("thread %d: %zu calls, exit at event %ld of %zu\n",
		       w[t].tid, n, ex, log.n);
		assert_int_equal(n, w[t].calls);
		assert_true(ex >= 0);
	}
	ftfb_loader_close(l);
	free(log.v);
}

struct spinner {
	int calls;
	volatile int stop;
	volatile int done_calls;
	pid_t tid;
};

static void *calls_then_spin(void *arg)
{
	struct spinner *s = arg;

	s->tid = gettid();
	for (int i = 0; i < s->calls; i++)
		sink = target_fn(5000 + i, i);
	s->done_calls = 1;
	while (!s->stop)
		__asm__ volatile("" ::: "memory");
	return NULL;
}

/* A thread calls the function and then spins without a context switch
 * (SCHED_FIFO on its own cpu where allowed) while the tracer stops: its
 * calls are still in its cpu's buffer, and ftfb_loader_drain() delivers
 * them, in order. */
static void test_stop_delivers_buffered(void **state)
{
	struct ftfb_loader_opts o = {.uprobe_nargs = 2};
	struct ftfb_loader *l = open_or_skip(&o);
	struct spinner s = {.calls = 20};
	struct sched_param sp = {.sched_priority = 50};
	struct evlog before = {0}, log = {0};
	size_t nu = 0;
	pthread_attr_t attr;
	cpu_set_t cpus;
	size_t n;
	pthread_t th;
	int rt;

	(void)state;
	attach_target(l);
	pthread_attr_init(&attr);
	rt = sysconf(_SC_NPROCESSORS_ONLN) > 1;
	if (rt) {
		/* the last cpu, real-time: nothing preempts it there */
		CPU_ZERO(&cpus);
		CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		pthread_attr_setschedparam(&attr, &sp);
		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
	}
	if (pthread_create(&th, &attr, calls_then_spin, &s)) {
		rt = 0;
		assert_int_equal(pthread_create(&th, NULL, calls_then_spin, &s),
				 0);
	}
	while (!s.done_calls)
		usleep(1000);
	/* What reached the ring so far (nothing, unless the spinner was
	 * switched out after its calls). */
	assert_true(ftfb_loader_poll(l, 0, evlog_add, &before) >= 0);
	drain_all(l, &log);
	s.stop = 1;
	assert_int_equal(pthread_join(th, NULL), 0);
	CPU_ZERO(&cpus);
	for (int c = 0; c < sysconf(_SC_NPROCESSORS_ONLN); c++)
		CPU_SET(c, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	pthread_attr_destroy(&attr);

	printf("spinner%s: %zu events in the ring before stop, %zu at stop\n",
	       rt ? " (SCHED_FIFO, own cpu)" : "", before.n, log.n);
	/* the events in the order they came: ring first, then the stop */
	for (size_t i = 0; i < log.n; i++)
		evlog_add(&before, log.v[i].b, log.v[i].size);
	n = check_thread(&before, s.tid, 5000, NULL, NULL);
	assert_int_equal(n, s.calls);
	/* its uprobe events only (the thread's creation is reported too) */
	for (size_t i = 0; i < before.n; i++) {
		uint16_t k = evlog_hdr(&before, i)->kind;

		nu += k == FTFB_EV_UENTRY || k == FTFB_EV_URET;
	}
	assert_int_equal(nu, 2 * s.calls);
	if (rt) {
		/* Nothing switched it out after its first call (which may
		 * sleep, setting up the process's uprobe trampoline): the
		 * tail came at the stop, the last call last. */
		const struct ftfb_hdr *h = evlog_hdr(&log, log.n - 1);

		assert_true(log.n >= 2 * (size_t)(s.calls - 1));
		assert_int_equal(h->kind, FTFB_EV_URET);
		assert_int_equal(h->tid, s.tid);
	}
	ftfb_loader_close(l);
	free(before.v);
	free(log.v);
}

/* Two threads call the function and sleep in turns (most sleeps switch
 * them out): per thread, calls and switches come out in time order, every
 * call whole, and the calls of a thread before each of its switches. */
static void test_order_with_switches(void **state)
{
	struct ftfb_loader_opts o = {
		.sched = true, .filter_tgids = true, .uprobe_nargs = 2};
	struct ftfb_loader *l = open_or_skip(&o);
	struct worker w[2] = {{.base = 100, .calls = 300, .sleep_us = 50},
			      {.base = 900, .calls = 300, .sleep_us = 50}};
	uint64_t drops[FTFB_EV_KIND_MAX], fired[FTFB_EV_KIND_MAX];
	struct evlog log = {0};
	pthread_t th[2];

	(void)state;
	assert_int_equal(ftfb_loader_trace_tgid(l, getpid()), 0);
	attach_target(l);
	for (int t = 0; t < 2; t++)
		assert_int_equal(
			pthread_create(&th[t], NULL, calls_then_exit, &w[t]),
			0);
	for (int t = 0; t < 2; t++) {
		/* keep the ring from filling while they run */
		for (int i = 0; i < 50; i++)
			assert_true(ftfb_loader_poll(l, 5, evlog_add, &log) >=
				    0);
		assert_int_equal(pthread_join(th[t], NULL), 0);
	}
	drain_all(l, &log);
	assert_int_equal(ftfb_loader_counters(l, drops, fired), 0);
	for (int t = 0; t < 2; t++) {
		size_t sw;
		long ex;
		size_t n = check_thread(&log, w[t].tid, w[t].base, &sw, &ex);

		printf("thread %d: %zu calls, %zu switches out in the trace, "
		       "%ld while calling by getrusage, exit at %ld\n",
		       w[t].tid, n, sw, w[t].nsw, ex);
		assert_int_equal(n, w[t].calls);
		/* A sleep whose timer fires before the thread gets to
		 * schedule() (a vCPU stalled by the host) switches nothing:
		 * the thread's own count is the reference, and most sleeps
		 * must have switched for the test to mean something. */
		assert_true(sw >= (size_t)w[t].nsw);
		assert_true(w[t].nsw >= w[t].calls / 2);
		assert_true(ex >= 0);
	}
	/* every call counted once, none lost */
	assert_int_equal(drops[FTFB_EV_UENTRY] + drops[FTFB_EV_URET], 0);
	assert_int_equal(fired[FTFB_EV_UENTRY], 600);
	assert_int_equal(fired[FTFB_EV_URET], 600);
	ftfb_loader_close(l);
	free(log.v);
}

/* The exec test's new image (this program, run with EXEC_IMAGE_ARG). */
#define EXEC_IMAGE_ARG "--exec-image-calls"
#define EXEC_BASE 7000
#define EXEC_CALLS 50
#define PRE_EXEC_BASE 6000 /* the thread's calls before its exec */
#define PRE_EXEC_CALLS 20

static int exec_image_main(void)
{
	for (int i = 0; i < EXEC_CALLS; i++)
		sink = target_fn(EXEC_BASE + i, i);
	return 0;
}

static void *thread_execs(void *arg)
{
	char *argv[] = {"/proc/self/exe", EXEC_IMAGE_ARG, NULL};

	(void)arg;
	for (int i = 0; i < PRE_EXEC_CALLS; i++)
		sink = target_fn(PRE_EXEC_BASE + i, i);
	execv(argv[0], argv);
	_exit(127);
}

/* A thread that is not its process's leader calls, then execs: the kernel
 * gives it the leader's tid (de_thread). The new image's calls carry that
 * tid: the programs must not go on with the tid they remembered for the
 * thread (its registers' address stays the same). */
static void test_exec_by_thread(void **state)
{
	struct ftfb_loader_opts o = {
		.sched = true, .filter_tgids = true, .uprobe_nargs = 2};
	struct ftfb_loader *l = open_or_skip(&o);
	struct evlog log = {0};
	size_t entries = 0;
	long pre = 0;
	int go[2], st;
	pid_t child;

	(void)state;
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pthread_t th;
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1 ||
		    pthread_create(&th, NULL, thread_execs, NULL))
			_exit(2);
		for (;;)
			pause(); /* killed by the thread's exec */
	}
	close(go[0]);
	assert_int_equal(ftfb_loader_trace_tgid(l, child), 0);
	/* every process: the kernel's pid filter of a uprobe keeps the task it
	 * found (the leader, whom the exec ends) and drops the new image's
	 * calls; the tgid filter (traced_tgids) selects the child */
	attach_target_in(l, -1);
	assert_int_equal(write(go[1], "x", 1), 1);
	close(go[1]);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	drain_all(l, &log);
	/* every call, in order: the thread's own before its exec, then the
	 * new image's with the leader's tid (the old leader's exit has it
	 * too: check_thread() does not apply) */
	for (size_t i = 0; i < log.n; i++) {
		const struct ftfb_uentry *e = (const void *)evlog_hdr(&log, i);

		if (e->hdr.kind != FTFB_EV_UENTRY)
			continue;
		assert_int_equal(e->hdr.tgid, child);
		if (pre < PRE_EXEC_CALLS) {
			assert_int_equal((long)e->args[0], PRE_EXEC_BASE + pre);
			assert_int_not_equal(e->hdr.tid, child);
			pre++;
			continue;
		}
		assert_int_equal((long)e->args[0], EXEC_BASE + (long)entries);
		assert_int_equal(e->hdr.tid, child);
		entries++;
	}
	assert_int_equal(pre, PRE_EXEC_CALLS);
	assert_int_equal(entries, EXEC_CALLS);
	ftfb_loader_close(l);
	free(log.v);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_flushes_tail),
		cmocka_unit_test(test_stop_delivers_buffered),
		cmocka_unit_test(test_order_with_switches),
		cmocka_unit_test(test_exec_by_thread),
	};

	if (argc > 1 && strcmp(argv[1], EXEC_IMAGE_ARG) == 0)
		return exec_image_main();

	return cmocka_run_group_tests(tests, NULL, NULL);
}
