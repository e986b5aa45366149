/* SPDX-License-Identifier: MIT */
/*
 * sched_records.h - a context switch or a wakeup as FTF records, written
 * whole into a writer: what the translator does with them, and what a
 * shard (ring_shard.h) does on its own thread for the rings it reads. Knows no
 * task table: the caller names the tasks (the translator creates them,
 * a shard tells the translator it saw them). Inline: it is the hot path
 * of a scheduling trace.
 */
#ifndef FTFB_SCHED_RECORDS_H
#define FTFB_SCHED_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "ftf/reader.h" /* FTF_ARG_KOID */

#include "arg_words.h"
#include "events.h"
#include "ftf/writer.h"
#include "ticks.h"

/* Per CPU: the task the last switch put on it (tid + 1, 0: none to end
 * later: idle, unfollowed or not seen yet) and its prio. */
#define FTFB_TR_MAX_CPUS 1024
struct ftfb_cpu_on {
	uint32_t tid_plus1;
	int32_t prio;
};

struct ftfb_sched_rec {
	struct ftf_writer *w;
	struct ftfb_ticks *tk; /* (its second cache changes) */
	/* argument names, interned by the translator's writer (a shard's
	 * writer defines no strings: it uses these) */
	int s_incoming_weight, s_outgoing_weight, s_waker;
	uint64_t *records;  /* bumped per record written */
	uint64_t *repaired; /* bumped per missing switch-out repaired */
	uint32_t ncpus;	    /* 1 + the highest CPU a switch put a task on */
	struct ftfb_cpu_on cpu_on[FTFB_TR_MAX_CPUS];
};

/* The missing switch-outs a switch repairs before it is written (see
 * ftfb_sched_repairs_of): `here`, of the task its own CPU's last switch
 * put there; `elsewhere`, the CPU (-1: none) whose last switch put its
 * incoming task there. */
struct ftfb_sched_repairs {
	bool here;
	int elsewhere;
};


/* A switch's prev_state as FTF's thread state. */
static inline enum ftf_thread_state ftfb_state_of(uint32_t s)
{
	if (s & FTFB_PREEMPTED)
		return FTF_THREAD_RUNNING;
	if (s & FTFB_EXIT_DEAD)
		return FTF_THREAD_DEAD;
	if (s & FTFB_EXIT_ZOMBIE)
		return FTF_THREAD_DYING;
	if (s & FTFB_TASK_DEAD)
		return FTF_THREAD_DEAD;
	if (s & (FTFB_TASK_STOPPED | FTFB_TASK_TRACED))
		return FTF_THREAD_SUSPENDED;
	/* S, D (also D|NOLOAD = idle, D|WAKEKILL = killable), parked */
	if (s & (FTFB_TASK_INTERRUPTIBLE | FTFB_TASK_UNINTERRUPTIBLE |
		 FTFB_TASK_PARKED | FTFB_TASK_NOLOAD))
		return FTF_THREAD_BLOCKED;
	/* 0 (TASK_RUNNING) and transient bits (WAKING, NEW) alone */
	return FTF_THREAD_RUNNING;
}

/* A task's weight argument: its kernel prio (INT32_MIN for the idle task). */
static inline int32_t ftfb_weight_of(uint32_t tid, int prio)
{
	if (tid == 0)
		return INT32_MIN;
	/* Perfetto stores it as the CPU slice's priority and, like Linux,
	 * reads below 100 as real-time: the kernel's own number reads right */
	return prio;
}

/* (ftfb__: this header's own helpers) */
static inline int ftfb__write_switch(struct ftfb_sched_rec *r, uint64_t ns,
				     uint16_t cpu,
				     enum ftf_thread_state out_state,
				     uint32_t out_tid, int32_t out_weight,
				     uint32_t in_tid, int32_t in_weight)
{
	uint8_t *p;
	int err = ftf_reserve_record(r->w, 6, &p);

	if (err)
		return err;
	ftf_record_put(p, 0, ftf_context_switch_header(6, 2, cpu, out_state));
	ftf_record_put(p, 1, ftfb_ticks_of(r->tk, ns));
	ftf_record_put(p, 2, out_tid);
	ftf_record_put(p, 3, in_tid);
	ftf_record_put(p, 4, arg_int32_word(r->s_incoming_weight, in_weight));
	ftf_record_put(p, 5, arg_int32_word(r->s_outgoing_weight, out_weight));
	(*r->records)++;
	return 0;
}

/* The CPU other than e's (-1: none) whose last switch put e's incoming
 * task there: a task runs on one CPU at a time, and the kernel ends its
 * run on one (the switch-out's BPF program has returned) before another
 * CPU's switch can take it, so the ring holds the switch-out first when
 * it holds one at all. A scan of the CPUs seen: 2 to a few hundred
 * words, per switch. */
static inline int ftfb__cpu_holding(const struct ftfb_sched_rec *r,
				    const struct ftfb_switch *e)
{
	uint32_t want = e->next_tid + 1;

	if (!e->next_tid || (e->prev_state & FTFB_NEXT_UNFOLLOWED))
		return -1;
	for (uint32_t c = 0; c < r->ncpus; c++)
		if (r->cpu_on[c].tid_plus1 == want && c != e->hdr.cpu)
			return (int)c;
	return -1;
}

