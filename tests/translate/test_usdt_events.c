// SPDX-License-Identifier: MIT
/*
 * test_usdt_events.c - the translator's USDT hits: an instant probe -> an
 * instant event on the thread (name, category = provider, int64 arg0.. and
 * string arguments); a START~END pair -> a slice from a start to the next end
 * of the pair on the same thread, on that thread's track of the pair (a
 * Perfetto track named like it, under the thread: one per thread and
 * pair, however pairs nest or cross; nested pairs nest; the start's args,
 * then the end's as end_argN; custom names and hidden arguments; a slice
 * named by a string argument); an end with no start writes nothing; the
 * stop and the thread's exit end open slices unfinished. Also the parsing
 * of -u usdt:... specs.
 */
#include <errno.h>

#include "tr_harness.h"
#include "../stacks/perfetto_bytes.h"
#include "nt_slices.h"
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

/* The slices of the pairs, as Perfetto reads them (nt_slices.h), in the
 * order they began. */
static struct nt_view *pairs(struct tr *h)
{
	static struct nt_view v;

	nt_view(&h->mem, &v);
	return &v;
}

/* The i-th slice must be `name` from ts to end on thread tid of process
 * 100, on that thread's track named `track`, at depth `depth` on it. */
static const struct nt_slice *slice_at(const struct nt_view *v, int i,
				       const char *name, const char *track,
				       uint64_t ts, uint64_t end, uint32_t tid,
				       int depth)
{
	const struct nt_slice *s = &v->slices[i];

	assert_true(i < v->nslices);
	assert_string_equal(s->name, name);
	assert_string_equal(s->track_name, track);
	assert_int_equal(s->begin, ts);
	assert_int_equal(s->end, end);
	assert_int_equal(s->pid, 100);
	assert_int_equal(s->tid, tid);
	assert_int_equal(s->depth, depth);
	return s;
}

/* No pair is an FTF record: no complete or async event, no thread or
 * process above any pid (pid_max is at most 2^22). */
