// SPDX-License-Identifier: MIT
/*
 * test_sched_records.c - the translator's scheduling side: raw sched events
 * built here -> the exact FTF records, read back through the reader.
 * Expected values come from the format (ftf-format.md: thread states,
 * idle weight INT32_MIN, `waker`, `process` koid) and the documented
 * weight mapping (the kernel's prio, as Linux numbers it: Perfetto reads
 * below 100 as real-time), not from the code's output.
 */
#define _GNU_SOURCE /* memmem */
#include "tr_harness.h"

#include <limits.h>

/* ---- context switches ---- */

static void state_maps_to_ftf_state(void **state)
{
	static const struct {
		uint32_t linux_state;
		unsigned ftf; /* FTF thread state: 1 running .. 5 dead */
	} cases[] = {
		{FTFB_TASK_RUNNING, 1},
		{FTFB_PREEMPTED, 1},
		{FTFB_PREEMPTED | FTFB_TASK_INTERRUPTIBLE, 1},
		{FTFB_TASK_INTERRUPTIBLE, 3},			   /* S */
		{FTFB_TASK_UNINTERRUPTIBLE, 3},			   /* D */
		{FTFB_TASK_UNINTERRUPTIBLE | FTFB_TASK_NOLOAD, 3}, /* I */
		{FTFB_TASK_UNINTERRUPTIBLE | FTFB_TASK_WAKEKILL,
		 3}, /* killable */
		{FTFB_TASK_PARKED, 3},
		{FTFB_TASK_STOPPED, 2},			/* T */
		{FTFB_TASK_TRACED, 2},			/* t */
		{FTFB_TASK_DEAD | FTFB_EXIT_ZOMBIE, 4}, /* Z */
		{FTFB_TASK_DEAD | FTFB_EXIT_DEAD, 5},	/* X */
		{FTFB_TASK_DEAD, 5},
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "a", NULL);
	for (size_t i = 0; i < n; i++)
		tr_add(&h, 200 + (uint32_t)i, 100, "b", NULL);
	/* one CPU and one incoming task each: no switch repairs another
	 * (no CPU is left by a task it did not run, no task is taken in
	 * while another CPU holds it) */
	for (size_t i = 0; i < n; i++)
		ev_switch(&h, 1000 + i, (uint16_t)i, 100, 100,
			  cases[i].linux_state, 120, 200 + (uint32_t)i, 100,
			  120);
	tr_finish(&h, 5000);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH),
			 n);
	for (size_t i = 0; i < n; i++) {
		const struct trec *r =
			tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, i);

		assert_non_null(r);
		if (r->out_state != cases[i].ftf)
			fail_msg("linux state 0x%x: FTF state %u, expected %u",
				 cases[i].linux_state, r->out_state,
				 cases[i].ftf);
		assert_int_equal(r->ts, 1000 + i);
		assert_int_equal(r->cpu, i);
		assert_int_equal(r->out_koid, 100);
		assert_int_equal(r->in_koid, 200 + i);
	}
	tr_free(&h);
}

static void switch_weights_and_idle(void **state)
{
	struct ftfb_translator_opts o = {0};
	const struct trec *r;
	const struct targ *in, *out;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "a", NULL);
	tr_add(&h, 200, 200, "b", NULL);
	/* 100 (nice 0, prio 120) -> idle */
	ev_switch(&h, 10, 1, 100, 100, FTFB_TASK_INTERRUPTIBLE, 120, 0, 0, 120);
	/* idle -> 200 (real-time prio 0) */
	ev_switch(&h, 20, 1, 0, 0, FTFB_TASK_RUNNING, 120, 200, 200, 0);
	/* 200 -> 100 at nice -20 (prio 100) and nice 19 (prio 139) */
	ev_switch(&h, 30, 1, 200, 200, FTFB_PREEMPTED, 139, 100, 100, 100);
	tr_finish(&h, 100);

	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 0);
	assert_non_null(r);
	assert_int_equal(r->nargs, 2);
	/* order and types as Perfetto wants them: int32 incoming first */
	assert_string_equal(r->args[0].name, "incoming_weight");
	assert_string_equal(r->args[1].name, "outgoing_weight");
	assert_int_equal(r->args[0].type, FTF_ARG_INT32);
	assert_int_equal(r->args[1].type, FTF_ARG_INT32);
	assert_int_equal(r->args[0].i64, INT32_MIN);
	assert_int_equal(r->args[1].i64, 120);
	assert_int_equal(r->in_koid, 0);

	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 1);
	in = tr_arg(r, "incoming_weight");
	out = tr_arg(r, "outgoing_weight");
	assert_int_equal(out->i64, INT32_MIN);
	assert_int_equal(in->i64, 0);
	assert_int_equal(r->out_koid, 0);
	assert_int_equal(r->in_koid, 200);

	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 2);
	assert_int_equal(tr_arg(r, "incoming_weight")->i64, 100);
	assert_int_equal(tr_arg(r, "outgoing_weight")->i64, 139);
	assert_int_equal(r->out_state, 1);
	/* the idle task's kernel objects: process 0 and its thread 0, both
	 * "swapper" (Perfetto's name for it), once */
	{
		size_t procs = 0, threads = 0;

		for (size_t i = 0; i < h.nrecs; i++) {
			const struct trec *k = &h.recs[i];

			if (k->type != FTF_REC_KERNEL_OBJECT || k->koid != 0)
				continue;
			assert_string_equal(k->name, "swapper");
			if (k->sub == 1)
				procs++;
			if (k->sub == 2) {
				threads++;
				assert_int_equal(tr_arg(k, "process")->u64, 0);
			}
		}
		assert_int_equal(procs, 1);
		assert_int_equal(threads, 1);
	}
	tr_free(&h);
}

