// SPDX-License-Identifier: MIT
/*
 * test_syscall_slices.c - the translator's system calls: an entry and its exit
 * -> one duration-complete record on the thread (category "syscall", the
 * kernel's name, ret, error for -4095..-1); exit, exit_group and a
 * successful execve end cleanly where they never return; rt_sigreturn
 * (whose exit the kernel reports as nr -1, the program as 15) has no
 * ret; a lost exit and the stop end a call unfinished; system calls nest
 * inside uprobe calls. Also the name table and --syscalls=LIST.
 */
#include <errno.h>

#include "tr_harness.h"
#include "syscall_names.h"

static const struct ftfb_func funcs[] = { { "work", "app" } };

static void ev_senter(struct tr *h, uint64_t ts, uint32_t tid, uint32_t nr,
		      uint32_t nargs, uint64_t arg0)
{
	struct ftfb_senter e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_SENTER, ts, 0, tid, tid);
	e.nr = nr;
	e.nargs = nargs;
	e.args[0] = arg0;
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static void ev_sexit(struct tr *h, uint64_t ts, uint32_t tid, uint32_t nr,
		     int64_t ret)
{
	struct ftfb_sexit e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_SEXIT, ts, 0, tid, tid);
	e.nr = nr;
	e.ret = ret;
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static const struct trec *call(const struct tr *h, size_t i)
{
	return tr_nth(h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE, i);
}

static int nr(const char *name)
{
	int n = ftfb_syscall_nr(name);

	assert_true(n >= 0);
	return n;
}

static void setup(struct tr *h)
{
	struct ftfb_translator_opts o = { .funcs = funcs, .nfuncs = 1 };

	tr_setup(h, &o);
	tr_add(h, 100, 100, "app", "app");
}

static void a_call_is_one_complete_record(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_senter(&h, 1000, 100, nr("getppid"), 0, 0);
	ev_sexit(&h, 1500, 100, nr("getppid"), 42);
	ev_senter(&h, 2000, 100, nr("close"), 1, 0xffffffffu);
	ev_sexit(&h, 2100, 100, nr("close"), -9);
	tr_finish(&h, 3000);
	r = call(&h, 0);
	assert_non_null(r);
	assert_string_equal(r->name, "getppid");
	assert_string_equal(r->cat, "syscall");
	assert_int_equal(r->tid, 100);
	assert_int_equal(r->ts, 1000);
	assert_int_equal(r->extra, 1500); /* the end */
	assert_int_equal(tr_arg(r, "ret")->type, FTF_ARG_INT32);
	assert_int_equal(tr_arg(r, "ret")->i64, 42);
	assert_null(tr_arg(r, "error"));
	r = call(&h, 1);
	assert_string_equal(r->name, "close");
	assert_int_equal(tr_arg(r, "arg0")->i64, 0xffffffffll);
	assert_int_equal(tr_arg(r, "ret")->i64, -9);
	assert_int_equal(tr_arg(r, "error")->type, FTF_ARG_STRING);
	assert_null(tr_arg(r, "unfinished"));
	assert_int_equal(h.t.sys_stats[nr("getppid")].calls, 1);
	assert_int_equal(h.t.sys_stats[nr("getppid")].total_ns, 500);
	tr_free(&h);
}

static void big_returns_are_int64(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_senter(&h, 1000, 100, nr("mmap"), 0, 0);
	ev_sexit(&h, 1100, 100, nr("mmap"), 0x7f0000001000ll);
	tr_finish(&h, 2000);
	r = call(&h, 0);
	assert_int_equal(tr_arg(r, "ret")->type, FTF_ARG_INT64);
	assert_int_equal(tr_arg(r, "ret")->i64, 0x7f0000001000ll);
	assert_null(tr_arg(r, "error")); /* not in -4095..-1 */
	tr_free(&h);
}

