// SPDX-License-Identifier: MIT
/*
 * test_procfs.c - the /proc scan and lookup, checked against this test
 * process's own threads, whose names it sets with prctl(PR_SET_NAME).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "procfs.h"

struct named_thread {
	const char *name;
	pid_t tid;
	pthread_t th;
	int ready[2];
	int quit[2];
};

static void *thread_main(void *arg)
{
	struct named_thread *nt = arg;
	char c = 0;

	prctl(PR_SET_NAME, nt->name, 0, 0, 0);
	nt->tid = gettid();
	if (write(nt->ready[1], &c, 1) != 1)
		return NULL;
	if (read(nt->quit[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void start(struct named_thread *nt, const char *name)
{
	char c;

	nt->name = name;
	assert_int_equal(pipe(nt->ready), 0);
	assert_int_equal(pipe(nt->quit), 0);
	assert_int_equal(pthread_create(&nt->th, NULL, thread_main, nt), 0);
	assert_int_equal(read(nt->ready[0], &c, 1), 1);
}

static void stop(struct named_thread *nt)
{
	char c = 0;

	assert_int_equal(write(nt->quit[1], &c, 1), 1);
	pthread_join(nt->th, NULL);
	close(nt->ready[0]);
	close(nt->ready[1]);
	close(nt->quit[0]);
	close(nt->quit[1]);
}

struct collect {
	struct ftfb_task_info ti[64];
	size_t n;
	size_t total;
	bool self_seen;
};

static int collect_cb(void *ctx, const struct ftfb_task_info *ti)
{
	struct collect *c = ctx;

	c->total++;
	if (ti->tgid == (uint32_t)getpid()) {
		if (c->n < 64)
			c->ti[c->n++] = *ti;
		c->self_seen = true;
	}
	return 0;
}

static const struct ftfb_task_info *find(const struct collect *c, pid_t tid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->ti[i].tid == (uint32_t)tid)
			return &c->ti[i];
	return NULL;
}

static void scan_self_finds_named_threads(void **state)
{
	struct named_thread a, b;
	struct collect c;
	const struct ftfb_task_info *ti;
	char self_comm[16] = {0};

	(void)state;
	prctl(PR_GET_NAME, self_comm, 0, 0, 0);
	start(&a, "ping-thread");
	start(&b, "pong-thread");
	memset(&c, 0, sizeof(c));
	assert_int_equal(ftfb_procfs_scan_pid(getpid(), collect_cb, &c), 0);
	assert_int_equal(c.n, 3);
	/* the leader first */
	assert_int_equal(c.ti[0].tid, getpid());
	assert_string_equal(c.ti[0].comm, self_comm);
	assert_string_equal(c.ti[0].process_name, "test_procfs");
	ti = find(&c, a.tid);
	assert_non_null(ti);
	assert_string_equal(ti->comm, "ping-thread");
	assert_int_equal(ti->tgid, getpid());
	ti = find(&c, b.tid);
	assert_non_null(ti);
	assert_string_equal(ti->comm, "pong-thread");

	/* the whole system: more than us, us included */
	memset(&c, 0, sizeof(c));
	assert_int_equal(ftfb_procfs_scan(collect_cb, &c), 0);
	assert_true(c.self_seen);
	assert_true(c.total > 3);
	assert_non_null(find(&c, a.tid));
	stop(&a);
	stop(&b);
}

static void lookup_resolves_a_thread(void **state)
{
	struct named_thread a;
	struct ftfb_task_info ti;

	(void)state;
	start(&a, "looked-up");
	assert_int_equal(ftfb_procfs_lookup(NULL, (uint32_t)a.tid, &ti), 0);
	assert_int_equal(ti.tid, a.tid);
	assert_int_equal(ti.tgid, getpid());
	assert_string_equal(ti.comm, "looked-up");
	assert_string_equal(ti.process_name, "test_procfs");
	stop(&a);
	/* pid_max is at most 4194304: this tid cannot exist */
	assert_int_equal(ftfb_procfs_lookup(NULL, 4194305, &ti), -ENOENT);
	assert_int_equal(ftfb_procfs_scan_pid(4194305, collect_cb, NULL),
			 -ENOENT);
}

static void process_name_from_cmdline(void **state)
{
	static const char c1[] = "/usr/bin/python3\0script.py\0";
	static const char c2[] = "sshd: user@pts/0";
	static const char c3[] = "plain";
	char out[64];

	(void)state;
	ftfb_procfs_name_from_cmdline(c1, sizeof(c1) - 1, out, sizeof(out));
	assert_string_equal(out, "python3");
	ftfb_procfs_name_from_cmdline(c2, sizeof(c2) - 1, out, sizeof(out));
	assert_string_equal(out, "sshd: user@pts/0");
	ftfb_procfs_name_from_cmdline(c3, sizeof(c3) - 1, out, sizeof(out));
	assert_string_equal(out, "plain");
	ftfb_procfs_name_from_cmdline("", 0, out, sizeof(out));
	assert_string_equal(out, "");
	ftfb_procfs_name_from_cmdline("/a/b/", 5, out, sizeof(out));
	assert_string_equal(out, "");
	ftfb_procfs_name_from_cmdline("/x/abcdefgh", 11, out, 4);
	assert_string_equal(out, "abc");
	/* PostgreSQL's title: argv overwritten, the rest padded with NULs */
	ftfb_procfs_name_from_cmdline("postgres: 15/main: checkpointer \0\0\0",
				      35, out, sizeof(out));
	assert_string_equal(out, "postgres: 15/main: checkpointer");
}

/* A title is whatever the process wrote over its argv: an ESC sequence
 * in it would reach the trace's process name and the summary's
 * terminal. Each control byte (and each byte of invalid UTF-8) becomes
 * '?', one for one; a valid UTF-8 character stays. */
static void title_with_escape_made_safe(void **state)
{
	static const char c[] = "evil: \x1b]0;pwned\x07 \xc3\xa9t\xe9\0\0";
	char out[64];

	(void)state;
	ftfb_procfs_name_from_cmdline(c, sizeof(c) - 1, out, sizeof(out));
	assert_string_equal(out, "evil: ?]0;pwned? \xc3\xa9t?");
	assert_null(strchr(out, '\x1b'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scan_self_finds_named_threads),
		cmocka_unit_test(lookup_resolves_a_thread),
		cmocka_unit_test(process_name_from_cmdline),
		cmocka_unit_test(title_with_escape_made_safe),
	};

	return cmocka_run_group_tests_name("procfs", tests, NULL, NULL);
}