/* Per-process tracing: the switch that ends an untraced task is flagged
 * FTFB_NEXT_UNFOLLOWED by BPF; its incoming task is shown as idle (weight
 * INT32_MIN) and its outgoing state still comes from the kernel bits. */
static void unfollowed_incoming_is_idle(void **state)
{
	struct ftfb_translator_opts o = {0};
	const struct trec *r;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 300, 300, "x", NULL);
	tr_add(&h, 400, 400, "y", NULL);
	ev_switch(&h, 10, 0, 300, 300,
		  FTFB_TASK_INTERRUPTIBLE | FTFB_NEXT_UNFOLLOWED, 120, 400, 400,
		  120);
	tr_finish(&h, 100);
	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 0);
	assert_non_null(r);
	assert_int_equal(tr_arg(r, "incoming_weight")->i64, INT32_MIN);
	assert_int_equal(tr_arg(r, "outgoing_weight")->i64, 120);
	assert_int_equal(r->out_state, 3); /* blocked: S */
	assert_int_equal(r->in_koid, 400);
	tr_free(&h);
}

/* Tasks a, b, c, d (tids 100..103) of process 100. */
static void add_tasks_abcd(struct tr *h)
{
	tr_add(h, 100, 100, "a", NULL);
	tr_add(h, 101, 100, "b", NULL);
	tr_add(h, 102, 100, "c", NULL);
	tr_add(h, 103, 100, "d", NULL);
}

/* The nth context switch ends task out (weight out_weight) on cpu at ts,
 * as a repair writes it: to idle, out running (its state unknown, last
 * seen so). */
static void assert_repair(const struct tr *h, size_t nth, uint64_t ts,
			  unsigned cpu, uint64_t out, int64_t out_weight)
{
	const struct trec *r =
		tr_nth(h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, nth);

	assert_non_null(r);
	assert_int_equal(r->ts, ts);
	assert_int_equal(r->cpu, cpu);
	assert_int_equal(r->out_koid, out);
	assert_int_equal(r->in_koid, 0);
	assert_int_equal(r->out_state, 1);
	assert_int_equal(tr_arg(r, "incoming_weight")->i64, INT32_MIN);
	assert_int_equal(tr_arg(r, "outgoing_weight")->i64, out_weight);
}

/* The kernel reported no switch-out of b on CPU 0 (the next switch there
 * leaves c): b is ended at that switch by a switch to idle written first,
 * 1 ns before it (else Perfetto shows b running to the trace's end; at
 * the same time its sorting may take them in either order).
 * Idle and an unfollowed incoming task (-p) are never ended so. */
