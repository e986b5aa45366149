// SPDX-License-Identifier: MIT
/*
 * translate_titles.c - titles a process sets after the trace began: it
 * writes over its argv (PostgreSQL's backends, nginx's workers,
 * setproctitle), with no system call and no event. A forked process
 * starts with its parent's name; its title is read from /proc (through
 * opts.lookup) now and then, for the processes that ran since their last
 * look, a bounded number at a time, and at the finish for every live
 * one. Nothing is done per event but a flag set on the task switched in
 * or woken.
 */
#include <stdio.h>
#include <string.h>

#include "translate_priv.h"

/* What the process is named by (translate_names.c's rule, here on a
 * copy): its title, else its comm, else its cmdline's basename when the
 * comm is cut. */
static void shown_name(const struct ftfb_task *k, char *out, size_t cap)
{
	const char *s = k->comm;

	if (k->pname[0] &&
	    (strlen(k->comm) == FTFB_COMM_LEN - 1 || strchr(k->pname, ' ')))
		s = k->pname;
	snprintf(out, cap, "%s", s);
}

/* The leaders of the processes whose threads ran: due for a look. */
static void mark_due(struct ftfb_translator *t, bool all)
{
	struct ftfb_proctable *pt = &t->pt;

	for (size_t i = 0; i < pt->idx_cap; i++) {
		struct ftfb_task *k = pt->idx[i].task, *l;

		if (!k || !(k->ran || all))
			continue;
		k->ran = false;
		l = k->tid == k->tgid ? k : ftfb_pt_find(pt, k->tgid);
		if (l && l->traced && !l->exited && !l->no_title && l->tid &&
		    l->tid < FTFB_PSEUDO_IRQ_PID)
			l->title_due = true;
	}
}

/* Reads leader k's command line again: a new name (or a command line
 * never written, a forked process's) goes to the trace. */
static int look_at(struct ftfb_translator *t, struct ftfb_task *k)
{
	struct ftfb_task_info ti;
	char before[FTFB_PT_PNAME_LEN], after[FTFB_PT_PNAME_LEN];
	uint32_t tgid = k->tgid;
	int err = 0;

	memset(&ti, 0, sizeof(ti));
	/* gone, another image (its exec event says so), or another
	 * process with the pid: nothing to say here */
	if (t->o.lookup(t->o.lookup_ctx, tgid, &ti) || ti.tgid != tgid ||
	    strncmp(ti.comm, k->comm, FTFB_COMM_LEN))
		return 0;
	if (!ti.cmdline_len) {
		k->no_title = true; /* a kernel thread: never one */
		return 0;
	}
	shown_name(k, before, sizeof(before));
	ftfb_tr_set_pname(k->pname, ti.process_name);
	shown_name(k, after, sizeof(after));
	if (strcmp(before, after)) {
		err = ftfb_tr_write_process(t, k);
		if (err)
			return err;
	} else if (k->cmdline_told) {
		return 0;
	}
	ti.tid = tgid;
	err = ftfb_tr_write_cmdline(t, &ti);
	if (!err)
		k->cmdline_told = true;
	return err;
}

int ftfb_translator_titles(struct ftfb_translator *t, size_t budget, bool all)
{
	struct ftfb_proctable *pt = &t->pt;
	size_t cap = pt->idx_cap;
	int err = 0;

	if (!t->o.lookup || !cap)
		return 0;
	mark_due(t, all);
	/* the processes forked while tracing first (never looked at: their
	 * titles are new, and a server's workers may live briefly), then
	 * from where the last round stopped, so no process waits for ever
	 * behind others that run all the time */
	for (int pass = 0; pass < 2; pass++)
		for (size_t n = 0; n < cap && budget && !err; n++) {
			size_t i = (t->title_cursor + n) % cap;
			struct ftfb_task *k = pt->idx[i].task;

			if (!k || !k->title_due || (!pass && k->cmdline_told))
				continue;
			k->title_due = false;
			budget--;
			if (pass)
				t->title_cursor = i + 1;
			err = look_at(t, k);
		}
	return err;
}
