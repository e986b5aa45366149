// SPDX-License-Identifier: MIT
/*
 * test_ring_shard.c - a shard (src/translate/ring_shard.h, --rings N) writes the
 * switches and wakeups of its ring as the records the translator itself
 * would write, hands over the tasks it sees first (the translator names
 * them) and the events it does not write (task names), through a relay
 * collected into the translator's writer.
 */
#include "tr_harness.h"

#include "ring_shard.h"

#define OBJ_THREAD 2

static const struct tr_lookup_ent tasks[] = {
	{100, 100, "srv", "srv"},
	{101, 100, "worker-a", NULL},
	{102, 100, "worker-b", NULL},
	{103, 100, "worker-c", NULL},
	{104, 100, "worker-d", NULL},
	{105, 100, "worker-e", NULL},
	{106, 100, "worker-f", NULL},
	{107, 100, "worker-g", NULL},
	{108, 100, "worker-h", NULL},
	{300, 300, "other", "other"},
};

struct shards_fx {
	struct tr h;
	struct ftfb_relay relay;
	struct ftfb_shard shard;
};

static void fx_setup(struct shards_fx *f)
{
	struct ftfb_translator_opts o = {0};

	memset(f, 0, sizeof(*f));
	tr_setup(&f->h, &o);
	f->h.lookup = tasks;
	f->h.nlookup = sizeof(tasks) / sizeof(tasks[0]);
	assert_int_equal(ftfb_relay_init(&f->relay, 0), 0);
	assert_int_equal(ftfb_shard_init(&f->shard, &f->h.t, &f->relay), 0);
}

/* The shard's last records handed over and collected, then the trace
 * finished and decoded. */
static void fx_finish(struct shards_fx *f, uint64_t end)
{
	assert_int_equal(ftfb_shard_flush(&f->shard), 0);
	assert_int_equal(ftfb_shard_collect(&f->relay, &f->h.t), 0);
	tr_finish(&f->h, end);
}

static void fx_free(struct shards_fx *f)
{
	ftfb_shard_free(&f->shard);
	ftfb_relay_free(&f->relay);
	tr_free(&f->h);
}

/* (switches at prio 120 from a blocked or given state, wakeups) */
static struct ftfb_switch mk_switch(uint64_t ts, uint16_t cpu, uint32_t prev,
				    uint32_t prev_tgid, uint32_t state,
				    uint32_t next, uint32_t next_tgid)
{
	return tr_switch(ts, cpu, prev, prev_tgid, state, 120, next, next_tgid,
			 120);
}

static struct ftfb_wakeup mk_wakeup(uint64_t ts, uint16_t cpu, uint32_t waker,
				    uint32_t waker_tgid, uint32_t target,
				    uint32_t target_tgid)
{
	return tr_wakeup(FTFB_EV_WAKEUP, ts, cpu, waker, waker_tgid, target,
			 target_tgid, 120);
}

static bool has_thread(const struct tr *h, uint64_t koid, const char *name)
{
	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == FTF_REC_KERNEL_OBJECT &&
		    h->recs[i].sub == OBJ_THREAD && h->recs[i].koid == koid &&
		    !strcmp(h->recs[i].name, name))
			return true;
	return false;
}

/* 10 switches between 101 and 102 on cpu 1 and 4 wakeups, all through
 * the shard: each is in the trace with its time, cpu, tids and weights,
 * in order; both threads are named from /proc (the fake lookup). */