static void stale_cpu_task_is_ended(void **state)
{
	struct ftfb_translator_opts o = {0};
	const struct trec *r;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	add_tasks_abcd(&h);
	ev_switch(&h, 10, 0, 100, 100, FTFB_TASK_INTERRUPTIBLE, 120, 101, 100,
		  110);
	/* CPU 1 in between: its own task, consistent */
	ev_switch(&h, 15, 1, 103, 100, FTFB_PREEMPTED, 120, 100, 100, 120);
	ev_switch(&h, 20, 0, 102, 100, FTFB_TASK_INTERRUPTIBLE, 120, 0, 0, 120);
	/* after idle: no end needed for idle */
	ev_switch(&h, 30, 0, 103, 100, FTFB_PREEMPTED, 120, 102, 100, 120);
	/* after an unfollowed incoming task: nothing to end either */
	ev_switch(&h, 40, 0, 102, 100,
		  FTFB_TASK_INTERRUPTIBLE | FTFB_NEXT_UNFOLLOWED, 120, 101, 100,
		  120);
	ev_switch(&h, 50, 0, 100, 100, FTFB_PREEMPTED, 120, 102, 100, 120);
	tr_finish(&h, 100);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH),
			 6 + 1);
	assert_int_equal(h.t.st.switches_repaired, 1);
	assert_repair(&h, 2, 19, 0, 101, 110);
	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 3);
	assert_int_equal(r->ts, 20);
	assert_int_equal(r->out_koid, 102);
	assert_int_equal(r->in_koid, 0);
	for (size_t i = 4; i < 7; i++) {
		r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, i);
		assert_int_not_equal(r->in_koid, 0);
	}
	tr_free(&h);
}

/* CPU 1 takes b in while CPU 0's last switch put b there (the kernel
 * reported no switch-out on CPU 0): Perfetto keeps one open CPU slice per
 * thread, so without an end on CPU 0 first, b's slice there would stay
 * open to the end. b is ended on CPU 0 1 ns before CPU 1's switch, and
 * CPU 0 then holds nothing to end: its next switch, from idle, ends
 * nothing (b runs on CPU 1 then). An unfollowed incoming task (-p) is
 * never ended so. */
static void task_taken_by_another_cpu_is_ended(void **state)
{
	struct ftfb_translator_opts o = {0};
	const struct trec *r;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	add_tasks_abcd(&h);
	ev_switch(&h, 10, 0, 102, 100, FTFB_TASK_INTERRUPTIBLE, 120, 101, 100,
		  110);
	ev_switch(&h, 20, 1, 103, 100, FTFB_TASK_INTERRUPTIBLE, 120, 101, 100,
		  110);
	ev_switch(&h, 30, 0, 0, 0, FTFB_TASK_RUNNING, 120, 100, 100, 120);
	/* b's own switches on CPU 1: consistent */
	ev_switch(&h, 40, 1, 101, 100, FTFB_PREEMPTED, 110, 102, 100, 120);
	ev_switch(&h, 50, 1, 102, 100, FTFB_PREEMPTED, 120, 101, 100, 110);
	/* b comes in on CPU 0 while CPU 1 holds it, but unfollowed (-p:
	 * the closing switch of an untraced task): nothing is ended */
	ev_switch(&h, 60, 0, 100, 100,
		  FTFB_TASK_INTERRUPTIBLE | FTFB_NEXT_UNFOLLOWED, 120, 101, 100,
		  110);
	tr_finish(&h, 100);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH),
			 6 + 1);
	assert_int_equal(h.t.st.switches_repaired, 1);
	assert_repair(&h, 1, 19, 0, 101, 110);
	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, 2);
	assert_int_equal(r->ts, 20);
	assert_int_equal(r->cpu, 1);
	assert_int_equal(r->in_koid, 101);
	for (size_t i = 3; i < 7; i++) {
		r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_CONTEXT_SWITCH, i);
		assert_int_not_equal(r->in_koid, 0);
	}
	tr_free(&h);
}

/* Command lines go to Perfetto as a ProcessTree packet (a blob record of
 * type 3): TracePacket.process_tree (2) .processes (1) {pid (1), ppid
 * (2), cmdline (3) per argument}; a title the process set (one argument
 * with spaces) gets its padding cut and an empty second argument, so
 * Perfetto names the process by all of it. Bytes from the protobuf
 * encoding of those fields, by hand. */
