// SPDX-License-Identifier: MIT
/*
 * test_usdt_events.c - the translator's USDT hits: an instant probe -> an instant
 * event on the thread (name, category = provider, int64 arg0.. and string
 * arguments); a START~END pair -> one duration-complete record from a
 * start to the next end of the pair on the same thread (nested pairs
 * nest; the start's args, then the end's as end_argN; custom names and
 * hidden arguments; a slice named by a string argument); an end with no
 * start writes nothing; the stop and the thread's exit end open slices
 * unfinished. Also the parsing of -u usdt:... specs.
 */
#include <errno.h>

#include "tr_harness.h"
#include "usdtspec.h"

enum {
	TICK,
	MSG,
	REQ_START,
	REQ_DONE,
	IMP_START,
	IMP_DONE,
	TXN_START,
	TXN_DONE,
	NPROBES
};

static const struct ftfb_usdt_desc probes[NPROBES] = {
	[TICK] = {.name = "tick", .category = "app", .name_arg = -1},
	[MSG] = {.name = "msg", .category = "app", .name_arg = -1},
	[REQ_START] = {.name = "req",
		       .category = "app",
		       .role = FTFB_USDT_BEGIN,
		       .pair = 0,
		       .name_arg = -1},
	[REQ_DONE] = {.name = "req__done",
		      .category = "app",
		      .role = FTFB_USDT_END,
		      .pair = 0,
		      .name_arg = -1},
	[IMP_START] = {.name = "import",
		       .category = "python",
		       .role = FTFB_USDT_BEGIN,
		       .pair = 1,
		       .name_arg = 0,
		       .arg_names = {""}},
	[IMP_DONE] = {.name = "import__done",
		      .category = "python",
		      .role = FTFB_USDT_END,
		      .pair = 1,
		      .name_arg = -1,
		      .arg_names = {"", "found"}},
	[TXN_START] = {.name = "txn",
		       .category = "db",
		       .role = FTFB_USDT_BEGIN,
		       .pair = 2,
		       .name_arg = -1},
	[TXN_DONE] = {.name = "txn__done",
		      .category = "db",
		      .role = FTFB_USDT_END,
		      .pair = 2,
		      .name_arg = -1},
};

/* A hit of probe `cookie` by thread tid of process 100 (tr_harness.h). */
static void ev_usdt(struct tr *h, uint64_t ts, uint32_t tid, uint32_t cookie,
		    int n, const int64_t *args, const char *str)
{
	ev_usdt_in(h, ts, 100, tid, cookie, n, args, str);
}

static void setup(struct tr *h)
{
	struct ftfb_translator_opts o = {.usdt = probes, .nusdt = NPROBES};

	tr_setup(h, &o);
	tr_add(h, 100, 100, "app", "app");
	tr_add(h, 101, 100, "worker", NULL);
}

static const struct trec *slice(const struct tr *h, size_t i)
{
	return tr_nth(h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE, i);
}

static void instants_carry_int_and_string_args(void **state)
{
	const int64_t a[2] = {7, -3};
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 101, TICK, 2, a, NULL);
	ev_usdt(&h, 2000, 100, MSG, 2, (const int64_t[]){0, 5}, "hello");
	tr_finish(&h, 3000);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_INSTANT), 2);
	r = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_INSTANT, 0);
	assert_string_equal(r->name, "tick");
	assert_string_equal(r->cat, "app");
	assert_int_equal(r->ts, 1000);
	assert_int_equal(r->pid, 100);
	assert_int_equal(r->tid, 101);
	assert_int_equal(r->nargs, 2);
	assert_int_equal(tr_arg(r, "arg0")->i64, 7);
	assert_int_equal(tr_arg(r, "arg1")->i64, -3);
	r = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_INSTANT, 1);
	assert_string_equal(r->name, "msg");
	assert_int_equal(tr_arg(r, "arg0")->type, FTF_ARG_STRING);
	assert_int_equal(tr_arg(r, "arg1")->i64, 5);
	assert_int_equal(h.t.st.usdt_instants, 2);
	tr_free(&h);
}