static void shard_records_reach_the_trace(void **state)
{
	struct shards_fx f;

	(void)state;
	fx_setup(&f);
	for (int i = 0; i < 10; i++) {
		struct ftfb_switch e = mk_switch(1000 + 100 * i, 1,
						 i % 2 ? 102 : 101, 100, 1,
						 i % 2 ? 101 : 102, 100);

		assert_int_equal(ftfb_shard_event(&f.shard, &e, sizeof(e)), 0);
	}
	for (int i = 0; i < 4; i++) {
		struct ftfb_wakeup e = mk_wakeup(3000 + i, 1, 101, 100, 102, 100);

		assert_int_equal(ftfb_shard_event(&f.shard, &e, sizeof(e)), 0);
	}
	fx_finish(&f, 5000);
	assert_int_equal(tr_count(&f.h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH),
			 10);
	assert_int_equal(tr_count(&f.h, FTF_REC_SCHED, FTF_SCHED_WAKEUP), 4);
	for (int i = 0; i < 10; i++) {
		const struct trec *r = tr_nth(&f.h, FTF_REC_SCHED,
					      FTF_SCHED_CONTEXT_SWITCH, i);

		assert_int_equal(r->ts, 1000 + 100 * i);
		assert_int_equal(r->cpu, 1);
		assert_int_equal(r->out_koid, i % 2 ? 102 : 101);
		assert_int_equal(r->in_koid, i % 2 ? 101 : 102);
		assert_int_equal(r->out_state, FTF_THREAD_BLOCKED);
		assert_int_equal(tr_arg(r, "incoming_weight")->i64, 120);
		assert_int_equal(tr_arg(r, "outgoing_weight")->i64, 120);
	}
	assert_int_equal(tr_nth(&f.h, FTF_REC_SCHED, FTF_SCHED_WAKEUP, 3)->ts,
			 3003);
	assert_int_equal(tr_arg(tr_nth(&f.h, FTF_REC_SCHED, FTF_SCHED_WAKEUP, 0),
				"waker")->u64, 101);
	assert_true(has_thread(&f.h, 101, "worker-a"));
	assert_true(has_thread(&f.h, 102, "worker-b"));
	assert_int_equal(f.shard.st.records, 14);
	assert_int_equal(f.shard.st.by_kind[FTFB_EV_SWITCH], 10);
	fx_free(&f);
}

/* cpu 3 puts 101 on, then switches from 102: 101's missing switch-out is
 * written first, 1 ns before (to the idle task, 101 preempted), as the
 * translator does; the idle task is named swapper. */
static void shard_repairs_a_missing_switch_out(void **state)
{
	struct ftfb_switch a = mk_switch(100, 3, 300, 300, 1, 101, 100);
	struct ftfb_switch b = mk_switch(200, 3, 102, 100, 1, 300, 300);
	const struct trec *r;
	struct shards_fx f;

	(void)state;
	fx_setup(&f);
	assert_int_equal(ftfb_shard_event(&f.shard, &a, sizeof(a)), 0);
	assert_int_equal(ftfb_shard_event(&f.shard, &b, sizeof(b)), 0);
	fx_finish(&f, 300);
	assert_int_equal(tr_count(&f.h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH),
			 3);
	r = tr_nth(&f.h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 1);
	assert_int_equal(r->ts, 199); /* (1 ns before the switch) */
	assert_int_equal(r->out_koid, 101);
	assert_int_equal(r->in_koid, 0);
	assert_int_equal(r->out_state, FTF_THREAD_RUNNING);
	assert_int_equal(f.shard.st.repaired, 1);
	assert_true(has_thread(&f.h, 0, "swapper"));
	fx_free(&f);
}

/* A task name from the kernel (an exiting task /proc no longer has) goes
 * to the translator, which names the task with it. */
static void shard_forwards_task_names(void **state)
{
	struct ftfb_taskname n;
	struct shards_fx f;

	(void)state;
	fx_setup(&f);
	memset(&n, 0, sizeof(n));
	tr_hdr(&n.hdr, FTFB_EV_TASKNAME, 50, 1, 700, 700);
	memcpy(n.comm, "gone", 4);
	memcpy(n.pcomm, "gone", 4);
	assert_int_equal(ftfb_shard_event(&f.shard, &n, sizeof(n)), 0);
	fx_finish(&f, 100);
	assert_true(has_thread(&f.h, 700, "gone"));
	assert_int_equal(ftfb_translator_stats(&f.h.t)->by_kind[FTFB_EV_TASKNAME],
			 1);
	assert_int_equal(f.shard.st.by_kind[FTFB_EV_TASKNAME], 0);
	fx_free(&f);
}