static void cmdline_as_process_tree(void **state)
{
	static const uint8_t prog[] = {0x08, 100, 0x10, 0, 0x1a, 9, '/', 'b',
				       'i', 'n', '/', 'p', 'r', 'o', 'g', 0x1a,
				       2, '-', 'x'};
	static const uint8_t title[] = {0x08, 101, 0x10, 0, 0x1a, 11, 's',
					'v', 'c', ':', ' ', 'w', 'o', 'r', 'k',
					'e', 'r', 0x1a, 0};
	struct ftfb_translator_opts o = {0};
	struct ftfb_task_info ti;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = 100;
	snprintf(ti.comm, sizeof(ti.comm), "prog");
	memcpy(ti.cmdline, "/bin/prog\0-x\0", 13);
	ti.cmdline_len = 13;
	assert_int_equal(ftfb_translator_add_task(&h.t, &ti), 0);
	ti.tid = ti.tgid = 101;
	memcpy(ti.cmdline, "svc: worker  \0\0", 15);
	ti.cmdline_len = 15;
	snprintf(ti.process_name, sizeof(ti.process_name), "svc: worker");
	assert_int_equal(ftfb_translator_add_task(&h.t, &ti), 0);
	/* nothing before the first event: it gives the packet its time */
	assert_null(memmem(h.mem.data, h.mem.len, prog, sizeof(prog)));
	ev_switch(&h, 10, 0, 100, 100, FTFB_TASK_INTERRUPTIBLE, 120, 101, 101,
		  120);
	tr_finish(&h, 100);
	assert_non_null(memmem(h.mem.data, h.mem.len, prog, sizeof(prog)));
	assert_non_null(memmem(h.mem.data, h.mem.len, title, sizeof(title)));
	tr_free(&h);
}

static void wakeup_has_waker(void **state)
{
	struct ftfb_translator_opts o = {0};
	const struct trec *r;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "waker", NULL);
	tr_add(&h, 200, 200, "sleeper", NULL);
	ev_wakeup(&h, FTFB_EV_WAKEUP, 50, 1, 100, 100, 200, 200, 120);
	ev_wakeup(&h, FTFB_EV_WAKEUP_NEW, 60, 0, 200, 200, 100, 100, 100);
	tr_finish(&h, 100);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, FTF_SCHED_WAKEUP), 2);
	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_WAKEUP, 0);
	assert_int_equal(r->ts, 50);
	assert_int_equal(r->cpu, 1);
	assert_int_equal(r->in_koid, 200);
	assert_non_null(tr_arg(r, "waker"));
	assert_int_equal(tr_arg(r, "waker")->type, FTF_ARG_KOID);
	assert_int_equal(tr_arg(r, "waker")->u64, 100);
	assert_int_equal(r->nargs, 1);
	r = tr_nth(&h, FTF_REC_SCHED, FTF_SCHED_WAKEUP, 1);
	assert_int_equal(r->in_koid, 100);
	assert_int_equal(tr_arg(r, "waker")->u64, 200);
	tr_free(&h);
}

/* ---- names: kernel objects ---- */

/* Asserts that the kernel objects, in order, are exactly `exp`. */
struct kobj_exp {
	unsigned type; /* 1 process, 2 thread */
	uint64_t koid;
	const char *name;
	uint64_t process; /* threads: the `process` koid argument */
};

static void check_kobjs(const struct tr *h, const struct kobj_exp *exp,
			size_t n)
{
	size_t got = tr_count(h, FTF_REC_KERNEL_OBJECT, -1);

	for (size_t i = 0; i < n && i < got; i++) {
		const struct trec *r = tr_nth(h, FTF_REC_KERNEL_OBJECT, -1, i);

		if (r->sub != exp[i].type || r->koid != exp[i].koid ||
		    strcmp(r->name, exp[i].name))
			fail_msg("kernel object %zu: type %u koid %llu \"%s\", "
				 "expected type %u koid %llu \"%s\"",
				 i, r->sub, (unsigned long long)r->koid,
				 r->name, exp[i].type,
				 (unsigned long long)exp[i].koid, exp[i].name);
		if (exp[i].type == 2) {
			const struct targ *p = tr_arg(r, "process");

			assert_non_null(p);
			assert_int_equal(p->type, FTF_ARG_KOID);
			assert_int_equal(p->u64, exp[i].process);
		}
	}
	assert_int_equal(got, n);
}

static void names_from_start_fork_exec_rename(void **state)
{
	static const struct kobj_exp exp[] = {
		{1, 100, "bash", 0}, /* add_task leader */
		{2, 100, "bash", 100},
		{2, 101, "bash-helper", 100},	    /* add_task thread */
		{1, 300, "verylongprogramname", 0}, /* truncated comm */
		{2, 300, "verylongprogram", 300},
		{1, 200, "bash", 0}, /* fork: new process */
		{2, 200, "bash", 200},
		{1, 200, "ls", 0}, /* exec */
		{2, 200, "ls", 200},
		{2, 201, "ls", 200},	 /* fork: new thread */
		{2, 201, "worker", 200}, /* rename */
		{1, 200, "main", 0},	 /* leader rename */
		{2, 200, "main", 200},
	};
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "bash", "bash");
	tr_add(&h, 101, 100, "bash-helper", "bash");
	tr_add(&h, 300, 300, "verylongprogram", "verylongprogramname");
	ev_fork(&h, 10, 100, 100, 200, 200, "bash");
	ev_comm(&h, FTFB_EV_EXEC, 20, 200, 200, 200, "ls");
	ev_fork(&h, 30, 200, 200, 201, 200, "ls");
	ev_comm(&h, FTFB_EV_RENAME, 40, 201, 200, 201, "worker");
	ev_comm(&h, FTFB_EV_RENAME, 50, 200, 200, 200, "main");
	tr_finish(&h, 100);
	check_kobjs(&h, exp, sizeof(exp) / sizeof(exp[0]));
	tr_free(&h);
}