static void nested_pairs_are_nested_complete_slices(void **state)
{
	const struct trec *in, *out;
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 100, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1100, 100, REQ_START, 1, (const int64_t[]){2}, NULL);
	/* another thread's end does not end this thread's slices */
	ev_usdt(&h, 1150, 101, REQ_DONE, 2, (const int64_t[]){9, 9}, NULL);
	ev_usdt(&h, 1200, 100, REQ_DONE, 2, (const int64_t[]){2, 20}, NULL);
	ev_usdt(&h, 1500, 100, REQ_DONE, 2, (const int64_t[]){1, 10}, NULL);
	tr_finish(&h, 3000);
	assert_int_equal(
		tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 2);
	in = slice(&h, 0);
	out = slice(&h, 1);
	assert_string_equal(in->name, "req");
	assert_int_equal(in->ts, 1100);
	assert_int_equal(in->extra, 1200);
	assert_int_equal(tr_arg(in, "arg0")->i64, 2);
	assert_int_equal(tr_arg(in, "end_arg0")->i64, 2);
	assert_int_equal(tr_arg(in, "end_arg1")->i64, 20);
	assert_int_equal(out->ts, 1000);
	assert_int_equal(out->extra, 1500);
	assert_int_equal(tr_arg(out, "arg0")->i64, 1);
	assert_int_equal(tr_arg(out, "end_arg1")->i64, 10);
	assert_null(tr_arg(out, "unfinished"));
	assert_int_equal(h.t.st.usdt_unmatched, 1); /* thread 101's end */
	tr_free(&h);
}

static size_t n_async(const struct tr *h, int sub)
{
	return tr_count(h, FTF_REC_EVENT, sub);
}

/* The i-th complete slice must be `name` from ts to end on thread tid of
 * process 100. */
static const struct trec *slice_at(const struct tr *h, size_t i,
				   const char *name, uint64_t ts, uint64_t end,
				   uint64_t tid)
{
	const struct trec *r = slice(h, i);

	assert_non_null(r);
	assert_string_equal(r->name, name);
	assert_int_equal(r->ts, ts);
	assert_int_equal(r->extra, end);
	assert_int_equal(r->pid, 100);
	assert_int_equal(r->tid, tid);
	return r;
}

/* the pseudo tids of tracks, in the order they are made (FTF thread
 * koids; translate_priv.h: FTFB_PSEUDO_TRACK_TID + n) */
#define TRACK(n) (0x7d000000u + (n))

/* A transaction begun in one query and committed in the next, as
 * PostgreSQL's probes fire: the query that ends while the transaction is
 * open above it and the transaction that ends inside a later query cross
 * and go to tracks of the process, pseudo threads named like them (a
 * track's slices never overlap; one free since a slice's start is
 * reused); the query between them nests in the transaction and stays on
 * its thread. Not async events: Perfetto puts those on global tracks,
 * outside the process. */
static void crossing_pairs_go_to_tracks_nesting_ones_stay(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 100, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1100, 100, TXN_START, 1, (const int64_t[]){7}, NULL);
	ev_usdt(&h, 1200, 100, REQ_DONE, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1300, 100, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_usdt(&h, 1400, 100, REQ_DONE, 1, (const int64_t[]){2}, NULL);
	ev_usdt(&h, 1500, 100, REQ_START, 1, (const int64_t[]){3}, NULL);
	ev_usdt(&h, 1600, 100, TXN_DONE, 1, (const int64_t[]){7}, NULL);
	ev_usdt(&h, 1700, 100, REQ_DONE, 1, (const int64_t[]){3}, NULL);
	tr_finish(&h, 3000);
	assert_int_equal(
		tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 4);
	assert_int_equal(n_async(&h, FTF_EVENT_ASYNC_BEGIN), 0);
	/* written at their ENDs: query 1, query 2, the transaction, query 3 */
	r = slice_at(&h, 0, "req", 1000, 1200, TRACK(0));
	assert_int_equal(tr_arg(r, "arg0")->i64, 1);
	assert_int_equal(tr_arg(r, "end_arg0")->i64, 1);
	slice_at(&h, 1, "req", 1300, 1400, 100);
	r = slice_at(&h, 2, "txn", 1100, 1600, TRACK(1));
	assert_string_equal(r->cat, "db");
	/* the first "req" track is free again since 1200 */
	slice_at(&h, 3, "req", 1500, 1700, TRACK(0));
	assert_string_equal(tr_kobj_name(&h, 2, TRACK(0)), "req");
	assert_string_equal(tr_kobj_name(&h, 2, TRACK(1)), "txn");
	assert_int_equal(h.t.st.usdt_slices, 4);
	assert_int_equal(h.t.st.usdt_crossing, 3);
	tr_free(&h);
}