static void calls_that_never_return_end_cleanly(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	tr_add(&h, 101, 100, "worker", NULL);
	/* a thread's exit */
	ev_senter(&h, 1000, 101, nr("exit"), 0, 0);
	ev_exit(&h, 1200, 101, 100);
	/* a successful execve: its exit comes in the new image */
	ev_senter(&h, 2000, 100, nr("execve"), 0, 0);
	ev_comm(&h, FTFB_EV_EXEC, 2500, 100, 100, 100, "true");
	ev_sexit(&h, 2600, 100, nr("execve"), 0);
	/* rt_sigreturn */
	ev_senter(&h, 3000, 100, FTFB_NR_RT_SIGRETURN, 0, 0);
	ev_sexit(&h, 3100, 100, FTFB_NR_RT_SIGRETURN, 12345);
	tr_finish(&h, 4000);
	r = call(&h, 0);
	assert_string_equal(r->name, "exit");
	assert_int_equal(r->extra, 1200);
	assert_null(tr_arg(r, "ret"));
	assert_null(tr_arg(r, "unfinished"));
	r = call(&h, 1);
	assert_string_equal(r->name, "execve");
	assert_int_equal(r->extra, 2500);
	assert_int_equal(tr_arg(r, "ret")->i64, 0);
	r = call(&h, 2);
	assert_string_equal(r->name, "rt_sigreturn");
	assert_null(tr_arg(r, "ret"));
	assert_null(tr_arg(r, "unfinished"));
	assert_null(call(&h, 3));
	assert_int_equal(h.t.st.sys_unmatched, 1); /* execve's late exit */
	assert_int_equal(h.t.st.slices_closed_early, 0);
	tr_free(&h);
}

static void lost_exits_and_the_stop_end_calls_unfinished(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_senter(&h, 1000, 100, nr("read"), 0, 0);
	ev_senter(&h, 2000, 100, nr("write"), 0, 0); /* read's exit lost */
	tr_finish(&h, 3000);
	r = call(&h, 0);
	assert_string_equal(r->name, "read");
	assert_int_equal(r->extra, 2000);
	assert_true(tr_arg(r, "unfinished")->b);
	r = call(&h, 1);
	assert_string_equal(r->name, "write");
	assert_int_equal(r->extra, 3000);
	assert_true(tr_arg(r, "unfinished")->b);
	tr_free(&h);
}

static void system_calls_nest_in_function_calls(void **state)
{
	const struct trec *b, *c, *e;
	struct tr h;

	(void)state;
	setup(&h);
	ev_entry(&h, 1000, 100, 100, 0, 0, NULL);
	ev_senter(&h, 1100, 100, nr("read"), 0, 0);
	ev_sexit(&h, 1900, 100, nr("read"), 5);
	ev_ret(&h, 2000, 100, 100, 0, 0);
	tr_finish(&h, 3000);
	b = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN, 0);
	c = call(&h, 0);
	e = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END, 0);
	assert_true(b && c && e);
	assert_true(b < c && c < e); /* in this order in the file */
	assert_true(b->ts <= c->ts && c->extra <= e->ts);
	tr_free(&h);
}

static void names_and_lists(void **state)
{
	uint8_t w[FTFB_NR_SYSCALLS];
	char err[256], buf[32];

	(void)state;
	/* x86-64's numbers (arch/x86/entry/syscalls/syscall_64.tbl) */
	assert_int_equal(ftfb_syscall_nr("read"), 0);
	assert_int_equal(ftfb_syscall_nr("write"), 1);
	assert_int_equal(ftfb_syscall_nr("getppid"), 110);
	assert_int_equal(ftfb_syscall_nr("rt_sigreturn"), FTFB_NR_RT_SIGRETURN);
	assert_int_equal(ftfb_syscall_nr("exit_group"), 231);
	assert_int_equal(ftfb_syscall_nr("no_such_call"), -1);
	assert_string_equal(ftfb_syscall_name(511, buf, sizeof(buf)),
			    "syscall_511");
	assert_int_equal(ftfb_syscall_list("read,*sock*", w, err, sizeof(err)),
			 0);
	assert_int_equal(w[0], 1);
	assert_int_equal(w[1], 0);
	assert_int_equal(w[ftfb_syscall_nr("socket")], 1);
	assert_int_equal(w[ftfb_syscall_nr("getsockopt")], 1);
	assert_int_equal(ftfb_syscall_list("read,wirte", w, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no system call is named 'wirte'"));
	assert_non_null(strstr(err, "write"));
	assert_int_equal(ftfb_syscall_list("zz*", w, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "'zz*' matches no system call"));
	assert_int_equal(ftfb_syscall_list(",", w, err, sizeof(err)),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_call_is_one_complete_record),
		cmocka_unit_test(big_returns_are_int64),
		cmocka_unit_test(calls_that_never_return_end_cleanly),
		cmocka_unit_test(lost_exits_and_the_stop_end_calls_unfinished),
		cmocka_unit_test(system_calls_nest_in_function_calls),
		cmocka_unit_test(names_and_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