static void non_leader_exec_takes_leader_tid(void **state)
{
	static const struct kobj_exp exp[] = {
		{1, 400, "app", 0},	     {2, 400, "app", 400},
		{2, 401, "app-worker", 400}, {1, 400, "newprog", 0},
		{2, 400, "newprog", 400},
		/* the idle task it switches to */
		{1, 0, "swapper", 0},	     {2, 0, "swapper", 0},
	};
	static const struct ftfb_func funcs[] = {{"f", "app"}};
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 1};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 400, 400, "app", "app");
	tr_add(&h, 401, 400, "app-worker", "app");
	/* 401 is inside f when it execs: that call never returns */
	ev_entry(&h, 5, 401, 400, 0, 0, NULL);
	ev_comm(&h, FTFB_EV_EXEC, 10, 400, 400, 401, "newprog");
	/* the new image's leader switches out: known, no lookup needed */
	ev_switch(&h, 20, 0, 400, 400, FTFB_TASK_INTERRUPTIBLE, 120, 0, 0, 120);
	tr_finish(&h, 100);
	check_kobjs(&h, exp, sizeof(exp) / sizeof(exp[0]));
	assert_int_equal(h.t.st.lookups_failed, 0);
	/* the call open at exec ended at the exec, marked unfinished */
	{
		const struct trec *e =
			tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END, 0);

		assert_non_null(e);
		assert_int_equal(e->tid, 401);
		assert_int_equal(e->ts, 10);
		assert_true(tr_arg(e, "unfinished")->b);
	}
	tr_free(&h);
}

/* exec renames the task (task_rename) just before its exec event, and
 * programs rename threads to the name they have: one write per change. */
static void unchanged_names_are_not_rewritten(void **state)
{
	static const struct kobj_exp exp[] = {
		{1, 700, "sh", 0},
		{2, 700, "sh", 700},
		{1, 700, "cat", 0}, /* the rename of exec */
		{2, 700, "cat", 700},
		{2, 701, "cat", 700}, /* fork of a thread */
		{2, 701, "io", 700},
	};
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 700, 700, "sh", "sh");
	ev_comm(&h, FTFB_EV_RENAME, 10, 700, 700, 700, "cat");
	ev_comm(&h, FTFB_EV_EXEC, 11, 700, 700, 700, "cat");
	ev_fork(&h, 12, 700, 700, 701, 700, "cat");
	ev_comm(&h, FTFB_EV_RENAME, 13, 701, 700, 701, "io");
	ev_comm(&h, FTFB_EV_RENAME, 14, 701, 700, 701, "io");
	tr_finish(&h, 100);
	check_kobjs(&h, exp, sizeof(exp) / sizeof(exp[0]));
	tr_free(&h);
}

static void first_seen_tids_are_looked_up(void **state)
{
	static const struct tr_lookup_ent procs[] = {
		{500, 499, "thr", "prog"},
		{499, 499, "prog", "prog"},
	};
	static const struct kobj_exp exp[] = {
		{1, 499, "prog", 0}, /* the leader first */
		{2, 499, "prog", 499},
		{2, 500, "thr", 499},
		{2, 600, "", 650}, /* unknown to /proc: event's tgid */
	};
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	h.lookup = procs;
	h.nlookup = 2;
	ev_switch(&h, 10, 0, 500, 499, FTFB_TASK_INTERRUPTIBLE, 120, 600, 650,
		  120);
	ev_switch(&h, 20, 0, 600, 650, FTFB_TASK_INTERRUPTIBLE, 120, 500, 499,
		  120);
	tr_finish(&h, 100);
	check_kobjs(&h, exp, sizeof(exp) / sizeof(exp[0]));
	assert_int_equal(h.t.st.lookups_failed, 1);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, 1), 2);
	tr_free(&h);
}