/*
 * The kernel sometimes reports no switch-out for a task (perf and
 * bpftrace show the same gaps; on this project's VM, mostly the guest
 * agent's threads): the next switch on that CPU then starts from another
 * task, or another CPU's switch takes the task in. Perfetto keeps one
 * open CPU slice per thread, closed by the thread's next switch-out:
 * without one, the task put there last would run to the end of the trace,
 * and a second switch-in (on any CPU) would leave the first slice open
 * for good. So the switch e first ends, with a switch to idle (drawn as
 * nothing), the task its own CPU's last switch put there if that is not
 * e's outgoing task, and its incoming task on the CPU that last took it.
 * The idle task then appears in the trace (the caller names it first:
 * ftfb_sched_repairs_any).
 */
static inline struct ftfb_sched_repairs
ftfb_sched_repairs_of(const struct ftfb_sched_rec *r,
		      const struct ftfb_switch *e)
{
	struct ftfb_sched_repairs rep = {false, -1};
	const struct ftfb_cpu_on *on;

	if (e->hdr.cpu >= FTFB_TR_MAX_CPUS)
		return rep;
	on = &r->cpu_on[e->hdr.cpu];
	rep.here = on->tid_plus1 && on->tid_plus1 != e->hdr.tid + 1;
	rep.elsewhere = ftfb__cpu_holding(r, e);
	return rep;
}

static inline bool ftfb_sched_repairs_any(struct ftfb_sched_repairs rep)
{
	return rep.here || rep.elsewhere >= 0;
}

/* End the task CPU cpu's last switch put there: a switch to idle 1 ns
 * before e (at the same time, Perfetto's sorting may take the real
 * switch first and leave the old slice open: seen in CI). Its real state
 * then is unknown: it is written as preempted (Perfetto: Runnable), what
 * it was last seen doing. The CPU then holds no task to end. */
static inline int ftfb__end_stale_task(struct ftfb_sched_rec *r,
				       const struct ftfb_switch *e,
				       uint32_t cpu)
{
	struct ftfb_cpu_on *on = &r->cpu_on[cpu];
	int err;

	err = ftfb__write_switch(r, e->hdr.ts ? e->hdr.ts - 1 : 0,
				 (uint16_t)cpu, FTF_THREAD_RUNNING,
				 on->tid_plus1 - 1,
				 ftfb_weight_of(on->tid_plus1 - 1, on->prio),
				 0, INT32_MIN);
	if (!err) {
		(*r->repaired)++;
		on->tid_plus1 = 0;
	}
	return err;
}

static inline void ftfb__remember_cpu_task(struct ftfb_sched_rec *r,
					   const struct ftfb_switch *e,
					   bool unfollowed)
{
	struct ftfb_cpu_on *on;

	if (e->hdr.cpu >= FTFB_TR_MAX_CPUS)
		return;
	on = &r->cpu_on[e->hdr.cpu];
	on->tid_plus1 = (unfollowed || !e->next_tid) ? 0 : e->next_tid + 1;
	on->prio = e->next_prio;
	if (e->hdr.cpu >= r->ncpus)
		r->ncpus = e->hdr.cpu + 1u;
}

/* The switch (and the repairs before it: `rep`, what
 * ftfb_sched_repairs_of() said of e, which the caller asks first to
 * name the idle task), then the CPU remembers its new task. 0 or the
 * writer's negative error. */
static inline int ftfb_sched_switch(struct ftfb_sched_rec *r,
				    const struct ftfb_switch *e,
				    struct ftfb_sched_repairs rep)
{
	bool unfollowed = e->prev_state & FTFB_NEXT_UNFOLLOWED;
	int err = 0;

	if (rep.here)
		err = ftfb__end_stale_task(r, e, e->hdr.cpu);
	if (!err && rep.elsewhere >= 0)
		err = ftfb__end_stale_task(r, e, (uint32_t)rep.elsewhere);
	if (!err)
		err = ftfb__write_switch(
			r, e->hdr.ts, e->hdr.cpu, ftfb_state_of(e->prev_state),
			e->hdr.tid, ftfb_weight_of(e->hdr.tid, e->prev_prio),
			e->next_tid,
			unfollowed ? INT32_MIN
				   : ftfb_weight_of(e->next_tid, e->next_prio));
	if (!err)
		ftfb__remember_cpu_task(r, e, unfollowed);
	return err;
}

/* A wakeup (or a new task's first), with its waker's tid. */
static inline int ftfb_sched_wakeup(struct ftfb_sched_rec *r,
				    const struct ftfb_wakeup *e)
{
	uint8_t *p;
	/* No `weight` arg: Perfetto reads it only to skip wakeups of the
	 * idle task, which never happen; 8 bytes saved per wakeup. */
	int err = ftf_reserve_record(r->w, 5, &p);

	if (err)
		return err;
	ftf_record_put(p, 0, ftf_thread_wakeup_header(5, 1, e->hdr.cpu));
	ftf_record_put(p, 1, ftfb_ticks_of(r->tk, e->hdr.ts));
	ftf_record_put(p, 2, e->target_tid);
	ftf_record_put(p, 3, ftf_arg_word(FTF_ARG_KOID, 2, r->s_waker));
	ftf_record_put(p, 4, e->hdr.tid);
	(*r->records)++;
	return 0;
}

#endif
