// SPDX-License-Identifier: MIT
/*
 * test_call_slices.c - the translator's uprobe side: entry/return events ->
 * duration begin/end on the right thread, with args and `ret`, balanced
 * per thread whatever happens (exit, finish, skipped returns, depth cap),
 * more threads than the 255 thread refs and more function names than the
 * string ids.
 */
#include "tr_harness.h"

static const struct ftfb_func funcs[] = {
	{"work_a", "app"},
	{"work_b", "app"},
	{"malloc", "libc"},
};

enum { ANY_TS = -1 };
#define CLOSED_EARLY INT64_MIN

/* Checks the i-th duration end: named `name` (NULL: any), at `ts` (ANY_TS:
 * any), and either a return with value `ret` (no `unfinished` arg) or, for
 * CLOSED_EARLY, a slice the translator had to close (`unfinished` true, no
 * `ret`). Returns it for further checks. */
static const struct trec *check_end(const struct tr *h, size_t i,
				    const char *name, int64_t ts, int64_t ret)
{
	const struct trec *e =
		tr_nth(h, FTF_REC_EVENT, FTF_EVENT_DURATION_END, i);

	assert_non_null(e);
	if (name)
		assert_string_equal(e->name, name);
	if (ts != ANY_TS)
		assert_int_equal(e->ts, ts);
	if (ret == CLOSED_EARLY) {
		assert_non_null(tr_arg(e, "unfinished"));
		assert_true(tr_arg(e, "unfinished")->b);
		assert_null(tr_arg(e, "ret"));
	} else {
		assert_non_null(tr_arg(e, "ret"));
		assert_int_equal(tr_arg(e, "ret")->i64, ret);
		assert_null(tr_arg(e, "unfinished"));
	}
	return e;
}

/* Per tid: begins minus ends never below 0 and 0 at the end. */
static void check_balanced(const struct tr *h)
{
	enum { MAXT = 70000 };
	int *depth = calloc(MAXT, sizeof(int));

	assert_non_null(depth);
	for (size_t i = 0; i < h->nrecs; i++) {
		const struct trec *r = &h->recs[i];

		if (r->type != FTF_REC_EVENT || r->tid >= MAXT)
			continue;
		if (r->sub == FTF_EVENT_DURATION_BEGIN)
			depth[r->tid]++;
		if (r->sub == FTF_EVENT_DURATION_END && --depth[r->tid] < 0)
			fail_msg("tid %llu: end without begin (record %zu)",
				 (unsigned long long)r->tid, i);
	}
	for (size_t t = 0; t < MAXT; t++)
		if (depth[t])
			fail_msg("tid %zu: %d slices left open", t, depth[t]);
	free(depth);
}

static void entry_and_return_become_a_slice(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	const uint64_t args[6] = {1, (uint64_t)-2, 3, 4, 5, 6};
	const struct trec *b, *e;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	tr_add(&h, 101, 100, "worker", NULL);
	ev_entry(&h, 1000, 101, 100, 2, 6, args);
	ev_ret(&h, 1500, 101, 100, 2, 0xdead);
	ev_entry(&h, 2000, 100, 100, 0, 0, NULL);
	ev_ret(&h, 2100, 100, 100, 0, (uint64_t)-1);
	tr_finish(&h, 3000);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN),
			 2);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 2);
	b = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN, 0);
	e = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END, 0);
	assert_string_equal(b->name, "malloc");
	assert_string_equal(b->cat, "libc");
	assert_int_equal(b->pid, 100);
	assert_int_equal(b->tid, 101);
	assert_int_equal(b->ts, 1000);
	assert_int_equal(b->nargs, 6);
	for (int i = 0; i < 6; i++) {
		char n[16];

		snprintf(n, sizeof(n), "arg%d", i);
		assert_string_equal(b->args[i].name, n);
		assert_int_equal(b->args[i].type, FTF_ARG_INT64);
		assert_int_equal(b->args[i].i64, (int64_t)args[i]);
	}
	assert_string_equal(e->name, "malloc");
	assert_int_equal(e->tid, 101);
	assert_int_equal(e->ts, 1500);
	assert_int_equal(e->nargs, 1);
	assert_string_equal(e->args[0].name, "ret");
	assert_int_equal(e->args[0].i64, 0xdead);

	b = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN, 1);
	e = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END, 1);
	assert_string_equal(b->name, "work_a");
	assert_int_equal(b->nargs, 0);
	assert_int_equal(b->tid, 100);
	assert_int_equal(tr_arg(e, "ret")->i64, -1);
	/* summary figures */
	assert_int_equal(h.t.fstats[2].calls, 1);
	assert_int_equal(h.t.fstats[2].total_ns, 500);
	assert_int_equal(h.t.fstats[0].total_ns, 100);
	tr_free(&h);
}