static void no_ftf_pairs_no_made_up_ids(const struct tr *h)
{
	assert_int_equal(
		tr_count(h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 0);
	assert_int_equal(tr_count(h, FTF_REC_EVENT, FTF_EVENT_ASYNC_BEGIN), 0);
	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == FTF_REC_KERNEL_OBJECT)
			assert_true(h->recs[i].koid < (1u << 22));
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

static void nested_pairs_nest_on_the_pairs_track(void **state)
{
	const struct nt_slice *in, *out;
	struct nt_view *v;
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
	v = pairs(&h);
	assert_int_equal(v->nslices, 2);
	out = slice_at(v, 0, "req", "req", 1000, 1500, 100, 0);
	in = slice_at(v, 1, "req", "req", 1100, 1200, 100, 1);
	assert_int_equal(in->track, out->track);
	assert_int_equal(nt_arg(in, "arg0"), 2);
	assert_int_equal(nt_arg(in, "end_arg0"), 2);
	assert_int_equal(nt_arg(in, "end_arg1"), 20);
	assert_int_equal(nt_arg(out, "arg0"), 1);
	assert_int_equal(nt_arg(out, "end_arg1"), 10);
	assert_false(nt_has_arg(out, "unfinished"));
	assert_int_equal(h.t.st.usdt_unmatched, 1); /* thread 101's end */
	assert_int_equal(h.t.st.usdt_slices, 2);
	no_ftf_pairs_no_made_up_ids(&h);
	tr_free(&h);
}

/* A transaction begun in one query and committed in the next, as
 * PostgreSQL's probes fire: every query on the thread's one "req" track,
 * the one nested in the transaction too, the transaction on its "txn"
 * track; no slice of a track crosses another of it, and nothing is on a
 * made-up thread. */
static void crossing_pairs_each_on_their_threads_track(void **state)
{
	const struct nt_slice *r;
	struct nt_view *v;
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
	/* thread 101's query: a track of its own */
	ev_usdt(&h, 1800, 101, REQ_START, 1, (const int64_t[]){4}, NULL);
	ev_usdt(&h, 1900, 101, REQ_DONE, 1, (const int64_t[]){4}, NULL);
	tr_finish(&h, 3000);
	v = pairs(&h);
	assert_int_equal(v->nslices, 5);
	r = slice_at(v, 0, "req", "req", 1000, 1200, 100, 0);
	assert_int_equal(nt_arg(r, "arg0"), 1);
	assert_int_equal(nt_arg(r, "end_arg0"), 1);
	r = slice_at(v, 1, "txn", "txn", 1100, 1600, 100, 0);
	assert_string_equal(r->cat, "db");
	assert_int_equal(nt_arg(r, "arg0"), 7);
	slice_at(v, 2, "req", "req", 1300, 1400, 100, 0);
	slice_at(v, 3, "req", "req", 1500, 1700, 100, 0);
	slice_at(v, 4, "req", "req", 1800, 1900, 101, 0);
	assert_int_equal(v->slices[0].track, v->slices[2].track);
	assert_int_equal(v->slices[0].track, v->slices[3].track);
	assert_true(v->slices[1].track != v->slices[0].track);
	assert_true(v->slices[4].track != v->slices[0].track);
	/* the thread's tracks and the thread's own, and thread 101's */
	assert_int_equal(v->ntracks, 5);
	assert_int_equal(h.t.st.usdt_slices, 5);
	no_ftf_pairs_no_made_up_ids(&h);
	tr_free(&h);
}

/* A pair begun in one call and ended after it returned, and one begun
 * before a call and ended inside it, stay on their tracks; the calls stay
 * begin/end records on the thread. */
static void pairs_crossing_a_call_stay_on_their_tracks(void **state)
{
	static const struct ftfb_func fn[] = {{"work", "app"}};
	struct ftfb_translator_opts o = {
		.usdt = probes, .nusdt = NPROBES, .funcs = fn, .nfuncs = 1};
	struct nt_view *v;
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
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN),
			 2);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 2);
	v = pairs(&h);
	assert_int_equal(v->nslices, 3);
	slice_at(v, 0, "req", "req", 1100, 1300, 100, 0);
	slice_at(v, 1, "txn", "txn", 1400, 1600, 100, 0);
	slice_at(v, 2, "req", "req", 1610, 1620, 100, 0); /* inside the call */
	assert_int_equal(v->slices[0].track, v->slices[2].track);
	no_ftf_pairs_no_made_up_ids(&h);
	tr_free(&h);
}