/* Tasks gone from /proc before their events are read are named from the
 * kernel's comm: the taskname event sent before the switch that shows an
 * untraced task, and the exit of a task first seen nameless. /proc still
 * wins when the task is there; a named task is never renamed by them. */
static void names_from_the_kernel_when_proc_is_gone(void **state)
{
	static const struct tr_lookup_ent procs[] = {
		{900, 900, "verylongprogram", "verylongprogramname"},
	};
	static const struct kobj_exp exp[] = {
		{1, 805, "parent", 0}, /* taskname: its process first */
		{2, 805, "parent", 805},
		{2, 810, "short", 805},
		/* taskname, but in /proc: its cmdline names the process */
		{1, 900, "verylongprogramname", 0},
		{2, 900, "verylongprogram", 900},
		{2, 820, "", 820},  /* first seen in a switch, not in /proc */
		{1, 820, "late", 0}, /* named at its exit */
		{2, 820, "late", 820},
	};
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	h.lookup = procs;
	h.nlookup = 1;
	ev_named(&h, FTFB_EV_TASKNAME, 10, 810, 805, "short", "parent");
	ev_named(&h, FTFB_EV_TASKNAME, 11, 900, 900, "verylongprogram",
		 "verylongprogram");
	ev_switch(&h, 12, 0, 810, 805, FTFB_TASK_INTERRUPTIBLE, 120, 820, 820,
		  120);
	ev_named(&h, FTFB_EV_EXIT, 20, 820, 820, "late", "late");
	/* named already: nothing more is written */
	ev_named(&h, FTFB_EV_TASKNAME, 30, 810, 805, "other", "other");
	ev_named(&h, FTFB_EV_EXIT, 31, 810, 805, "other", "other");
	tr_finish(&h, 100);
	check_kobjs(&h, exp, sizeof(exp) / sizeof(exp[0]));
	assert_int_equal(h.t.st.lookups_failed, 1);
	assert_int_equal(h.t.st.named_by_kernel, 2);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, 1), 1);
	tr_free(&h);
}

/* 40,000 distinct thread names: more than the 32,767 string ids. Every
 * thread object still carries its own name. */
static void more_names_than_string_ids(void **state)
{
	enum { N = 40000 };
	struct ftfb_translator_opts o = {.expected_tasks = N};
	char name[16];
	size_t seen = 0;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 1, 1, "init", NULL);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "t%05u", i);
		tr_add(&h, 10000 + i, 1, name, NULL);
	}
	tr_finish(&h, 100);
	assert_true(h.t.st.temp_strings > 0);
	for (size_t i = 0; i < h.nrecs; i++) {
		const struct trec *r = &h.recs[i];

		if (r->type != FTF_REC_KERNEL_OBJECT || r->koid < 10000)
			continue;
		snprintf(name, sizeof(name), "t%05u",
			 (unsigned)(r->koid - 10000));
		assert_string_equal(r->name, name);
		seen++;
	}
	assert_int_equal(seen, N);
	tr_free(&h);
}

/* ---- drops ---- */

static void drops_become_a_counter(void **state)
{
	struct ftfb_translator_opts o = {0};
	uint64_t d[FTFB_EV_KIND_MAX] = {0};
	const struct trec *r;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	/* none lost: no counter (no empty track in Perfetto) */
	assert_int_equal(ftfb_translator_drops(&h.t, 100, d), 0);
	assert_int_equal(ftfb_translator_drops(&h.t, 150, d), 0);
	d[FTFB_EV_SWITCH] = 5;
	d[FTFB_EV_UENTRY] = 2;
	assert_int_equal(ftfb_translator_drops(&h.t, 200, d), 0);
	assert_int_equal(ftfb_translator_drops(&h.t, 250, d), 0); /* same */
	d[FTFB_EV_SWITCH] = 9;
	assert_int_equal(ftfb_translator_drops(&h.t, 300, d), 0);
	tr_finish(&h, 400);

	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_COUNTER), 2);
	r = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_COUNTER, 0);
	assert_string_equal(r->name, "ftf-bpf dropped events");
	assert_int_equal(r->ts, 200);
	assert_int_equal(tr_arg(r, "total")->i64, 7);
	assert_int_equal(tr_arg(r, "switch")->i64, 5);
	assert_int_equal(tr_arg(r, "uentry")->i64, 2);
	assert_null(tr_arg(r, "wakeup")); /* no loss: not listed */
	r = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_COUNTER, 1);
	assert_int_equal(r->ts, 300);
	assert_int_equal(tr_arg(r, "total")->i64, 11);
	assert_int_equal(tr_arg(r, "switch")->i64, 9);
	/* "records dropped" provider events: only when the total grew */
	assert_int_equal(
		tr_count(&h, FTF_REC_METADATA, FTF_META_PROVIDER_EVENT), 2);
	assert_int_equal(h.t.st.dropped_total, 11);
	tr_free(&h);
}