static void exit_and_finish_close_open_slices(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	const struct trec *e;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	tr_add(&h, 101, 100, "a", NULL);
	tr_add(&h, 102, 100, "b", NULL);
	ev_entry(&h, 10, 101, 100, 0, 0, NULL);
	ev_entry(&h, 11, 101, 100, 1, 0, NULL);
	ev_entry(&h, 12, 102, 100, 2, 0, NULL);
	ev_exit(&h, 50, 101, 100);
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 3);
	/* 101 at its exit, innermost first */
	e = check_end(&h, 0, "work_b", 50, CLOSED_EARLY);
	assert_int_equal(e->tid, 101);
	e = check_end(&h, 1, "work_a", ANY_TS, CLOSED_EARLY);
	assert_int_equal(e->tid, 101);
	/* 102 at the end of the trace */
	e = check_end(&h, 2, NULL, 90, CLOSED_EARLY);
	assert_int_equal(e->tid, 102);
	assert_int_equal(h.t.st.slices_closed_early, 3);
	check_balanced(&h);
	tr_free(&h);
}

/* longjmp/exception: returns of inner calls never come; the outer
 * return closes them first. */
static void skipped_returns_are_closed(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	ev_entry(&h, 10, 100, 100, 0, 0, NULL); /* work_a */
	ev_entry(&h, 11, 100, 100, 1, 0, NULL); /* work_b */
	ev_entry(&h, 12, 100, 100, 2, 0, NULL); /* malloc */
	ev_ret(&h, 20, 100, 100, 0, 7);		/* work_a returns */
	ev_ret(&h, 21, 100, 100, 1, 8);		/* nothing open: dropped */
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 3);
	check_end(&h, 0, "malloc", 20, CLOSED_EARLY);
	check_end(&h, 1, "work_b", ANY_TS, CLOSED_EARLY);
	check_end(&h, 2, "work_a", ANY_TS, 7);
	assert_int_equal(h.t.st.unmatched_returns, 1);
	check_balanced(&h);
	tr_free(&h);
}

static void depth_cap_keeps_slices_balanced(void **state)
{
	struct ftfb_translator_opts o = {
		.funcs = funcs, .nfuncs = 3, .max_depth = 4};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	/* fib-like recursion 7 deep, then 7 returns (innermost ret 0) */
	for (int i = 0; i < 7; i++)
		ev_entry(&h, 10 + i, 100, 100, 0, 0, NULL);
	for (int i = 0; i < 7; i++)
		ev_ret(&h, 30 + i, 100, 100, 0, (uint64_t)i);
	/* after the cap, the thread traces normally again */
	ev_entry(&h, 50, 100, 100, 1, 0, NULL);
	ev_ret(&h, 51, 100, 100, 1, 99);
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN),
			 5);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 5);
	assert_int_equal(h.t.st.depth_capped, 3);
	/* the 3 innermost returns (ret 0,1,2) belong to the capped calls;
	 * the first written end is the 4th-deepest call's, ret 3 */
	check_end(&h, 0, NULL, 33, 3);
	check_end(&h, 3, NULL, ANY_TS, 6);
	check_end(&h, 4, "work_b", ANY_TS, 99);
	assert_int_equal(h.t.fstats[0].calls, 7);
	check_balanced(&h);
	tr_free(&h);
}

/* 600 threads in 3 processes, all inside a call at once, then all
 * returning in reverse order: the 255 thread refs are reassigned over and
 * over; every begin and end must land on its own pid/tid (arg0 = tid). */