static void open_slices_end_unfinished_at_exit_and_stop(void **state)
{
	const struct nt_slice *r;
	struct nt_view *v;
	struct tr h;

	(void)state;
	setup(&h);
	ev_usdt(&h, 1000, 101, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1100, 100, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_exit(&h, 1300, 101, 100);
	tr_finish(&h, 3000);
	v = pairs(&h);
	assert_int_equal(v->nslices, 2);
	r = slice_at(v, 0, "req", "req", 1000, 1300, 101, 0);
	assert_int_equal(nt_arg(r, "unfinished"), 1);
	r = slice_at(v, 1, "req", "req", 1100, 3000, 100, 0);
	assert_int_equal(nt_arg(r, "unfinished"), 1);
	assert_int_equal(nt_arg(r, "arg0"), 2);
	tr_free(&h);
}

static void a_slice_named_by_a_string_argument(void **state)
{
	const struct nt_slice *r;
	struct nt_view *v;
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
	v = pairs(&h);
	r = slice_at(v, 0, "json", "import", 1000, 1300, 100, 0);
	assert_string_equal(r->cat, "python");
	r = slice_at(v, 1, "json.decoder", "import", 1100, 1200, 100, 1);
	/* the module is the name, not an argument; found keeps its name */
	assert_int_equal(r->nargs, 1);
	assert_int_equal(nt_arg(r, "found"), 1);
	tr_free(&h);
}

/* --python's imports: "import MODULE", never taken for the slice "gc" of
 * a collection when the module is gc. */
static void a_prefixed_string_name(void **state)
{
	struct ftfb_usdt_desc p[NPROBES];
	struct ftfb_translator_opts o = {.usdt = p, .nusdt = NPROBES};
	const struct nt_slice *r;
	struct tr h;

	(void)state;
	memcpy(p, probes, sizeof(p));
	p[IMP_START].name_prefixed = true;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	ev_usdt(&h, 1000, 100, IMP_START, 1, (const int64_t[]){0}, "gc");
	ev_usdt(&h, 1200, 100, IMP_DONE, 2, (const int64_t[]){0, 1}, "gc");
	tr_finish(&h, 3000);
	r = slice_at(pairs(&h), 0, "import gc", "import", 1000, 1200, 100, 0);
	assert_int_equal(nt_arg(r, "found"), 1);
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
	const struct nt_slice *r;
	struct tr tracker, snap;
	struct nt_view *v;

	(void)state;
	setup(&tracker);
	setup(&snap);
	ev_usdt(&tracker, 1000, 100, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&tracker, 1100, 100, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_usdt(&tracker, 1150, 100, REQ_START, 1, (const int64_t[]){3}, NULL);
	ev_usdt(&tracker, 1200, 100, REQ_DONE, 2, (const int64_t[]){3, 0},
		NULL);
	assert_int_equal(
		ftfb_translator_usdt_inherit(&tracker.t, &snap.t, 5000), 0);
	ev_usdt(&snap, 6000, 100, REQ_DONE, 2, (const int64_t[]){2, 0}, NULL);
	ev_usdt(&snap, 6500, 100, REQ_DONE, 2, (const int64_t[]){1, 0}, NULL);
	tr_finish(&snap, 7000);
	/* both begin at 5000, the outer one first: they nest as they did */
	v = pairs(&snap);
	assert_int_equal(v->nslices, 2);
	r = slice_at(v, 0, "req", "req", 5000, 6500, 100, 0);
	assert_int_equal(nt_arg(r, "arg0"), 1);
	assert_false(nt_has_arg(r, "unfinished"));
	r = slice_at(v, 1, "req", "req", 5000, 6000, 100, 1);
	assert_int_equal(nt_arg(r, "arg0"), 2);
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
	assert_int_equal(pairs(&snap)->nslices, 1);
	slice_at(pairs(&snap), 0, "json", "import", 5000, 6000, 100, 0);
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
	assert_int_equal(pairs(&h)->nslices, 1);
	assert_string_equal(pairs(&h)->slices[0].name, "modA");
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

/* A thread's tracks end with it: a thread that takes its tid later
 * gets tracks declared anew, under itself; another process's thread has
 * tracks of its own. */
static void an_exited_threads_tracks_are_not_reused(void **state)
{
	const struct nt_slice *a, *b, *c;
	struct nt_view *v;
	struct tr h;

	(void)state;
	setup(&h);
	tr_add(&h, 200, 200, "app2", "app2");
	ev_usdt(&h, 1000, 101, REQ_START, 1, (const int64_t[]){1}, NULL);
	ev_usdt(&h, 1100, 101, REQ_DONE, 1, (const int64_t[]){1}, NULL);
	ev_exit(&h, 1200, 101, 100);
	tr_add(&h, 101, 100, "worker2", NULL);
	ev_usdt(&h, 1300, 101, REQ_START, 1, (const int64_t[]){2}, NULL);
	ev_usdt(&h, 1400, 101, REQ_DONE, 1, (const int64_t[]){2}, NULL);
	ev_usdt_in(&h, 1500, 200, 200, REQ_START, 1, (const int64_t[]){3},
		   NULL);
	ev_usdt_in(&h, 1600, 200, 200, REQ_DONE, 1, (const int64_t[]){3}, NULL);
	tr_finish(&h, 3000);
	v = pairs(&h);
	assert_int_equal(v->nslices, 3);
	a = slice_at(v, 0, "req", "req", 1000, 1100, 101, 0);
	b = slice_at(v, 1, "req", "req", 1300, 1400, 101, 0);
	c = &v->slices[2];
	assert_int_equal(c->pid, 200);
	assert_int_equal(c->tid, 200);
	assert_string_equal(c->track_name, "req");
	assert_true(a->track != b->track);
	assert_true(c->track != a->track && c->track != b->track);
	/* three pair tracks, each under a thread track of its own */
	assert_int_equal(v->ntracks, 6);
	no_ftf_pairs_no_made_up_ids(&h);
	tr_free(&h);
}

/* Many threads, some exiting and their tids taken again: each pair's
 * slice on its own thread's track of the pair (found through the
 * threads' index, built again as threads go), a reused tid's on new
 * tracks. */
static void many_threads_each_on_their_own_tracks(void **state)
{
	enum { NT = 120 };
	uint64_t req_track[NT] = {0};
	struct nt_view *v;
	struct tr h;

	(void)state;
	setup(&h);
	for (uint32_t i = 0; i < NT; i++) {
		uint64_t ts = 10000 + 100 * i;

		tr_add(&h, 1000 + i, 100, "worker", NULL);
		ev_usdt(&h, ts, 1000 + i, REQ_START, 1,
			(const int64_t[]){(int64_t)i}, NULL);
		ev_usdt(&h, ts + 10, 1000 + i, TXN_START, 1,
			(const int64_t[]){(int64_t)i}, NULL);
		ev_usdt(&h, ts + 20, 1000 + i, REQ_DONE, 1,
			(const int64_t[]){(int64_t)i}, NULL);
	}
	for (uint32_t i = 0; i < NT; i += 2)
		ev_exit(&h, 30000 + i, 1000 + i, 100); /* txn unfinished */
	for (uint32_t i = 0; i < NT; i++) {
		uint64_t ts = 40000 + 100 * i;

		if (i % 2 == 0)
			tr_add(&h, 1000 + i, 100, "again", NULL);
		ev_usdt(&h, ts, 1000 + i, REQ_START, 1,
			(const int64_t[]){(int64_t)(NT + i)}, NULL);
		ev_usdt(&h, ts + 20, 1000 + i, REQ_DONE, 1,
			(const int64_t[]){(int64_t)(NT + i)}, NULL);
	}
	tr_finish(&h, 90000);
	v = pairs(&h);
	assert_int_equal(v->nslices, 3 * NT);
	for (int k = 0; k < v->nslices; k++) {
		const struct nt_slice *s = &v->slices[k];
		uint32_t i = (uint32_t)(nt_arg(s, "arg0") % NT);

		assert_int_equal(s->tid, 1000 + i);
		assert_int_equal(s->pid, 100);
		assert_string_equal(s->track_name, s->name);
		assert_int_equal(s->depth, 0);
		if (strcmp(s->name, "req"))
			continue;
		if (nt_arg(s, "arg0") < NT) {
			req_track[i] = s->track;
			continue;
		}
		/* the second query: the first's track, unless the tid is
		 * another thread's now */
		if (i % 2)
			assert_int_equal(s->track, req_track[i]);
		else
			assert_true(s->track != req_track[i]);
	}
	/* a thread track and its req and txn tracks per thread, then a new
	 * thread track and req track per reused tid */
	assert_int_equal(v->ntracks, 3 * NT + 2 * (NT / 2));
	assert_int_equal(h.t.st.usdt_slices, 3 * NT);
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(instants_carry_int_and_string_args),
		cmocka_unit_test(nested_pairs_nest_on_the_pairs_track),
		cmocka_unit_test(crossing_pairs_each_on_their_threads_track),
		cmocka_unit_test(pairs_crossing_a_call_stay_on_their_tracks),
		cmocka_unit_test(an_exited_threads_tracks_are_not_reused),
		cmocka_unit_test(many_threads_each_on_their_own_tracks),
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
