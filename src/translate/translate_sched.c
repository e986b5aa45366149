// SPDX-License-Identifier: MIT
/*
 * translate_sched.c - context switches and wakeups: their tasks named first,
 * then written by sched_records.h's writer.
 */
#include <string.h>

#include "translate_priv.h"

/* The writer's clock as ticks.h maps to it, and the switch and wakeup
 * writer over the same writer (its names are interned at init). */
void ftfb_tr_sched_init(struct ftfb_translator *t)
{
	ftfb_ticks_init(&t->tk, ftf_writer_clock(t->w), t->o.clock_mono);
	t->sched.w = t->w;
	t->sched.tk = &t->tk;
	t->sched.records = &t->st.records;
	t->sched.repaired = &t->st.switches_repaired;
}

static int on_switch(struct ftfb_translator *t, const struct ftfb_switch *e)
{
	struct ftfb_sched_repairs rep = ftfb_sched_repairs_of(&t->sched, e);
	struct ftfb_task *prev, *next, *idle;
	int err;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &prev);
	if (!err)
		err = ftfb_tr_ensure_task(t, e->next_tid, e->next_tgid, &next);
	/* (the idle task a repair switches to is named like any task the
	 * trace shows: "swapper") */
	if (!err && ftfb_sched_repairs_any(rep))
		err = ftfb_tr_ensure_task(t, 0, 0, &idle);
	if (!err)
		next->ran = true; /* its title may have changed: look */
	return err ? err : ftfb_sched_switch(&t->sched, e, rep);
}

static int on_wakeup(struct ftfb_translator *t, const struct ftfb_wakeup *e)
{
	struct ftfb_task *waker, *target;
	int err;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &waker);
	if (!err)
		err = ftfb_tr_ensure_task(t, e->target_tid, e->target_tgid,
					  &target);
	if (!err)
		target->ran = true; /* (--rings: switches may go to ring shards) */
	return err ? err : ftfb_sched_wakeup(&t->sched, e);
}

int ftfb_tr_ev_switch(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_switch, e, data);
	(void)size;
	return on_switch(t, &e);
}

int ftfb_tr_ev_wakeup(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_wakeup, e, data);
	(void)size;
	return on_wakeup(t, &e);
}