static void thread_slots_reused_beyond_255(void **state)
{
	enum { N = 600 };
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	static uint8_t begun[N], ended[N];
	size_t nthread_recs = 0;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	for (uint32_t p = 0; p < 3; p++)
		tr_add(&h, 5000 + p, 5000 + p, "proc", NULL);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t a = 6000 + i;

		ev_entry(&h, 100 + i, 6000 + i, 5000 + i % 3, i % 3, 1, &a);
	}
	for (uint32_t i = N; i-- > 0;)
		ev_ret(&h, 10000 + i, 6000 + i, 5000 + i % 3, i % 3, i);
	tr_finish(&h, 20000);

	memset(begun, 0, sizeof(begun));
	memset(ended, 0, sizeof(ended));
	for (size_t i = 0; i < h.nrecs; i++) {
		const struct trec *r = &h.recs[i];
		uint32_t k;

		if (r->type == FTF_REC_THREAD)
			nthread_recs++;
		if (r->type != FTF_REC_EVENT)
			continue;
		assert_in_range(r->tid, 6000, 6000 + N - 1);
		k = (uint32_t)(r->tid - 6000);
		assert_int_equal(r->pid, 5000 + k % 3);
		assert_string_equal(r->name, funcs[k % 3].name);
		if (r->sub == FTF_EVENT_DURATION_BEGIN) {
			assert_int_equal(r->ts, 100 + k);
			assert_int_equal(tr_arg(r, "arg0")->i64, 6000 + k);
			begun[k]++;
		} else if (r->sub == FTF_EVENT_DURATION_END) {
			assert_int_equal(r->ts, 10000 + k);
			assert_int_equal(tr_arg(r, "ret")->i64, k);
			ended[k]++;
		}
	}
	for (int k = 0; k < N; k++) {
		assert_int_equal(begun[k], 1);
		assert_int_equal(ended[k], 1);
	}
	/* each thread needed a ref twice (slots were recycled in between) */
	assert_true(nthread_recs >= 2 * N - 255);
	assert_int_equal(h.t.st.slices_closed_early, 0);
	tr_free(&h);
}

/* 40,000 distinct function names (more than the string ids): each slice
 * still has its own name and category. */
static void more_function_names_than_string_ids(void **state)
{
	enum { N = 40000 };
	struct ftfb_func *many = calloc(N, sizeof(*many));
	char(*names)[16] = calloc(N, 16);
	struct ftfb_translator_opts o = {0};
	size_t checked = 0;
	struct tr h;

	(void)state;
	assert_non_null(many);
	assert_non_null(names);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], 16, "fn_%05d", i);
		many[i].name = names[i];
		many[i].category = "bin";
	}
	o.funcs = many;
	o.nfuncs = N;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	for (uint32_t i = 0; i < N; i++) {
		ev_entry(&h, 10 + 2 * i, 100, 100, i, 0, NULL);
		ev_ret(&h, 11 + 2 * i, 100, 100, i, i);
	}
	/* the first functions again: interned ids still valid */
	ev_entry(&h, 1000000, 100, 100, 0, 0, NULL);
	ev_ret(&h, 1000001, 100, 100, 0, 0);
	tr_finish(&h, 2000000);
	assert_true(h.t.st.temp_strings > 0);
	for (size_t i = 0; i < h.nrecs; i++) {
		const struct trec *r = &h.recs[i];
		char want[16];
		uint64_t k;

		if (r->type != FTF_REC_EVENT ||
		    (r->sub != FTF_EVENT_DURATION_BEGIN &&
		     r->sub != FTF_EVENT_DURATION_END))
			continue;
		k = r->ts >= 1000000 ? 0 : (r->ts - 10) / 2;
		snprintf(want, sizeof(want), "fn_%05u", (unsigned)k);
		assert_string_equal(r->name, want);
		assert_string_equal(r->cat, "bin");
		checked++;
	}
	assert_int_equal(checked, 2 * N + 2);
	check_balanced(&h);
	tr_free(&h);
	free(many);
	free(names);
}

static void top_functions_by_count_and_time(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	size_t top[10];
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	for (int i = 0; i < 3; i++) { /* work_a: 3 calls of 10 ns */
		ev_entry(&h, 100 * i, 100, 100, 0, 0, NULL);
		ev_ret(&h, 100 * i + 10, 100, 100, 0, 0);
	}
	ev_entry(&h, 1000, 100, 100, 2, 0, NULL); /* malloc: 1 call, 500 ns */
	ev_ret(&h, 1500, 100, 100, 2, 0);
	assert_int_equal(ftfb_translator_top(&h.t, false, top, 10), 2);
	assert_int_equal(top[0], 0);
	assert_int_equal(top[1], 2);
	assert_int_equal(ftfb_translator_top(&h.t, true, top, 10), 2);
	assert_int_equal(top[0], 2);
	assert_int_equal(top[1], 0);
	assert_int_equal(ftfb_translator_top(&h.t, true, top, 1), 1);
	tr_finish(&h, 2000);
	tr_free(&h);
}

