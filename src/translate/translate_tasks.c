// SPDX-License-Identifier: MIT
/*
 * translate_tasks.c - the translator's tasks: made when first seen (from
 * the lookup, or from what an event says), with their process and thread
 * records, and their thread refs. The core the other parts call: what a
 * task leaves open when it is made again is ended through the hook the
 * translator sets (t->close_task), never by a call up into them.
 */
#include <errno.h>
#include <string.h>

#include "translate.h"
#include "translate_priv.h"

/* A task of a traced process (opts.strangers_apart; all are without):
 * the idle task, one the caller says is (scan, fork), a thread of a
 * traced process. */
static bool is_traced(struct ftfb_translator *t,
		      const struct ftfb_task_info *ti)
{
	struct ftfb_task *l;

	if (!t->o.strangers_apart || !ti->tid || t->adding_traced)
		return true;
	l = ti->tgid != ti->tid ? ftfb_pt_find(&t->pt, ti->tgid) : NULL;
	return l && l->traced;
}

/* Creates the entry for a task and writes its kernel objects. */
int ftfb_tr_new_task(struct ftfb_translator *t, const struct ftfb_task_info *ti,
		     struct ftfb_task **out)
{
	struct ftfb_task *k = ftfb_pt_find(&t->pt, ti->tid);
	/* (declared again by its exec, say: still traced) */
	bool was_traced = k && k->traced && k->tgid == ti->tgid;
	int err;

	/* A task declared again: whatever it had open ends now. */
	if (k) {
		err = t->close_task(t, k, t->last_ts);
		if (err)
			return err;
	}
	ftfb_pt_remove(&t->pt, ti->tid);
	k = ftfb_pt_insert(&t->pt, ti->tid);
	if (!k)
		return -ENOMEM;
	k->tgid = ti->tgid;
	k->traced = was_traced || is_traced(t, ti);
	ftfb_tr_set_comm(k->comm, ti->comm);
	if (ti->tid == ti->tgid)
		ftfb_tr_set_pname(k->pname, ti->process_name);
	if (ti->tid == ti->tgid) {
		k->cmdline_told = ti->cmdline_len != 0;
		err = ftfb_tr_write_process(t, k);
		if (!err)
			err = ftfb_tr_write_cmdline(t, ti);
		if (err)
			return err;
	}
	err = ftfb_tr_write_thread(t, k);
	if (err)
		return err;
	if (out)
		*out = k;
	return 0;
}

/* A task the lookup found (ti), after its process's leader. Takes ti as
 * found: a second lookup could find the task gone (seen: nameless
 * tasks in a trace). */
int ftfb_tr_add_found_task(struct ftfb_translator *t,
			   const struct ftfb_task_info *ti,
			   struct ftfb_task **out)
{
	if (ti->tgid != ti->tid && !ftfb_pt_find(&t->pt, ti->tgid)) {
		struct ftfb_task *leader;
		int err = ftfb_tr_ensure_task(t, ti->tgid, ti->tgid, &leader);

		if (err)
			return err;
	}
	return ftfb_tr_new_task(t, ti, out);
}

/*
 * The entry for tid, not known yet: resolved through the lookup function,
 * else from what the event says (tgid_hint) with no name.
 */
int ftfb_tr_add_task(struct ftfb_translator *t, uint32_t tid,
		     uint32_t tgid_hint, struct ftfb_task **out)
{
	struct ftfb_task_info ti;
	bool found;

	memset(&ti, 0, sizeof(ti));
	found = tid != 0 && t->o.lookup &&
		t->o.lookup(t->o.lookup_ctx, tid, &ti) == 0;
	if (!found) {
		/* Gone already (or the idle task): what the event says, no
		 * name; its process stays as unknown as the thread. */
		if (tid != 0)
			t->st.lookups_failed++;
		memset(&ti, 0, sizeof(ti));
		ti.tgid = tid == 0 ? 0 : tgid_hint;
		/* The idle task gets kernel objects too (process and thread
		 * 0, "swapper"): Perfetto then puts wakeups from an idle cpu
		 * (waker 0) on its swapper thread, not on a nameless thread
		 * of no process. */
		if (tid == 0)
			memcpy(ti.comm, "swapper", sizeof("swapper"));
		/* Perfetto's importer puts the threads of no process (the
		 * strangers, opts.strangers_apart) in process 0: say so */
		if (tid == 0 && t->o.strangers_apart)
			ftfb_tr_set_pname(ti.process_name,
					  "not traced (shared a CPU)");
	}
	ti.tid = tid;
	if (ti.tgid == 0)
		ti.tgid = tid;
	if (found)
		return ftfb_tr_add_found_task(t, &ti, out);
	return ftfb_tr_new_task(t, &ti, out);
}

/* The thread ref (1..255) of a task that has no slot: the least recently
 * used one (LRU), announced with a thread record. */
int ftfb_tr_thread_ref_new(struct ftfb_translator *t, struct ftfb_task *k)
{
	int s, ref;

	s = ftfb_pt_slot_take(&t->pt, k);
	ref = ftf_set_thread_slot(t->w, s, k->tgid, k->tid);
	if (ref < 0) {
		k->slot = (int16_t)s;
		ftfb_pt_slot_release(&t->pt, k);
		return ref;
	}
	t->st.records++;
	k->slot = (int16_t)s;
	return ref;
}

int ftfb_translator_add_task(struct ftfb_translator *t,
			     const struct ftfb_task_info *ti)
{
	struct ftfb_task_info c = *ti;
	struct ftfb_task *leader;
	int err;

	if (c.tgid == 0)
		c.tgid = c.tid;
	t->adding_traced = true; /* (the scan's: the traced ones) */
	if (c.tgid != c.tid && !ftfb_pt_find(&t->pt, c.tgid))
		err = ftfb_tr_ensure_task(t, c.tgid, c.tgid, &leader);
	else
		err = 0;
	if (!err)
		err = ftfb_tr_new_task(t, &c, NULL);
	t->adding_traced = false;
	return err;
}