/* ---- robustness and time ---- */

static void unknown_and_short_events_are_skipped(void **state)
{
	struct ftfb_translator_opts o = {0};
	struct ftfb_switch sw;
	struct ftfb_hdr hd;
	size_t before;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_hdr(&hd, 99, 10, 0, 1, 1);
	assert_int_equal(ftfb_translator_event(&h.t, &hd, sizeof(hd)), 0);
	memset(&sw, 0, sizeof(sw));
	tr_hdr(&sw.hdr, FTFB_EV_SWITCH, 20, 0, 1, 1);
	assert_int_equal(ftfb_translator_event(&h.t, &sw, sizeof(sw) - 1), 0);
	assert_int_equal(ftfb_translator_event(&h.t, &sw, 3), 0);
	assert_int_equal(h.t.st.skipped, 3);
	assert_int_equal(h.t.st.events, 3);
	before = h.t.st.records;
	tr_finish(&h, 100);
	assert_int_equal(h.t.st.records, before);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, -1), 0);
	tr_free(&h);
}

static void mono_ns_map_to_ticks(void **state)
{
	struct ftfb_translator_opts o = {0};
	const struct trec *r;
	struct tr h;

	(void)state;
	/* 2 GHz ticks; tick 5000 at mono 1,000,000 ns */
	tr_setup_ex(&h, &o, 2000000000ull, 5000, 1000000, false, -1);
	tr_add(&h, 100, 100, "a", NULL);
	ev_switch(&h, 1000000 + 1000000, 0, 100, 100, 0, 120, 0, 0, 120);
	tr_finish(&h, 3000000);
	r = tr_nth(&h, FTF_REC_SCHED, 1, 0);
	assert_int_equal(r->ts, 5000 + 2000000);
	r = tr_nth(&h, FTF_REC_INIT, -1, 0);
	assert_int_equal(r->init_tps, 2000000000ull);
	tr_free(&h);

	/* --clock mono: the nanoseconds themselves */
	memset(&o, 0, sizeof(o));
	o.clock_mono = true;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "a", NULL);
	ev_switch(&h, 123456789, 0, 100, 100, 0, 120, 0, 0, 120);
	tr_finish(&h, 200000000);
	assert_int_equal(tr_nth(&h, FTF_REC_SCHED, 1, 0)->ts, 123456789);
	tr_free(&h);
}

static void tick_init_reemitted_each_second(void **state)
{
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup_ex(&h, &o, 1000000000ull, 0, 0, true, -1);
	tr_add(&h, 100, 100, "a", NULL);
	ev_switch(&h, 500000000, 0, 100, 100, 0, 120, 0, 0, 120);
	ev_switch(&h, 1500000000, 0, 100, 100, 0, 120, 0, 0, 120);
	ev_switch(&h, 1400000000, 1, 100, 100, 0, 120, 0, 0, 120); /* late */
	ev_switch(&h, 2700000000, 0, 100, 100, 0, 120, 0, 0, 120);
	tr_finish(&h, 2800000000);
	/* translator_init at clock 0, then at 1.5 s and 2.7 s */
	assert_int_equal(tr_count(&h, FTF_REC_INIT, -1), 3);
	assert_int_equal(tr_nth(&h, FTF_REC_INIT, -1, 0)->init_base, 0);
	assert_int_equal(tr_nth(&h, FTF_REC_INIT, -1, 1)->init_base,
			 1500000000);
	assert_int_equal(tr_nth(&h, FTF_REC_INIT, -1, 2)->init_base,
			 2700000000);
	assert_int_equal(tr_count(&h, FTF_REC_SCHED, 1), 4);
	tr_free(&h);
}

/* A destination that fills up: the translator returns the writer's error
 * (no crash, no partial record), and what was written reads back whole. */
