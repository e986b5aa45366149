// SPDX-License-Identifier: MIT
/*
 * sched_records.c - context switches and wakeups as FTF records (see
 * sched_records.h).
 */
#include "arg_words.h"
#include "sched_records.h"
#include "translate.h"

static int write_switch(struct ftfb_sched_rec *r, uint64_t ns, uint16_t cpu,
			enum ftf_thread_state out_state, uint32_t out_tid,
			int32_t out_weight, uint32_t in_tid, int32_t in_weight)
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

bool ftfb_sched_needs_repair(const struct ftfb_sched_rec *r,
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
 * draws as nothing) before the real one. Its real state then is unknown:
 * it is written as preempted (Perfetto: Runnable), what it was last seen
 * doing. The idle task, and an unfollowed task (-p), need no end.
 */
static int end_stale_task(struct ftfb_sched_rec *r,
			  const struct ftfb_switch *e)
{
	const struct ftfb_cpu_on *on = &r->cpu_on[e->hdr.cpu];
	int err;

	err = write_switch(r, e->hdr.ts, e->hdr.cpu, FTF_THREAD_RUNNING,
			   on->tid_plus1 - 1,
			   ftfb_weight_of(on->tid_plus1 - 1, on->prio), 0,
			   INT32_MIN);
	if (!err)
		(*r->repaired)++;
	return err;
}

static void remember_cpu_task(struct ftfb_sched_rec *r,
			      const struct ftfb_switch *e, bool unfollowed)
{
	struct ftfb_cpu_on *on;

	if (e->hdr.cpu >= FTFB_TR_MAX_CPUS)
		return;
	on = &r->cpu_on[e->hdr.cpu];
	on->tid_plus1 = (unfollowed || !e->next_tid) ? 0 : e->next_tid + 1;
	on->prio = e->next_prio;
}

int ftfb_sched_switch(struct ftfb_sched_rec *r, const struct ftfb_switch *e)
{
	bool unfollowed = e->prev_state & FTFB_NEXT_UNFOLLOWED;
	int err = 0;

	if (ftfb_sched_needs_repair(r, e))
		err = end_stale_task(r, e);
	if (!err)
		err = write_switch(r, e->hdr.ts, e->hdr.cpu,
				   ftfb_state_of(e->prev_state), e->hdr.tid,
				   ftfb_weight_of(e->hdr.tid, e->prev_prio),
				   e->next_tid,
				   unfollowed ? INT32_MIN
					      : ftfb_weight_of(e->next_tid,
							       e->next_prio));
	if (!err)
		remember_cpu_task(r, e, unfollowed);
	return err;
}

int ftfb_sched_wakeup(struct ftfb_sched_rec *r, const struct ftfb_wakeup *e)
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