/* Thousands of short-lived threads (fork, call, exit), with tids reused:
 * slices stay on the right thread and the table does not keep them all. */
static void thread_churn_with_tid_reuse(void **state)
{
	enum { N = 6000, TIDS = 5000 };
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	size_t begins = 0;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t tid = 1000 + i % TIDS;
		uint64_t ts = 10 * (uint64_t)i;

		ev_fork(&h, ts, 100, 100, tid, 100, "w");
		ev_entry(&h, ts + 1, tid, 100, 0, 1, (const uint64_t[]){i});
		if (i % 2)
			ev_ret(&h, ts + 2, tid, 100, 0, i);
		ev_exit(&h, ts + 3, tid, 100);
	}
	tr_finish(&h, 10 * N + 10);
	for (size_t i = 0; i < h.nrecs; i++) {
		const struct trec *r = &h.recs[i];

		if (r->type != FTF_REC_EVENT)
			continue;
		/* the call of iteration k lands on 1000 + k % TIDS, pid 100 */
		assert_int_equal(r->pid, 100);
		assert_int_equal(r->tid, 1000 + (r->ts / 10) % TIDS);
		if (r->sub == FTF_EVENT_DURATION_BEGIN) {
			assert_int_equal(tr_arg(r, "arg0")->i64, r->ts / 10);
			begins++;
		}
	}
	assert_int_equal(begins, N);
	assert_int_equal(h.t.st.slices_closed_early, N / 2);
	check_balanced(&h);
	/* 5001 tids seen, but the table keeps the live one and at most
	 * FTFB_PT_ZOMBIES exited ones */
	assert_true(h.t.pt.count <= 1 + FTFB_PT_ZOMBIES);
	tr_free(&h);
}

/* A tid reused without an exit seen (the exit event was lost): the old
 * thread's open calls end when the new thread is born. */
static void reused_tid_closes_old_slices(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	const struct trec *e;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	tr_add(&h, 900, 100, "old", NULL);
	ev_entry(&h, 10, 900, 100, 0, 0, NULL);
	ev_fork(&h, 20, 100, 100, 900, 900, "new");
	ev_entry(&h, 30, 900, 900, 1, 0, NULL);
	ev_ret(&h, 31, 900, 900, 1, 5);
	tr_finish(&h, 90);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 2);
	e = check_end(&h, 0, NULL, 20, CLOSED_EARLY);
	assert_int_equal(e->pid, 100);
	e = check_end(&h, 1, NULL, ANY_TS, 5);
	assert_int_equal(e->pid, 900); /* the new process */
	check_balanced(&h);
	tr_free(&h);
}

/* ---- stack-pointer unwinding (entry sp S, return sp S + 8) ---- */

/* Largest number of slices open at once on tid (begins minus ends). */
static int max_open(const struct tr *h, uint64_t tid)
{
	int d = 0, m = 0;

	for (size_t i = 0; i < h->nrecs; i++) {
		const struct trec *r = &h->recs[i];

		if (r->type != FTF_REC_EVENT || r->tid != tid)
			continue;
		if (r->sub == FTF_EVENT_DURATION_BEGIN && ++d > m)
			m = d;
		if (r->sub == FTF_EVENT_DURATION_END)
			d--;
	}
	return m;
}

static size_t count_unfinished(const struct tr *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nrecs; i++) {
		const struct trec *r = &h->recs[i];
		const struct targ *a;

		if (r->type != FTF_REC_EVENT ||
		    r->sub != FTF_EVENT_DURATION_END)
			continue;
		a = tr_arg(r, "unfinished");
		n += a && a->b;
	}
	return n;
}

/* work_a (sp 0x8000) sets a jump buffer and, 5 times, calls work_b (sp
 * 0x7f00) which calls malloc (sp 0x7e00) which longjmps back into
 * work_a; then work_b returns normally, then work_a. Each new work_b call
 * at 0x7f00 shows the previous work_b and malloc frames are dead. */
