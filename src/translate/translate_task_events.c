// SPDX-License-Identifier: MIT
/*
 * translate_task_events.c - the scheduler's task events: forked, exec'd,
 * renamed, named by the kernel, exited; what a task leaves open (its
 * system call, USDT slices, calls) ends with it (ftfb_tr_close_all, also
 * the core's hook t->close_task). Tasks themselves: translate_tasks.c.
 */
#include <errno.h>
#include <string.h>

#include "maps_memo.h"
#include "translate.h"
#include "translate_priv.h"
#include "stackprof.h"

int ftfb_tr_close_all(struct ftfb_translator *t, struct ftfb_task *k,
		      uint64_t ns)
{
	int serr = ftfb_tr_end_syscall(t, k, ns, SYS_END_UNFINISHED, 0);

	if (!serr)
		serr = ftfb_tr_usdt_close(t, k, ns);
	if (serr)
		return serr;
	while (k->depth > 0) {
		int err = ftfb_tr_end_frame(t, k, ns, false, 0);

		if (err)
			return err;
	}
	k->overflow = 0;
	k->overflow_sp = 0;
	k->tail_sp = 0;
	return 0;
}

static int on_fork(struct ftfb_translator *t, const struct ftfb_fork *e)
{
	struct ftfb_task_info ti;
	struct ftfb_task *parent, *old;
	int err;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &parent);
	if (err)
		return err;
	/* A reused tid: whatever the old thread left open ends now. */
	old = ftfb_pt_find(&t->pt, e->child_tid);
	if (old) {
		err = ftfb_tr_close_all(t, old, e->hdr.ts);
		if (err)
			return err;
	}
	memset(&ti, 0, sizeof(ti));
	ti.tid = e->child_tid;
	ti.tgid = e->child_tgid ? e->child_tgid : e->child_tid;
	ftfb_tr_set_comm(ti.comm, e->comm);
	if (ti.tid == ti.tgid) {
		/* A new process runs the parent's program: same cmdline. */
		struct ftfb_task *pl = ftfb_pt_find(&t->pt, parent->tgid);

		if (pl && !strcmp(pl->comm, ti.comm))
			ftfb_tr_set_pname(ti.process_name, pl->pname);
	} else if (!ftfb_pt_find(&t->pt, ti.tgid)) {
		struct ftfb_task *leader;

		t->adding_traced = parent->traced;
		err = ftfb_tr_ensure_task(t, ti.tgid, ti.tgid, &leader);
		t->adding_traced = false;
		if (err)
			return err;
	}
	t->adding_traced = parent->traced;
	err = ftfb_tr_new_task(t, &ti, NULL);
	t->adding_traced = false;
	return err;
}

static int on_exec(struct ftfb_translator *t, const struct ftfb_comm_ev *e)
{
	struct ftfb_task_info ti, li;
	struct ftfb_task *k;
	int err = 0;

	/* The exec'ing thread's open calls never return (new image). */
	k = ftfb_pt_find(&t->pt, e->old_tid);
	if (k)
		err = ftfb_tr_end_syscall_never_returning(t, k, e->hdr.ts,
							  true);
	if (k && !err) {
		err = ftfb_tr_close_all(t, k, e->hdr.ts);
		if (err)
			return err;
	}
	k = ftfb_pt_find(&t->pt, e->hdr.tid);
	if (k) {
		err = ftfb_tr_close_all(t, k, e->hdr.ts);
		if (err)
			return err;
	}
	if (e->old_tid != e->hdr.tid)
		ftfb_pt_remove(&t->pt, e->old_tid);
	memset(&ti, 0, sizeof(ti));
	ti.tid = e->hdr.tid;
	ti.tgid = e->hdr.tgid ? e->hdr.tgid : e->hdr.tid;
	ftfb_tr_set_comm(ti.comm, e->comm);
	/* The new cmdline: Perfetto's process details, and the name when
	 * comm is truncated (if /proc still shows this image) */
	if (t->o.lookup) {
		memset(&li, 0, sizeof(li));
		if (!t->o.lookup(t->o.lookup_ctx, ti.tid, &li) &&
		    !strncmp(li.comm, ti.comm, FTFB_COMM_LEN)) {
			if (strlen(ti.comm) == FTFB_COMM_LEN - 1 ||
			    strchr(li.process_name, ' '))
				ftfb_tr_set_pname(ti.process_name,
						  li.process_name);
			memcpy(ti.cmdline, li.cmdline, sizeof(ti.cmdline));
			ti.cmdline_len = li.cmdline_len;
		}
	}
	/* The rename that exec does came first: if it already said all this,
	 * keep the entry (its thread slot too) and write nothing. */
	k = ftfb_pt_find(&t->pt, ti.tid);
	if (k && k->named && !k->exited && k->tgid == ti.tgid &&
	    !strcmp(k->comm, ti.comm) && !strcmp(k->pname, ti.process_name))
		return ftfb_tr_write_cmdline(
			t, &ti); /* (only the new image says it) */
	return ftfb_tr_new_task(t, &ti, NULL);
}

