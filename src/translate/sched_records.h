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
	struct ftfb_cpu_on cpu_on[FTFB_TR_MAX_CPUS];
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

/* The switch e will first end the task the CPU's last switch put there
 * (the kernel reported no switch-out for it): the idle task, tid 0,
 * appears in the trace then. */
static inline bool ftfb_sched_needs_repair(const struct ftfb_sched_rec *r,
					   const struct ftfb_switch *e)
{
	const struct ftfb_cpu_on *on;

	if (e->hdr.cpu >= FTFB_TR_MAX_CPUS)
		return false;
	on = &r->cpu_on[e->hdr.cpu];
	return on->tid_plus1 && on->tid_plus1 != e->hdr.tid + 1;
}

/*
 * The kernel sometimes reports no switch-out for a task (perf shows the
 * same gaps): the next switch on that CPU then starts from another task,
 * and Perfetto would leave the task put there last running to the end of
 * the trace. End it at this switch, with a switch to idle (which Perfetto
 * draws as nothing) 1 ns before the real one (at the same time,
 * Perfetto's sorting may take the real switch first and leave the old
 * slice open: seen in CI). Its real state then is unknown: it is written
 * as preempted (Perfetto: Runnable), what it was last seen doing. The
 * idle task, and an unfollowed task (-p), need no end.
 */
static inline int ftfb__end_stale_task(struct ftfb_sched_rec *r,
					const struct ftfb_switch *e)
{
	const struct ftfb_cpu_on *on = &r->cpu_on[e->hdr.cpu];
	int err;

	err = ftfb__write_switch(r, e->hdr.ts ? e->hdr.ts - 1 : 0, e->hdr.cpu,
				 FTF_THREAD_RUNNING,
				 on->tid_plus1 - 1,
				 ftfb_weight_of(on->tid_plus1 - 1, on->prio),
				 0, INT32_MIN);
	if (!err)
		(*r->repaired)++;
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
}

/* The switch (and its repair before it: `repair`, what
 * ftfb_sched_needs_repair() said of e, which the caller asks first to
 * name the idle task), then the CPU remembers its new task. 0 or the
 * writer's negative error. */
static inline int ftfb_sched_switch(struct ftfb_sched_rec *r,
				    const struct ftfb_switch *e, bool repair)
{
	bool unfollowed = e->prev_state & FTFB_NEXT_UNFOLLOWED;
	int err = 0;

	if (repair)
		err = ftfb__end_stale_task(r, e);
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