static void sp_longjmp_closes_abandoned_frames(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	ev_entry_sp(&h, 10, 100, 0, 0x8000);
	for (int i = 0; i < 5; i++) {
		ev_entry_sp(&h, 20 + 10 * i, 100, 1, 0x7f00);
		ev_entry_sp(&h, 21 + 10 * i, 100, 2, 0x7e00);
	}
	ev_entry_sp(&h, 70, 100, 1, 0x7f00);
	ev_ret_sp(&h, 81, 100, 1, 5, 0x7f08);
	ev_ret_sp(&h, 82, 100, 0, 6, 0x8008);
	tr_finish(&h, 90);

	/* 1 + 5 * 2 + 1 calls, all ended; the 10 abandoned ones unfinished
	 * at the time of the next work_b call */
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN),
			 12);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 12);
	assert_int_equal(count_unfinished(&h), 10);
	assert_int_equal(h.t.st.slices_closed_early, 10);
	assert_int_equal(h.t.st.unmatched_returns, 0);
	assert_int_equal(max_open(&h, 100), 3);
	for (int i = 0; i < 5; i++) {
		check_end(&h, 2 * i, "malloc", 30 + 10 * i, CLOSED_EARLY);
		check_end(&h, 2 * i + 1, "work_b", 30 + 10 * i,
			  CLOSED_EARLY);
	}
	check_end(&h, 10, "work_b", ANY_TS, 5);
	check_end(&h, 11, "work_a", 82, 6);
	check_balanced(&h);
	tr_free(&h);
}

/* A call whose return never came (not hijacked): the next call at the
 * same sp, a sibling, ends it. */
static void sp_lost_return_closed_by_sibling(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	ev_entry_sp(&h, 10, 100, 0, 0x8000);
	ev_entry_sp(&h, 11, 100, 2, 0x7f00); /* its return is lost */
	ev_entry_sp(&h, 15, 100, 2, 0x7f00);
	ev_ret_sp(&h, 16, 100, 2, 42, 0x7f08);
	ev_ret_sp(&h, 17, 100, 0, 1, 0x8008);
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 3);
	check_end(&h, 0, "malloc", 15, CLOSED_EARLY);
	check_end(&h, 1, "malloc", 16, 42);
	check_end(&h, 2, "work_a", ANY_TS, 1);
	assert_int_equal(h.t.st.slices_closed_early, 1);
	assert_int_equal(h.t.st.unmatched_returns, 0);
	check_balanced(&h);
	tr_free(&h);
}

/* A return at sp R ends the call entered at R - 8 and the calls above it
 * (unfinished); sp beats the cookie; a return above every open call is
 * unmatched. */
static void sp_return_skips_frames(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	ev_entry_sp(&h, 10, 100, 0, 0x8000);
	ev_entry_sp(&h, 11, 100, 1, 0x7f00);
	ev_entry_sp(&h, 12, 100, 2, 0x7e00);
	ev_ret_sp(&h, 20, 100, 0, 3, 0x8008);
	/* same sp, other cookie: still that call's end */
	ev_entry_sp(&h, 30, 100, 1, 0x8000);
	ev_ret_sp(&h, 31, 100, 2, 4, 0x8008);
	ev_ret_sp(&h, 40, 100, 0, 5, 0x9008); /* nothing open */
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 4);
	check_end(&h, 0, "malloc", 20, CLOSED_EARLY);
	check_end(&h, 1, "work_b", ANY_TS, CLOSED_EARLY);
	check_end(&h, 2, "work_a", ANY_TS, 3);
	check_end(&h, 3, "work_b", ANY_TS, 4); /* the frame's name */
	assert_int_equal(h.t.st.sp_cookie_mismatch, 1);
	assert_int_equal(h.t.st.unmatched_returns, 1);
	assert_int_equal(h.t.st.slices_closed_early, 2);
	check_balanced(&h);
	tr_free(&h);
}

/* Tail call: work_a (sp 0x8000) jumps to work_b, entered at the same sp.
 * work_a is ended (unfinished) at work_b's entry; the kernel then reports
 * both returns at sp 0x8008 (chained uretprobes): work_b's ends work_b,
 * work_a's finds no call left and is counted as a tail return. */