/* One stream over 4 cpus: the translator alone, and the translator with
 * cpus 1 and 3 through a shard (as --rings 2 splits them), write the same
 * scheduling records. */
#define MIX_N 400

static void feed_mix(struct shards_fx *f, bool split)
{
	for (int i = 0; i < MIX_N; i++) {
		/* each cpu its own two workers, taking turns (a task runs
		 * on one cpu at a time: else each switch would also end it
		 * on the cpu that had it) */
		uint16_t cpu = (uint16_t)(i % 4);
		uint32_t pair = 101 + 2u * cpu;
		uint32_t a = pair + (uint32_t)(i / 4) % 2, b = 2 * pair + 1 - a;
		struct ftfb_switch s = mk_switch(1000 + 10 * i, cpu, a, 100, 1,
						 b, 100);
		struct ftfb_wakeup w = mk_wakeup(1000 + 10 * i + 5, cpu, b, 100,
						 a, 100);
		bool shard = split && cpu % 2;

		/* (a and b: tids of the lookup) */
		assert_int_equal(shard ? ftfb_shard_event(&f->shard, &s, sizeof(s))
				      : ftfb_translator_event(&f->h.t, &s,
							      sizeof(s)),
				 0);
		assert_int_equal(shard ? ftfb_shard_event(&f->shard, &w, sizeof(w))
				      : ftfb_translator_event(&f->h.t, &w,
							      sizeof(w)),
				 0);
		if (i % 64 == 0) /* a turn of the loop */
			assert_int_equal(ftfb_shard_collect(&f->relay, &f->h.t),
					 0);
	}
	fx_finish(f, 1000 + 10 * MIX_N);
}

static int cmp_sched(const void *x, const void *y)
{
	const struct trec *a = x, *b = y;

	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (int)a->sub - (int)b->sub;
}

static size_t sched_only(const struct tr *h, struct trec *out)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == FTF_REC_SCHED)
			out[n++] = h->recs[i];
	qsort(out, n, sizeof(*out), cmp_sched);
	return n;
}

static void shard_writes_what_the_translator_writes(void **state)
{
	static struct trec one[2 * MIX_N + 8], two[2 * MIX_N + 8];
	struct shards_fx a, b;
	size_t na, nb;

	(void)state;
	fx_setup(&a);
	fx_setup(&b);
	feed_mix(&a, false);
	feed_mix(&b, true);
	assert_int_equal(b.shard.st.by_kind[FTFB_EV_SWITCH], MIX_N / 2);
	na = sched_only(&a.h, one);
	nb = sched_only(&b.h, two);
	assert_int_equal(na, 2 * MIX_N);
	assert_int_equal(nb, na);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(one[i].ts, two[i].ts);
		assert_int_equal(one[i].sub, two[i].sub);
		assert_int_equal(one[i].cpu, two[i].cpu);
		assert_int_equal(one[i].out_koid, two[i].out_koid);
		assert_int_equal(one[i].in_koid, two[i].in_koid);
		assert_int_equal(one[i].out_state, two[i].out_state);
		assert_int_equal(one[i].nargs, two[i].nargs);
		for (unsigned k = 0; k < one[i].nargs; k++) {
			assert_string_equal(one[i].args[k].name,
					    two[i].args[k].name);
			assert_int_equal(one[i].args[k].i64, two[i].args[k].i64);
			assert_int_equal(one[i].args[k].u64, two[i].args[k].u64);
		}
	}
	assert_true(has_thread(&b.h, 101, "worker-a"));
	assert_true(has_thread(&b.h, 102, "worker-b"));
	fx_free(&a);
	fx_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shard_records_reach_the_trace),
		cmocka_unit_test(shard_repairs_a_missing_switch_out),
		cmocka_unit_test(shard_forwards_task_names),
		cmocka_unit_test(shard_writes_what_the_translator_writes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