static int on_rename(struct ftfb_translator *t, const struct ftfb_comm_ev *e)
{
	struct ftfb_task *k;
	int err;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
	if (err)
		return err;
	/* exec renames too (same name as its exec event): write once */
	if (k->named && !strncmp(k->comm, e->comm, FTFB_COMM_LEN - 1))
		return 0;
	ftfb_tr_set_comm(k->comm, e->comm);
	if (k->tid == k->tgid) {
		k->pname[0] = '\0';
		err = ftfb_tr_write_process(t, k);
		if (err)
			return err;
	}
	return ftfb_tr_write_thread(t, k);
}

/*
 * Names task tid from what the kernel said (its comm and its process's,
 * the group leader's) if the trace holds it without a name: first seen in
 * a switch or wakeup when its /proc entry was already gone. With `create`
 * (the names come before the switch that shows the task) an unknown task
 * is created: from /proc if it is still there (which may know the whole
 * cmdline), else from these names. A named task is left alone.
 */
static int name_task(struct ftfb_translator *t, uint32_t tid, uint32_t tgid,
		     const char *comm, const char *pcomm, bool create)
{
	struct ftfb_task *k = ftfb_pt_find(&t->pt, tid), *l;
	struct ftfb_task_info ti;
	int err;

	if (!tid || !comm[0])
		return 0;
	if (!tgid)
		tgid = tid;
	if (!k) {
		if (!create)
			return 0;
		memset(&ti, 0, sizeof(ti));
		if (t->o.lookup && t->o.lookup(t->o.lookup_ctx, tid, &ti) == 0)
			return ftfb_tr_add_found_task(t, &ti, &k);
	} else if (k->comm[0]) {
		return 0;
	}
	l = ftfb_pt_find(&t->pt, tgid);
	if (tgid != tid && pcomm[0] && (!l || !l->comm[0])) {
		/* its process first: the leader thread, named */
		memset(&ti, 0, sizeof(ti));
		ti.tid = ti.tgid = tgid;
		ftfb_tr_set_comm(ti.comm, pcomm);
		err = ftfb_tr_new_task(t, &ti, NULL);
		if (err)
			return err;
		k = ftfb_pt_find(&t->pt, tid); /* (the table may move) */
	}
	t->st.named_by_kernel++;
	if (!k) {
		memset(&ti, 0, sizeof(ti));
		ti.tid = tid;
		ti.tgid = tgid;
		ftfb_tr_set_comm(ti.comm, comm);
		return ftfb_tr_new_task(t, &ti, NULL);
	}
	k->tgid = tgid;
	ftfb_tr_set_comm(k->comm, comm);
	if (tid == tgid) {
		err = ftfb_tr_write_process(t, k);
		if (err)
			return err;
	}
	return ftfb_tr_write_thread(t, k);
}

static int on_task_exit(struct ftfb_translator *t, const struct ftfb_exit *e)
{
	struct ftfb_task *k = ftfb_pt_find(&t->pt, e->hdr.tid);
	int err;

	if (!k)
		return 0;
	err = name_task(t, e->hdr.tid, e->hdr.tgid, e->comm, e->pcomm, false);
	if (err)
		return err;
	k = ftfb_pt_find(&t->pt, e->hdr.tid);
	err = ftfb_tr_end_syscall_never_returning(t, k, e->hdr.ts, false);
	if (!err)
		err = ftfb_tr_close_all(t, k, e->hdr.ts);
	if (err)
		return err;
	ftfb_pt_mark_exited(&t->pt, k);
	/* (after ftfb_tr_close_all: the slices it ended may have used them) */
	ftfb_nt_forget_thread(&t->ntracks, e->hdr.tid);
	if (e->group_dead)
		ftfb_nt_forget(&t->ntracks, e->hdr.tgid);
	return 0;
}

int ftfb_tr_ev_fork(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_fork, e, data);
	(void)size;
	if (t->o.stacks && e.child_tgid) /* (names for it once it is gone) */
		ftfb_maps_memo_fork(e.hdr.tgid, e.child_tgid, e.hdr.ts);
	return on_fork(t, &e);
}

int ftfb_tr_ev_exec(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_comm_ev, e, data);
	(void)size;
	if (t->o.stacks) /* its addresses are another image's now */
		ftfb_stackprof_forget(t->o.stacks, e.hdr.tgid, e.hdr.ts);
	return on_exec(t, &e);
}

int ftfb_tr_ev_rename(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_comm_ev, e, data);
	(void)size;
	return on_rename(t, &e);
}

int ftfb_tr_ev_exit(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_exit, e, data);
	(void)size;
	if (t->o.stacks && e.group_dead) /* its pid may come back */
		ftfb_stackprof_forget(t->o.stacks, e.hdr.tgid, e.hdr.ts);
	return on_task_exit(t, &e);
}

int ftfb_tr_ev_taskname(struct ftfb_translator *t, const void *data,
			size_t size)
{
	COPY_EVENT(struct ftfb_taskname, e, data);
	(void)size;
	return name_task(t, e.hdr.tid, e.hdr.tgid, e.comm, e.pcomm, true);
}