static void sp_tail_call(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	ev_entry_sp(&h, 10, 100, 0, 0x8000);
	ev_entry_sp(&h, 12, 100, 1, 0x8000);
	ev_ret_sp(&h, 20, 100, 1, 9, 0x8008);
	ev_ret_sp(&h, 20, 100, 0, 9, 0x8008);
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 2);
	check_end(&h, 0, "work_a", 12, CLOSED_EARLY);
	check_end(&h, 1, "work_b", ANY_TS, 9);
	assert_int_equal(h.t.st.tail_returns, 1);
	assert_int_equal(h.t.st.unmatched_returns, 0);
	assert_int_equal(max_open(&h, 100), 1);
	check_balanced(&h);
	tr_free(&h);
}

/* Recursion 10 deep, sp decreasing by 0x40 per level: every return ends
 * its own call, innermost first, none unfinished. */
static void sp_recursion_balanced(void **state)
{
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 3};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	for (int i = 0; i < 10; i++)
		ev_entry_sp(&h, 10 + i, 100, 0, 0x8000 - 0x40 * i);
	for (int i = 9; i >= 0; i--)
		ev_ret_sp(&h, 40 - i, 100, 0, (uint64_t)i,
			  0x8000 - 0x40 * i + 8);
	tr_finish(&h, 90);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 10);
	for (int n = 0; n < 10; n++) {
		check_end(&h, n, NULL, 31 + n, 9 - n);
	}
	assert_int_equal(count_unfinished(&h), 0);
	assert_int_equal(h.t.st.unmatched_returns, 0);
	assert_int_equal(max_open(&h, 100), 10);
	check_balanced(&h);
	tr_free(&h);
}

/* Depth cap 4 with sp: 7 nested calls (3 capped); the 3 capped ones
 * longjmp back to level 4, which calls again (capped, at the outermost
 * capped call's sp) and returns; then the 4 written calls return. The
 * cap region ends by address, not by a count the lost returns broke. */
static void sp_depth_cap_recovers_after_longjmp(void **state)
{
	struct ftfb_translator_opts o = {
		.funcs = funcs, .nfuncs = 3, .max_depth = 4};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	for (int i = 0; i < 7; i++)
		ev_entry_sp(&h, 10 + i, 100, 0, 0x8000 - 0x40 * i);
	ev_entry_sp(&h, 20, 100, 2, 0x8000 - 0x40 * 4);
	ev_ret_sp(&h, 21, 100, 2, 0, 0x8000 - 0x40 * 4 + 8);
	for (int i = 3; i >= 0; i--)
		ev_ret_sp(&h, 30 - i, 100, 0, (uint64_t)i,
			  0x8000 - 0x40 * i + 8);
	/* traced normally afterwards */
	ev_entry_sp(&h, 40, 100, 1, 0x8000);
	ev_ret_sp(&h, 41, 100, 1, 77, 0x8008);
	tr_finish(&h, 90);

	assert_int_equal(h.t.st.depth_capped, 4);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 5);
	for (int n = 0; n < 4; n++) {
		check_end(&h, n, NULL, ANY_TS, 3 - n);
	}
	check_end(&h, 4, "work_b", ANY_TS, 77);
	assert_int_equal(count_unfinished(&h), 0);
	assert_int_equal(h.t.st.unmatched_returns, 0);
	check_balanced(&h);
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entry_and_return_become_a_slice),
		cmocka_unit_test(exit_and_finish_close_open_slices),
		cmocka_unit_test(skipped_returns_are_closed),
		cmocka_unit_test(depth_cap_keeps_slices_balanced),
		cmocka_unit_test(thread_slots_reused_beyond_255),
		cmocka_unit_test(more_function_names_than_string_ids),
		cmocka_unit_test(top_functions_by_count_and_time),
		cmocka_unit_test(thread_churn_with_tid_reuse),
		cmocka_unit_test(reused_tid_closes_old_slices),
		cmocka_unit_test(sp_longjmp_closes_abandoned_frames),
		cmocka_unit_test(sp_lost_return_closed_by_sibling),
		cmocka_unit_test(sp_return_skips_frames),
		cmocka_unit_test(sp_tail_call),
		cmocka_unit_test(sp_recursion_balanced),
		cmocka_unit_test(sp_depth_cap_recovers_after_longjmp),
	};

	return cmocka_run_group_tests_name("slices", tests, NULL, NULL);
}