/* A pair started in one call and ended after it returned, and one started
 * before a call and ended inside it, cross the call's slice; one inside a
 * call nests. */
static void pairs_crossing_a_call_go_to_tracks(void **state)
{
	static const struct ftfb_func fn[] = {{"work", "app"}};
	struct ftfb_translator_opts o = {
		.usdt = probes, .nusdt = NPROBES, .funcs = fn, .nfuncs = 1};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	ev_entry(&h, 1000, 100, 100, 0, 0, NULL);
	ev_usdt(&h, 1100, 100, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_ret(&h, 1200, 100, 100, 0, 0);
	ev_usdt(&h, 1300, 100, REQ_DONE, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1400, 100, TXN_START, 1, (const int64_t[]){2}, NULL);
	ev_entry(&h, 1500, 100, 100, 0, 0, NULL);
	ev_usdt(&h, 1600, 100, TXN_DONE, 1, (const int64_t[]){2}, NULL);
	ev_usdt(&h, 1610, 100, REQ_START, 1, (const int64_t[]){3}, NULL);
	ev_usdt(&h, 1620, 100, REQ_DONE, 1, (const int64_t[]){3}, NULL);
	ev_ret(&h, 1700, 100, 100, 0, 0);
	tr_finish(&h, 3000);
	/* the pairs (the calls are begin/end records) */
	assert_int_equal(
		tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 3);
	assert_int_equal(n_async(&h, FTF_EVENT_ASYNC_BEGIN), 0);
	slice_at(&h, 0, "req", 1100, 1300, TRACK(0));
	slice_at(&h, 1, "txn", 1400, 1600, TRACK(1));
	slice_at(&h, 2, "req", 1610, 1620, 100); /* inside the call */
	assert_int_equal(h.t.st.usdt_crossing, 2);
	tr_free(&h);
}

static void open_slices_end_unfinished_at_exit_and_stop(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 101, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1100, 100, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_exit(&h, 1300, 101, 100);
	tr_finish(&h, 3000);
	assert_int_equal(
		tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 2);
	r = slice(&h, 0);
	assert_int_equal(r->tid, 101);
	assert_int_equal(r->extra, 1300);
	assert_true(tr_arg(r, "unfinished")->b);
	r = slice(&h, 1);
	assert_int_equal(r->tid, 100);
	assert_int_equal(r->extra, 3000);
	assert_true(tr_arg(r, "unfinished")->b);
	tr_free(&h);
}

static void a_slice_named_by_a_string_argument(void **state)
{
	const struct trec *r;
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 100, IMP_START, 1, (const int64_t[]){0}, "json");
	ev_usdt(&h, 1100, 100, IMP_START, 1, (const int64_t[]){0},
		"json.decoder");
	ev_usdt(&h, 1200, 100, IMP_DONE, 2, (const int64_t[]){0, 1},
		"json.decoder");
	ev_usdt(&h, 1300, 100, IMP_DONE, 2, (const int64_t[]){0, 1}, "json");
	tr_finish(&h, 3000);
	r = slice(&h, 0);
	assert_string_equal(r->name, "json.decoder");
	assert_string_equal(r->cat, "python");
	/* the module is the name, not an argument; found keeps its name */
	assert_int_equal(r->nargs, 1);
	assert_int_equal(tr_arg(r, "found")->i64, 1);
	r = slice(&h, 1);
	assert_string_equal(r->name, "json");
	assert_int_equal(r->ts, 1000);
	assert_int_equal(r->extra, 1300);
	tr_free(&h);
}

/* --python's imports: "import MODULE", never taken for the slice "gc" of
 * a collection when the module is gc. */
static void a_prefixed_string_name(void **state)
{
	struct ftfb_usdt_desc p[NPROBES];
	struct ftfb_translator_opts o = {.usdt = p, .nusdt = NPROBES};
	struct tr h;

	(void)state;
	memcpy(p, probes, sizeof(p));
	p[IMP_START].name_prefixed = true;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	ev_usdt(&h, 1000, 100, IMP_START, 1, (const int64_t[]){0}, "gc");
	ev_usdt(&h, 1200, 100, IMP_DONE, 2, (const int64_t[]){0, 1}, "gc");
	tr_finish(&h, 3000);
	assert_string_equal(slice(&h, 0)->name, "import gc");
	assert_int_equal(tr_arg(slice(&h, 0), "found")->i64, 1);
	tr_free(&h);
}