static void full_destination_is_an_error(void **state)
{
	static uint8_t array[4096];
	struct ftf_writer_options wo = {0};
	struct ftfb_translator_opts o = {0};
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftfb_translator t;
	struct ftf_clock c;
	struct ftf_reader rd;
	struct ftf_record rec;
	struct ftfb_switch e;
	int err = 0, rc, i, nsched = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.source = FTF_CLOCK_MONO;
	c.ticks_per_second = 1000000000ull;
	ftf_dest_mem_init_fixed(&m, array, sizeof(array));
	wo.clock = &c;
	wo.no_refresh_buf_at_intervals = true;
	assert_int_equal(ftf_writer_init(&w, &m.base, &wo), 0);
	o.w = &w;
	assert_int_equal(ftfb_translator_init(&t, &o), 0);
	memset(&e, 0, sizeof(e));
	e.hdr.kind = FTFB_EV_SWITCH;
	e.hdr.tid = 0;
	e.next_tid = 0;
	for (i = 0; i < 200 && !err; i++) {
		e.hdr.ts = 1000 + (uint64_t)i;
		err = ftfb_translator_event(&t, &e, sizeof(e));
	}
	assert_true(err < 0);
	assert_true(i > 10 && i < 4096 / 48 + 1);
	/* later calls fail the same way, without writing */
	assert_true(ftfb_translator_event(&t, &e, sizeof(e)) < 0);
	ftf_writer_close(&w);
	assert_int_equal(ftf_reader_init(&rd, array, m.len), 0);
	while ((rc = ftf_reader_next(&rd, &rec)) == 1)
		if (rec.type == FTF_REC_SCHED)
			nsched++;
	assert_int_equal(rc, 0);
	assert_int_equal(nsched, i - 1);
	ftf_reader_free(&rd);
	ftfb_translator_free(&t);
}

/* UTF-8: a character cut at the end is dropped, whole ones kept. Bytes
 * from the encoding (RFC 3629): "☃" is E2 98 83, "é" C3 A9, "😀" F0 9F
 * 98 80. */
static void utf8_cut_characters_are_dropped(void **state)
{
	(void)state;
	assert_int_equal(ftfb_utf8_whole("ab\xe2\x98\x83", 5), 5);
	assert_int_equal(ftfb_utf8_whole("ab\xe2\x98\x83", 4), 2);
	assert_int_equal(ftfb_utf8_whole("ab\xe2\x98\x83", 3), 2);
	assert_int_equal(ftfb_utf8_whole("\xc3\xa9", 1), 0);
	assert_int_equal(ftfb_utf8_whole("\xc3\xa9", 2), 2);
	assert_int_equal(ftfb_utf8_whole("x\xf0\x9f\x98\x80", 4), 1);
	assert_int_equal(ftfb_utf8_whole("x\xf0\x9f\x98\x80", 5), 5);
	assert_int_equal(ftfb_utf8_whole("plain", 5), 5);
}

/* A comm the kernel cut at 15 bytes in the middle of a character
 * ("ab" and five snowmen is 17 bytes: 15 leave one byte of the fifth) is
 * named without the cut byte, which Perfetto showed as a replacement
 * character. */
static void cut_comm_names_whole_characters(void **state)
{
	struct ftfb_translator_opts o = {0};
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "ab\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83"
			     "\xe2\x98\x83\xe2", NULL);
	tr_finish(&h, 5000);
	assert_string_equal(tr_kobj_name(&h, 2, 100),
			    "ab\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83");
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(state_maps_to_ftf_state),
		cmocka_unit_test(switch_weights_and_idle),
		cmocka_unit_test(stale_cpu_task_is_ended),
		cmocka_unit_test(task_taken_by_another_cpu_is_ended),
		cmocka_unit_test(cmdline_as_process_tree),
		cmocka_unit_test(unfollowed_incoming_is_idle),
		cmocka_unit_test(wakeup_has_waker),
		cmocka_unit_test(names_from_start_fork_exec_rename),
		cmocka_unit_test(non_leader_exec_takes_leader_tid),
		cmocka_unit_test(unchanged_names_are_not_rewritten),
		cmocka_unit_test(first_seen_tids_are_looked_up),
		cmocka_unit_test(names_from_the_kernel_when_proc_is_gone),
		cmocka_unit_test(more_names_than_string_ids),
		cmocka_unit_test(drops_become_a_counter),
		cmocka_unit_test(unknown_and_short_events_are_skipped),
		cmocka_unit_test(mono_ns_map_to_ticks),
		cmocka_unit_test(tick_init_reemitted_each_second),
		cmocka_unit_test(full_destination_is_an_error),
		cmocka_unit_test(utf8_cut_characters_are_dropped),
		cmocka_unit_test(cut_comm_names_whole_characters),
	};

	return cmocka_run_group_tests_name("translate", tests, NULL, NULL);
}