static void an_unknown_probe_is_skipped(void **state)
{
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 100, NPROBES, 0, NULL, NULL);
	tr_finish(&h, 3000);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, -1), 0);
	assert_int_equal(h.t.st.skipped, 1);
	tr_free(&h);
}

/* A flight-recorder snapshot: the slices open in the tracker at the
 * window's start begin there in the snapshot's translator. */
static void open_slices_are_inherited_at_a_window_start(void **state)
{
	struct tr tracker, snap;
	const struct trec *r;

	(void)state;
	setup(&tracker);
	setup(&snap);
	ev_usdt(&tracker, 1000, 100, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&tracker, 1100, 100, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_usdt(&tracker, 1200, 100, REQ_DONE, 2, (const int64_t[]){2, 0},
		NULL);
	assert_int_equal(
		ftfb_translator_usdt_inherit(&tracker.t, &snap.t, 5000), 0);
	ev_usdt(&snap, 6000, 100, REQ_DONE, 2, (const int64_t[]){1, 0}, NULL);
	tr_finish(&snap, 7000);
	assert_int_equal(
		tr_count(&snap, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 1);
	r = slice(&snap, 0);
	assert_int_equal(r->ts, 5000);
	assert_int_equal(r->extra, 6000);
	assert_int_equal(tr_arg(r, "arg0")->i64, 1);
	assert_null(tr_arg(r, "unfinished"));
	tr_finish(&tracker, 7000);
	tr_free(&tracker);
	tr_free(&snap);
}

/* A snapshot begins an import open at its window's start named by its
 * module, as the tracker saw it (the START's strings are kept, not the
 * tracker's string ids: they were dropped, and the slice named "import"). */
static void an_inherited_slice_keeps_its_string_name(void **state)
{
	struct tr tracker, snap;

	(void)state;
	setup(&tracker);
	setup(&snap);
	ev_usdt(&tracker, 1000, 100, IMP_START, 1, (const int64_t[]){0},
		"json");
	assert_int_equal(
		ftfb_translator_usdt_inherit(&tracker.t, &snap.t, 5000), 0);
	ev_usdt(&snap, 6000, 100, IMP_DONE, 2, (const int64_t[]){0, 1}, "json");
	tr_finish(&snap, 7000);
	assert_int_equal(
		tr_count(&snap, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 1);
	assert_string_equal(slice(&snap, 0)->name, "json");
	assert_int_equal(slice(&snap, 0)->ts, 5000);
	tr_finish(&tracker, 7000);
	tr_free(&tracker);
	tr_free(&snap);
}

/* Past the string table's 32,767 permanent ids, strings get temporary
 * ids that are reused after some records: a slice's name, a string of
 * its START, stays its own however many strings come before its END. */
static void a_slice_name_survives_temporary_string_ids(void **state)
{
	char name[32];
	struct tr h;

	(void)state;
	setup(&h);
	for (int i = 0; i < 33000; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ev_usdt(&h, 1000 + (uint64_t)i, 101, MSG, 1,
			(const int64_t[]){0}, name);
	}
	ev_usdt(&h, 40000, 100, IMP_START, 1, (const int64_t[]){0}, "modA");
	for (int i = 0; i < 150; i++) {
		snprintf(name, sizeof(name), "more%d", i);
		ev_usdt(&h, 40001 + (uint64_t)i, 101, MSG, 1,
			(const int64_t[]){0}, name);
	}
	ev_usdt(&h, 50000, 100, IMP_DONE, 2, (const int64_t[]){0, 1}, "modA");
	tr_finish(&h, 60000);
	assert_int_equal(
		tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 1);
	assert_string_equal(slice(&h, 0)->name, "modA");
	tr_free(&h);
}

static void specs_parse(void **state)
{
	struct ftfb_usdt_spec s;
	char err[256];

	(void)state;
	assert_int_equal(
		ftfb_usdtspec_parse("usdt:python:gc__*", &s, err, sizeof(err)),
		0);
	assert_null(s.binary);
	assert_string_equal(s.provider, "python");
	assert_string_equal(s.name, "gc__*");
	assert_false(s.str_auto);
	ftfb_usdtspec_free(&s);
	assert_int_equal(ftfb_usdtspec_parse("usdt:/a:b/app:p:n,str=0,2", &s,
					     err, sizeof(err)),
			 0);
	assert_string_equal(s.binary, "/a:b/app");
	assert_string_equal(s.provider, "p");
	assert_string_equal(s.name, "n");
	assert_int_equal(s.strmask, 5);
	ftfb_usdtspec_free(&s);
	assert_int_equal(
		ftfb_usdtspec_parse("usdt:libc:p:n,str", &s, err, sizeof(err)),
		0);
	assert_string_equal(s.binary, "libc");
	assert_true(s.str_auto);
	ftfb_usdtspec_free(&s);
	assert_int_equal(ftfb_usdtspec_parse("usdt:tick", &s, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "usdt:PROVIDER:NAME"));
	assert_int_equal(ftfb_usdtspec_parse("usdt::n", &s, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(
		ftfb_usdtspec_parse("usdt:p:n,str=12", &s, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "string suffix"));
}

static void ev_group_exit(struct tr *h, uint64_t ts, uint32_t tid,
			  uint32_t tgid)
{
	struct ftfb_exit e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_EXIT, ts, 0, tid, tgid);
	e.group_dead = 1;
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

/* A process's tracks go back when it exits, and the next process that
 * needs one takes its pseudo tid, declared anew under itself (a server
 * with a process per connection used them all up). */
static void an_exited_process_gives_its_tracks_back(void **state)
{
	size_t nthreads = 0;
	struct tr h;

	(void)state;
	setup(&h);
	tr_add(&h, 200, 200, "app2", "app2");
	/* process 100: a query crossing a transaction, on tracks 0 and 1 */
	ev_usdt(&h, 1000, 100, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1100, 100, TXN_START, 1, (const int64_t[]){7}, NULL);
	ev_usdt(&h, 1200, 100, REQ_DONE, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1300, 100, TXN_DONE, 1, (const int64_t[]){7}, NULL);
	ev_exit(&h, 1400, 101, 100);
	ev_group_exit(&h, 1500, 100, 100);
	/* process 200, the same: the same two tracks, under it */
	ev_usdt_in(&h, 2000, 200, 200, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_usdt_in(&h, 2100, 200, 200, TXN_START, 1, (const int64_t[]){8}, NULL);
	ev_usdt_in(&h, 2200, 200, 200, REQ_DONE, 1, (const int64_t[]){2}, NULL);
	ev_usdt_in(&h, 2300, 200, 200, TXN_DONE, 1, (const int64_t[]){8}, NULL);
	tr_finish(&h, 3000);
	assert_int_equal(slice(&h, 0)->pid, 100);
	assert_int_equal(slice(&h, 0)->tid, TRACK(0));
	assert_int_equal(slice(&h, 2)->pid, 200);
	assert_true(slice(&h, 2)->tid == TRACK(0) || slice(&h, 2)->tid == TRACK(1));
	assert_true(slice(&h, 3)->tid == TRACK(0) || slice(&h, 3)->tid == TRACK(1));
	assert_int_equal(slice(&h, 3)->pid, 200);
	/* no third track was made */
	for (size_t i = 0; i < h.nrecs; i++)
		if (h.recs[i].type == FTF_REC_KERNEL_OBJECT && h.recs[i].sub == 2 &&
		    h.recs[i].koid == TRACK(2))
			nthreads++;
	assert_int_equal(nthreads, 0);
	assert_int_equal(h.t.st.tracks_full, 0);
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(instants_carry_int_and_string_args),
		cmocka_unit_test(nested_pairs_are_nested_complete_slices),
		cmocka_unit_test(crossing_pairs_go_to_tracks_nesting_ones_stay),
		cmocka_unit_test(pairs_crossing_a_call_go_to_tracks),
		cmocka_unit_test(an_exited_process_gives_its_tracks_back),
		cmocka_unit_test(open_slices_end_unfinished_at_exit_and_stop),
		cmocka_unit_test(a_slice_named_by_a_string_argument),
		cmocka_unit_test(a_prefixed_string_name),
		cmocka_unit_test(an_unknown_probe_is_skipped),
		cmocka_unit_test(open_slices_are_inherited_at_a_window_start),
		cmocka_unit_test(an_inherited_slice_keeps_its_string_name),
		cmocka_unit_test(a_slice_name_survives_temporary_string_ids),
		cmocka_unit_test(specs_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
