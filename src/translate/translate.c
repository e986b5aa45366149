// SPDX-License-Identifier: MIT
/*
 * translate.c - raw BPF events -> FTF records (see translate.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "translate_priv.h"
#include "proctree.h"
#include "syscall_names.h"
#include "event_kinds.h"

#define COUNTER_NAME "ftf-bpf dropped events"
#define COUNTER_CAT "ftf-bpf"
#define MAX_DROP_KIND_ARGS 14 /* FTF's 15 args, less "total" */
#define PROVIDER_ID 0 /* the writer's provider (writer.ml: provider_id = 0) */

/* ---- helpers ---- */

/* The writer's clock as ticks.h maps to it, and the switch and wakeup
 * writer over the same writer (its names are interned at init). */
static void sched_init(struct ftfb_translator *t)
{
	ftfb_ticks_init(&t->tk, ftf_writer_clock(t->w), t->o.clock_mono);
	t->sched.w = t->w;
	t->sched.tk = &t->tk;
	t->sched.records = &t->st.records;
	t->sched.repaired = &t->st.switches_repaired;
}

/* Called with every event's timestamp: re-emits the tick initialization
 * as the writer's buffers age. Only the newest time seen is used, so
 * events slightly out of order across CPUs never look "stale". */
static uint64_t perfetto_ns(struct ftfb_translator *t, uint64_t ns);

static int flush_cmdlines(struct ftfb_translator *t, uint64_t ns)
{
	int name = ftfb_tr_str_id(t, "perfetto", 8, NULL);

	if (name < 0)
		return name;
	return ftfb_proctree_flush(&t->ptree, t->w, name, perfetto_ns(t, ns));
}

/* What advance() does once a millisecond of the stream (or while command
 * lines wait): out of line, so the per-event path stays a leaf. */
static __attribute__((noinline)) int advance_due(struct ftfb_translator *t,
						 uint64_t ns)
{
	int err;

	t->refresh_check_ns = ns + 1000000;
	err = ftf_refresh_buf_if_stale(t->w, ftfb_tr_ticks(t, ns));
	/* the command lines of the tasks found at the start, timed at the
	 * first event (see proctree.h) */
	if (!err && t->ptree.count)
		err = flush_cmdlines(t, ns);
	return err;
}

static inline int advance(struct ftfb_translator *t, uint64_t ns)
{
	if (ns <= t->last_ts)
		return 0;
	t->last_ts = ns;
	/* the refresh is due once a second: asked at most once per
	 * millisecond of the stream, not for every event */
	if (__builtin_expect(ns < t->refresh_check_ns && !t->ptree.count, 1))
		return 0;
	return advance_due(t, ns);
}

/*
 * A string id for s: the permanent id if s was interned; else interned
 * now; once the writer's ids run out, a temporary slot (round robin),
 * valid until num_temp_strs more temporary strings are written, i.e. for
 * the record written next. Never -ENOSPC.
 */
int ftfb_tr_str_id(struct ftfb_translator *t, const char *s, size_t len,
		   bool *temp)
{
	int id, n;

	if (temp)
		*temp = false;
	if (len == 0)
		return FTF_STRING_EMPTY;
	id = ftfb_pt_str_get(&t->pt, s, len);
	if (id > 0)
		return id;
	if (!t->ids_exhausted) {
		id = ftf_intern_string_len(t->w, s, len);
		if (id > 0) {
			t->st.records++;
			if (ftfb_pt_str_put(&t->pt, s, len, id))
				return -ENOMEM;
			return id;
		}
		if (id != -ENOSPC)
			return id;
		t->ids_exhausted = true;
	}
	n = ftf_num_temp_strs(t->w);
	if (n <= 0)
		return FTF_STRING_EMPTY;
	t->st.temp_strings++;
	if (temp)
		*temp = true;
	id = ftf_set_temp_string_slot_len(t->w, t->temp_next, s, len);
	t->temp_next = (t->temp_next + 1) % n;
	if (id > 0)
		t->st.records++;
	return id;
}

int ftfb_tr_cached_id(struct ftfb_translator *t, int *cache, const char *s)
{
	bool temp;
	int id;

	if (*cache > 0)
		return *cache;
	id = ftfb_tr_str_id(t, s, strlen(s), &temp);
	if (id > 0 && !temp)
		*cache = id;
	return id;
}

static int intern_fixed(struct ftfb_translator *t, const char *s)
{
	return ftfb_tr_str_id(t, s, strlen(s), NULL);
}

/* As ps -o args shows it: the title the process set (a name with a
 * space, see procfs.h), else its comm, completed from the cmdline when
 * truncated. */
static const char *process_name_of(const struct ftfb_task *k)
{
	if (k->pname[0] && (strlen(k->comm) == FTFB_COMM_LEN - 1 ||
			    strchr(k->pname, ' ')))
		return k->pname;
	return k->comm;
}

/* The process's command line for Perfetto (ProcessTree), now if the
 * trace has begun, else at its first event. */
static int write_cmdline(struct ftfb_translator *t,
			 const struct ftfb_task_info *ti)
{
	int name, err;

	if (ti->tid != ti->tgid || !ti->cmdline_len)
		return 0;
	name = ftfb_tr_str_id(t, "perfetto", 8, NULL);
	if (name < 0)
		return name;
	err = ftfb_proctree_add(&t->ptree, t->w, name,
				perfetto_ns(t, t->last_ts), ti->tgid, 0,
				ti->cmdline,
				ti->cmdline_len < FTFB_CMDLINE_MAX
					? ti->cmdline_len
					: FTFB_CMDLINE_MAX);
	if (!err && t->last_ts)
		err = flush_cmdlines(t, t->last_ts);
	return err;
}

static int write_process(struct ftfb_translator *t, struct ftfb_task *k)
{
	const char *name = process_name_of(k);
	int id, err;

	if (!name[0])
		return 0;
	id = ftfb_tr_str_id(t, name, strlen(name), NULL);
	if (id < 0)
		return id;
	err = ftf_set_process_name(t->w, k->tgid, id);
	if (err < 0)
		return err;
	t->st.records++;
	return 0;
}

static int write_thread(struct ftfb_translator *t, struct ftfb_task *k)
{
	int id, err;

	id = ftfb_tr_str_id(t, k->comm, strnlen(k->comm, sizeof(k->comm)), NULL);
	if (id < 0)
		return id;
	err = ftf_set_thread_name(t->w, k->tgid, k->tid, id);
	if (err < 0)
		return err;
	t->st.records++;
	k->named = true;
	return 0;
}

/* n, less a UTF-8 character cut at the end of s[0..n) (the kernel cuts
 * a comm at 15 bytes, we cut names at their buffers' sizes): Perfetto
 * would show the bytes left as a replacement character. */
size_t ftfb_utf8_whole(const char *s, size_t n)
{
	size_t i = n, len;
	unsigned char c;

	/* back to the start of the last character (at most 3 bytes back) */
	while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return n; /* not UTF-8: left as it is */
	c = (unsigned char)s[i - 1];
	if (c < 0x80)
		return n; /* ASCII last: whole */
	len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	return n - (i - 1) >= len ? n : i - 1;
}

static void set_comm(char *dst, const char *src)
{
	size_t n = ftfb_utf8_whole(src, strnlen(src, FTFB_COMM_LEN - 1));

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void set_pname(char *dst, const char *src)
{
	size_t n = ftfb_utf8_whole(src, strnlen(src, FTFB_PT_PNAME_LEN - 1));

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int close_all(struct ftfb_translator *t, struct ftfb_task *k,
		     uint64_t ns);

/* Creates the entry for a task and writes its kernel objects. */
static int new_task(struct ftfb_translator *t, const struct ftfb_task_info *ti,
		    struct ftfb_task **out)
{
	struct ftfb_task *k = ftfb_pt_find(&t->pt, ti->tid);
	int err;

	/* A task declared again: whatever it had open ends now. */
	if (k) {
		err = close_all(t, k, t->last_ts);
		if (err)
			return err;
	}
	ftfb_pt_remove(&t->pt, ti->tid);
	k = ftfb_pt_insert(&t->pt, ti->tid);
	if (!k)
		return -ENOMEM;
	k->tgid = ti->tgid;
	set_comm(k->comm, ti->comm);
	if (ti->tid == ti->tgid)
		set_pname(k->pname, ti->process_name);
	if (ti->tid == ti->tgid) {
		err = write_process(t, k);
		if (!err)
			err = write_cmdline(t, ti);
		if (err)
			return err;
	}
	err = write_thread(t, k);
	if (err)
		return err;
	if (out)
		*out = k;
	return 0;
}


/* A task the lookup found (ti), after its process's leader. Takes ti as
 * found: a second lookup could find the task gone (seen: nameless
 * tasks in a trace). */
static int add_found_task(struct ftfb_translator *t,
			  const struct ftfb_task_info *ti,
			  struct ftfb_task **out)
{
	if (ti->tgid != ti->tid && !ftfb_pt_find(&t->pt, ti->tgid)) {
		struct ftfb_task *leader;
		int err = ftfb_tr_ensure_task(t, ti->tgid, ti->tgid, &leader);

		if (err)
			return err;
	}
	return new_task(t, ti, out);
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
	}
	ti.tid = tid;
	if (ti.tgid == 0)
		ti.tgid = tid;
	if (found)
		return add_found_task(t, &ti, out);
	return new_task(t, &ti, out);
}

int ftfb_tr_pseudo_task(struct ftfb_translator *t, uint32_t tid,
			uint32_t tgid, const char *name,
			struct ftfb_task **out)
{
	struct ftfb_task_info ti;

	*out = ftfb_pt_find(&t->pt, tid);
	if (*out)
		return 0;
	memset(&ti, 0, sizeof(ti));
	ti.tid = tid;
	ti.tgid = tgid;
	set_comm(ti.comm, name);
	return new_task(t, &ti, out);
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

/* func_ids() the first time, or while ids are temporary. */
static __attribute__((noinline)) int
func_ids_intern(struct ftfb_translator *t, uint32_t c, int *name, int *cat)
{
	const struct ftfb_func *f = &t->o.funcs[c];
	const char *fname = f->name ? f->name : "";
	const char *fcat = f->category ? f->category : "";
	bool tn, tc;

	*cat = ftfb_tr_str_id(t, fcat, strlen(fcat), &tc);
	if (*cat < 0)
		return *cat;
	*name = ftfb_tr_str_id(t, fname, strlen(fname), &tn);
	if (*name < 0)
		return *name;
	if (tn && tc && *name == *cat)
		*cat = FTF_STRING_EMPTY; /* one temp slot only: name wins */
	if (!tn && !tc && *name > 0) {
		t->func_name_id[c] = *name;
		t->func_cat_id[c] = *cat;
	}
	return 0;
}

/* The string ids of function c's name and category (interned once). */
static inline int func_ids(struct ftfb_translator *t, uint32_t c, int *name,
			   int *cat)
{
	if (t->func_name_id[c] > 0 && t->func_cat_id[c] >= 0) {
		*name = t->func_name_id[c];
		*cat = t->func_cat_id[c];
		return 0;
	}
	return func_ids_intern(t, c, name, cat);
}

/* A call's duration-end record, whole: `ret` (int64), or `unfinished`. */
static int write_call_end(struct ftfb_translator *t, int ref, int cat,
			  int name, uint64_t ns, bool has_ret, uint64_t ret)
{
	unsigned words = has_ret ? 4 : 3;
	uint8_t *r;
	int err = ftf_reserve_record(t->w, words, &r);

	if (err)
		return err;
	ftf_record_put(r, 0, ftf_event_header(FTF_EVENT_DURATION_END, words, 1,
					      ref, cat, name));
	ftf_record_put(r, 1, ftfb_tr_ticks(t, ns));
	if (has_ret) {
		ftf_record_put(r, 2, ftf_arg_word(FTF_ARG_INT64, 2, t->s_ret));
		ftf_record_put(r, 3, ret);
	} else {
		ftf_record_put(r, 2, arg_bool_word(t->s_unfinished, true));
		t->st.slices_closed_early++;
	}
	return 0;
}

/* A call's duration-begin record, whole: its int64 arguments, and
 * `before_window` for a call the flight recorder's window cut. */
static int write_call_begin(struct ftfb_translator *t,
			    const struct ftfb_uentry *e, unsigned nargs,
			    bool before, int ref, int cat, int name)
{
	unsigned words = 2 + 2 * nargs + before, i = 2;
	uint8_t *r;
	int err = ftf_reserve_record(t->w, words, &r);

	if (err)
		return err;
	ftf_record_put(r, 0, ftf_event_header(FTF_EVENT_DURATION_BEGIN, words,
					      nargs + before, ref, cat, name));
	ftf_record_put(r, 1, ftfb_tr_ticks(t, e->hdr.ts));
	for (unsigned n = 0; n < nargs; n++) {
		ftf_record_put(r, i++, ftf_arg_word(FTF_ARG_INT64, 2, t->s_arg[n]));
		ftf_record_put(r, i++, e->args[n]);
	}
	if (before)
		ftf_record_put(r, i, arg_bool_word(t->s_before_window, true));
	return 0;
}

/* Ends the top frame of k at ns: with `ret` if has_ret, else marked
 * unfinished. */
static int end_frame(struct ftfb_translator *t, struct ftfb_task *k,
		     uint64_t ns, bool has_ret, uint64_t ret)
{
	struct ftfb_frame *f = &k->stack[k->depth - 1];
	struct ftfb_func_stats *fs = &t->fstats[f->cookie];
	int ref, name, cat, err;

	if (ns < f->begin_ns)
		ns = f->begin_ns;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = func_ids(t, f->cookie, &name, &cat);
	if (err)
		return err;
	err = write_call_end(t, ref, cat, name, ns, has_ret, ret);
	if (err)
		return err;
	t->st.records++;
	fs->total_ns += ns - f->begin_ns;
	k->depth--;
	ftfb_tr_usdt_call_ended(t, k);
	return 0;
}

enum sys_end {
	SYS_END_RET,        /* its exit: ret */
	SYS_END_CLEAN,      /* it never returns by design: exit, exec */
	SYS_END_UNFINISHED, /* the stop, a lost exit */
};

static int end_syscall(struct ftfb_translator *t, struct ftfb_task *k,
		       uint64_t ns, int how, int64_t ret);

static int close_all(struct ftfb_translator *t, struct ftfb_task *k,
		     uint64_t ns)
{
	int serr = end_syscall(t, k, ns, SYS_END_UNFINISHED, 0);

	if (!serr)
		serr = ftfb_tr_usdt_close(t, k, ns);
	if (serr)
		return serr;
	while (k->depth > 0) {
		int err = end_frame(t, k, ns, false, 0);

		if (err)
			return err;
	}
	k->overflow = 0;
	k->overflow_sp = 0;
	k->tail_sp = 0;
	return 0;
}

/* ---- system calls ---- */

static int sys_name(struct ftfb_translator *t, uint32_t nr, int *id)
{
	char buf[32];
	const char *name;

	if (nr < FTFB_NR_SYSCALLS && t->sys_name_id[nr]) {
		*id = t->sys_name_id[nr];
		return 0;
	}
	name = ftfb_syscall_name(nr, buf, sizeof(buf));
	*id = ftf_intern_string(t->w, name);
	if (*id < 0)
		return *id;
	if (nr < FTFB_NR_SYSCALLS)
		t->sys_name_id[nr] = *id;
	return 0;
}

/* "EAGAIN" for 11; the kernel-internal restart codes by their names. */
static const char *errno_name(int e, char *buf, size_t len)
{
	static const char *const restart[] = {
		"ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND",
		"ENOIOCTLCMD", "ERESTART_RESTARTBLOCK",
	};
	const char *n = e < 512 ? strerrorname_np(e) : NULL;

	if (e >= 512 && e <= 516)
		return restart[e - 512];
	if (n)
		return n;
	snprintf(buf, len, "E%d", e);
	return buf;
}

static int error_id(struct ftfb_translator *t, int e, int *id)
{
	char buf[16];

	if (t->errno_name_id[e]) {
		*id = t->errno_name_id[e];
		return 0;
	}
	*id = ftf_intern_string(t->w, errno_name(e, buf, sizeof(buf)));
	if (*id < 0)
		return *id;
	t->errno_name_id[e] = *id;
	return 0;
}

/* The duration-complete record of k's system call, whole: its arguments
 * (int64), `ret` (int32 when it fits, as nearly all do) with `error`
 * (err_id, 0: none), or `unfinished`; then its end. */
static int write_syscall(struct ftfb_translator *t, struct ftfb_task *k,
			 int ref, int name, uint64_t ns, int how, int64_t ret,
			 int err_id)
{
	bool has_ret = how == SYS_END_RET, small = ret == (int32_t)ret;
	unsigned nargs = k->sys.nargs, n = 0, i = 2;
	unsigned words = 3 + 2 * nargs + (has_ret ? (small ? 1 : 2) : 0) +
			 (err_id != 0) + (how == SYS_END_UNFINISHED);
	uint8_t *r;
	int err = ftf_reserve_record(t->w, words, &r);

	if (err)
		return err;
	ftf_record_put(r, 1, ftfb_tr_ticks(t, k->sys.begin_ns));
	for (; n < nargs; n++) {
		ftf_record_put(r, i++, ftf_arg_word(FTF_ARG_INT64, 2, t->s_arg[n]));
		ftf_record_put(r, i++, k->sys_args[n]);
	}
	if (has_ret && small) {
		ftf_record_put(r, i++, arg_int32_word(t->s_ret, (int32_t)ret));
		n++;
	} else if (has_ret) {
		ftf_record_put(r, i++, ftf_arg_word(FTF_ARG_INT64, 2, t->s_ret));
		ftf_record_put(r, i++, (uint64_t)ret);
		n++;
	}
	if (err_id) {
		ftf_record_put(r, i++, ftf_arg_word(FTF_ARG_STRING, 1, t->s_error) |
					   ((uint64_t)(uint16_t)err_id << 32));
		n++;
	}
	if (how == SYS_END_UNFINISHED) {
		ftf_record_put(r, i++, arg_bool_word(t->s_unfinished, true));
		n++;
		t->st.slices_closed_early++;
	}
	ftf_record_put(r, i, ftfb_tr_ticks(t, ns));
	ftf_record_put(r, 0, ftf_event_header(FTF_EVENT_DURATION_COMPLETE, words, n,
					      ref, t->s_syscall, name));
	return 0;
}

/* Writes k's open system call as one duration-complete record ending at
 * ns: its arguments, and `ret` (int32 when it fits, as nearly all do)
 * with `error` for -4095..-1, or `unfinished`. */
static int end_syscall(struct ftfb_translator *t, struct ftfb_task *k,
		       uint64_t ns, int how, int64_t ret)
{
	bool is_err = how == SYS_END_RET && ret < 0 && ret >= -FTFB_MAX_ERRNO;
	struct ftfb_func_stats *st;
	int ref, name, err_id = 0, err;

	if (!k->sys.open)
		return 0;
	k->sys.open = false;
	if (ns < k->sys.begin_ns)
		ns = k->sys.begin_ns;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = sys_name(t, k->sys.nr, &name);
	if (!err && is_err)
		err = error_id(t, (int)-ret, &err_id);
	if (err)
		return err;
	err = write_syscall(t, k, ref, name, ns, how, ret, err_id);
	if (err)
		return err;
	t->st.records++;
	if (k->sys.nr < FTFB_NR_SYSCALLS) {
		st = &t->sys_stats[k->sys.nr];
		st->calls++;
		st->total_ns += ns - k->sys.begin_ns;
	}
	return 0;
}

static bool is_nr(uint32_t nr, const char *name)
{
	char buf[32];

	return !strcmp(ftfb_syscall_name(nr, buf, sizeof(buf)), name);
}

static int on_senter(struct ftfb_translator *t, const struct ftfb_senter *e)
{
	struct ftfb_task *k;
	int err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);

	/* one open at a time: an exit lost (ring full) ends it here */
	if (!err)
		err = end_syscall(t, k, e->hdr.ts, SYS_END_UNFINISHED, 0);
	if (err)
		return err;
	k->sys.open = true;
	k->sys.nr = e->nr;
	k->sys.begin_ns = e->hdr.ts;
	k->sys.nargs = e->nargs > FTFB_MAX_ARGS ? FTFB_MAX_ARGS : e->nargs;
	memcpy(k->sys_args, e->args, k->sys.nargs * sizeof(k->sys_args[0]));
	return 0;
}

static int on_sexit(struct ftfb_translator *t, const struct ftfb_sexit *e)
{
	struct ftfb_task *k = ftfb_pt_find(&t->pt, e->hdr.tid);

	if (!k || !k->sys.open || k->sys.nr != e->nr) {
		/* entered before the trace, or an execve its exec ended */
		t->st.sys_unmatched++;
		return 0;
	}
	/* rt_sigreturn's "return value" is the interrupted code's rax */
	if (e->nr == FTFB_NR_RT_SIGRETURN)
		return end_syscall(t, k, e->hdr.ts, SYS_END_CLEAN, 0);
	return end_syscall(t, k, e->hdr.ts, SYS_END_RET, e->ret);
}

/* At exit and exec: exit, exit_group and a successful execve never
 * return; they end there, cleanly. */
static int end_syscall_never_returning(struct ftfb_translator *t,
				       struct ftfb_task *k, uint64_t ns,
				       bool exec)
{
	uint32_t nr = k->sys.nr;
	bool clean;

	if (!k->sys.open)
		return 0;
	clean = exec ? is_nr(nr, "execve") || is_nr(nr, "execveat")
		     : is_nr(nr, "exit") || is_nr(nr, "exit_group");
	if (exec && clean)
		return end_syscall(t, k, ns, SYS_END_RET, 0);
	return end_syscall(t, k, ns, clean ? SYS_END_CLEAN : SYS_END_UNFINISHED,
			   0);
}

/* ---- event handlers ---- */

static int on_switch(struct ftfb_translator *t, const struct ftfb_switch *e)
{
	bool repair = ftfb_sched_needs_repair(&t->sched, e);
	struct ftfb_task *prev, *next, *idle;
	int err;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &prev);
	if (!err)
		err = ftfb_tr_ensure_task(t, e->next_tid, e->next_tgid, &next);
	/* (the idle task a repair switches to is named like any task the
	 * trace shows: "swapper") */
	if (!err && repair)
		err = ftfb_tr_ensure_task(t, 0, 0, &idle);
	return err ? err : ftfb_sched_switch(&t->sched, e, repair);
}

static int on_wakeup(struct ftfb_translator *t, const struct ftfb_wakeup *e)
{
	struct ftfb_task *waker, *target;
	int err;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &waker);
	if (!err)
		err = ftfb_tr_ensure_task(t, e->target_tid, e->target_tgid, &target);
	return err ? err : ftfb_sched_wakeup(&t->sched, e);
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
		err = close_all(t, old, e->hdr.ts);
		if (err)
			return err;
	}
	memset(&ti, 0, sizeof(ti));
	ti.tid = e->child_tid;
	ti.tgid = e->child_tgid ? e->child_tgid : e->child_tid;
	set_comm(ti.comm, e->comm);
	if (ti.tid == ti.tgid) {
		/* A new process runs the parent's program: same cmdline. */
		struct ftfb_task *pl = ftfb_pt_find(&t->pt, parent->tgid);

		if (pl && !strcmp(pl->comm, ti.comm))
			set_pname(ti.process_name, pl->pname);
	} else if (!ftfb_pt_find(&t->pt, ti.tgid)) {
		struct ftfb_task *leader;

		err = ftfb_tr_ensure_task(t, ti.tgid, ti.tgid, &leader);
		if (err)
			return err;
	}
	return new_task(t, &ti, NULL);
}

static int on_exec(struct ftfb_translator *t, const struct ftfb_comm_ev *e)
{
	struct ftfb_task_info ti, li;
	struct ftfb_task *k;
	int err = 0;

	/* The exec'ing thread's open calls never return (new image). */
	k = ftfb_pt_find(&t->pt, e->old_tid);
	if (k)
		err = end_syscall_never_returning(t, k, e->hdr.ts, true);
	if (k && !err) {
		err = close_all(t, k, e->hdr.ts);
		if (err)
			return err;
	}
	k = ftfb_pt_find(&t->pt, e->hdr.tid);
	if (k) {
		err = close_all(t, k, e->hdr.ts);
		if (err)
			return err;
	}
	if (e->old_tid != e->hdr.tid)
		ftfb_pt_remove(&t->pt, e->old_tid);
	memset(&ti, 0, sizeof(ti));
	ti.tid = e->hdr.tid;
	ti.tgid = e->hdr.tgid ? e->hdr.tgid : e->hdr.tid;
	set_comm(ti.comm, e->comm);
	/* The new cmdline: Perfetto's process details, and the name when
	 * comm is truncated (if /proc still shows this image) */
	if (t->o.lookup) {
		memset(&li, 0, sizeof(li));
		if (!t->o.lookup(t->o.lookup_ctx, ti.tid, &li) &&
		    !strncmp(li.comm, ti.comm, FTFB_COMM_LEN)) {
			if (strlen(ti.comm) == FTFB_COMM_LEN - 1 ||
			    strchr(li.process_name, ' '))
				set_pname(ti.process_name, li.process_name);
			memcpy(ti.cmdline, li.cmdline, sizeof(ti.cmdline));
			ti.cmdline_len = li.cmdline_len;
		}
	}
	/* The rename that exec does came first: if it already said all this,
	 * keep the entry (its thread slot too) and write nothing. */
	k = ftfb_pt_find(&t->pt, ti.tid);
	if (k && k->named && !k->exited && k->tgid == ti.tgid &&
	    !strcmp(k->comm, ti.comm) && !strcmp(k->pname, ti.process_name))
		return write_cmdline(t, &ti); /* (only the new image says it) */
	return new_task(t, &ti, NULL);
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
	set_comm(k->comm, e->comm);
	if (k->tid == k->tgid) {
		k->pname[0] = '\0';
		err = write_process(t, k);
		if (err)
			return err;
	}
	return write_thread(t, k);
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
			return add_found_task(t, &ti, &k);
	} else if (k->comm[0]) {
		return 0;
	}
	l = ftfb_pt_find(&t->pt, tgid);
	if (tgid != tid && pcomm[0] && (!l || !l->comm[0])) {
		/* its process first: the leader thread, named */
		memset(&ti, 0, sizeof(ti));
		ti.tid = ti.tgid = tgid;
		set_comm(ti.comm, pcomm);
		err = new_task(t, &ti, NULL);
		if (err)
			return err;
		k = ftfb_pt_find(&t->pt, tid); /* (the table may move) */
	}
	t->st.named_by_kernel++;
	if (!k) {
		memset(&ti, 0, sizeof(ti));
		ti.tid = tid;
		ti.tgid = tgid;
		set_comm(ti.comm, comm);
		return new_task(t, &ti, NULL);
	}
	k->tgid = tgid;
	set_comm(k->comm, comm);
	if (tid == tgid) {
		err = write_process(t, k);
		if (err)
			return err;
	}
	return write_thread(t, k);
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
	err = end_syscall_never_returning(t, k, e->hdr.ts, false);
	if (!err)
		err = close_all(t, k, e->hdr.ts);
	if (err)
		return err;
	ftfb_pt_mark_exited(&t->pt, k);
	/* (after close_all: the slices it ended may have used them) */
	if (e->group_dead)
		ftfb_tr_lanes_give_back(t, e->hdr.tgid);
	return 0;
}

/*
 * Uprobe calls are matched by the user stack pointer (x86-64): an entry
 * records the sp at the function's first instruction (it points at the
 * return address), a return the sp after the return (entry sp + 8,
 * checked by tests/bpf/test_uprobe.c). The stack grows down, so:
 *   - a call at sp S means every open call entered at sp <= S (at the
 *     same depth or deeper: the stack grows down) is over:
 *     its return was skipped (longjmp, exception unwinding, a return the
 *     kernel did not hijack past its uretprobe nesting limit) or it
 *     tail-called this function. They end now, marked unfinished.
 *   - a return at sp R belongs to the call entered at R - 8: open calls
 *     entered below that end first (unfinished); the call at R - 8 ends
 *     with `ret` even if its cookie differs (sp wins, counted in
 *     stats.sp_cookie_mismatch); no call at R - 8: unmatched return.
 *   - tail call f -> g: g enters at f's sp, so f ends (unfinished) at
 *     g's entry; the kernel then reports both returns at the same sp
 *     (chained uretprobes): g's ends g, f's finds no call and is counted
 *     in stats.tail_returns (a return at the sp of the last call ended by
 *     a call at that same sp), not as unmatched.
 *   - depth cap: the calls past it are not stored; the capped region is
 *     left when its outermost call (sp overflow_sp) returns, or when a
 *     call or return comes at or above that sp.
 * Events without sp (0) and frames without sp keep the cookie matching:
 * a return ends the innermost open call of its function and the calls
 * above it.
 */
static int on_uentry(struct ftfb_translator *t, const struct ftfb_uentry *e)
{
	struct ftfb_task *k;
	struct ftfb_frame *f;
	bool before = e->nargs & FTFB_UENTRY_BEFORE_WINDOW;
	unsigned nargs = e->nargs & ~FTFB_UENTRY_BEFORE_WINDOW;
	int err, ref, name, cat;

	if (nargs > FTFB_MAX_ARGS)
		nargs = FTFB_MAX_ARGS;

	if (e->cookie >= t->o.nfuncs) {
		t->st.skipped++;
		return 0;
	}
	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
	if (err)
		return err;
	t->fstats[e->cookie].calls++;
	if (e->sp) {
		/* A call at sp S: open calls whose entry sp is <= S (as deep
		 * as this call or deeper) can no longer be running: their
		 * returns were skipped (longjmp, exception, return not
		 * hijacked) or they tail-called this function. */
		if (k->overflow && k->overflow_sp && e->sp >= k->overflow_sp) {
			k->overflow = 0; /* the capped calls are gone too */
			k->overflow_sp = 0;
		}
		while (!k->overflow && k->depth &&
		       k->stack[k->depth - 1].sp &&
		       k->stack[k->depth - 1].sp <= e->sp) {
			if (k->stack[k->depth - 1].sp == e->sp)
				k->tail_sp = e->sp; /* maybe a tail call */
			err = end_frame(t, k, e->hdr.ts, false, 0);
			if (err)
				return err;
		}
	}
	if (k->overflow || k->depth >= t->pt.max_depth) {
		if (!k->overflow)
			k->overflow_sp = e->sp;
		k->overflow++;
		t->st.depth_capped++;
		return 0;
	}
	err = ftfb_pt_stack_reserve(&t->pt, k);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = func_ids(t, e->cookie, &name, &cat);
	if (err)
		return err;
	err = write_call_begin(t, e, nargs, before, ref, cat, name);
	if (err)
		return err;
	t->st.records++;
	f = &k->stack[k->depth++];
	f->cookie = e->cookie;
	f->begin_ns = e->hdr.ts;
	f->sp = e->sp;
	return 0;
}

static int on_uret(struct ftfb_translator *t, const struct ftfb_uret *e)
{
	struct ftfb_task *k;
	uint32_t i;
	int err;

	if (e->cookie >= t->o.nfuncs) {
		t->st.skipped++;
		return 0;
	}
	k = ftfb_pt_find(&t->pt, e->hdr.tid);
	if (k && e->sp && k->overflow && k->overflow_sp) {
		uint64_t osp = k->overflow_sp;

		if (e->sp - 8 < osp) {
			/* a call inside the capped region: it stays open until
			 * its outermost call returns or is abandoned */
			if (k->overflow > 1)
				k->overflow--;
			return 0;
		}
		k->overflow = 0;
		k->overflow_sp = 0;
		if (e->sp - 8 == osp)
			return 0; /* the outermost capped call */
		/* past it: the capped calls were abandoned */
	}
	if (k && e->sp && !k->overflow &&
	    (!k->depth || k->stack[k->depth - 1].sp)) {
		/* The returning call's entry sp is e->sp - 8 (the return
		 * popped the return address): the calls above it are dead. */
		uint64_t csp = e->sp - 8;

		while (k->depth && k->stack[k->depth - 1].sp &&
		       k->stack[k->depth - 1].sp < csp) {
			err = end_frame(t, k, e->hdr.ts, false, 0);
			if (err)
				return err;
		}
		if (k->depth && k->stack[k->depth - 1].sp == csp) {
			if (k->stack[k->depth - 1].cookie != e->cookie)
				t->st.sp_cookie_mismatch++;
			return end_frame(t, k, e->hdr.ts, true, e->ret);
		}
		if (!k->depth || k->stack[k->depth - 1].sp) {
			if (csp == k->tail_sp)
				t->st.tail_returns++;
			else
				t->st.unmatched_returns++;
			return 0;
		}
		/* a frame without sp on top: match by cookie */
	}
	if (k && k->overflow) {
		k->overflow--; /* the return of a call past the depth cap */
		return 0;
	}
	for (i = k ? k->depth : 0; i > 0; i--)
		if (k->stack[i - 1].cookie == e->cookie)
			break;
	if (i == 0) {
		t->st.unmatched_returns++;
		return 0;
	}
	/* Frames above the match lost their returns (longjmp, exception). */
	while (k->depth > i) {
		err = end_frame(t, k, e->hdr.ts, false, 0);
		if (err)
			return err;
	}
	return end_frame(t, k, e->hdr.ts, true, e->ret);
}

/* ---- public API ---- */

int ftfb_translator_init(struct ftfb_translator *t,
			 const struct ftfb_translator_opts *o)
{
	char buf[8];
	int err;

	memset(t, 0, sizeof(*t));
	t->o = *o;
	t->w = o->w;
	if (!t->w || (o->nfuncs && !o->funcs))
		return -EINVAL;
	sched_init(t);
	err = ftfb_pt_init(&t->pt, o->expected_tasks ? o->expected_tasks : 4096,
			   o->max_depth);
	if (err)
		return err;
	if (o->nfuncs) {
		t->fstats = calloc(o->nfuncs, sizeof(*t->fstats));
		t->func_name_id = calloc(o->nfuncs, sizeof(int));
		t->func_cat_id = calloc(o->nfuncs, sizeof(int));
		if (!t->fstats || !t->func_name_id || !t->func_cat_id) {
			ftfb_translator_free(t);
			return -ENOMEM;
		}
	}
	err = ftf_make_and_write_tick_translation(t->w);
	if (err < 0)
		goto fail;
	t->st.records++;
#define INTERN(field, s)                                                       \
	do {                                                                   \
		err = intern_fixed(t, s);                                      \
		if (err < 0)                                                   \
			goto fail;                                             \
		t->field = err;                                                \
	} while (0)
	INTERN(sched.s_incoming_weight, "incoming_weight");
	INTERN(sched.s_outgoing_weight, "outgoing_weight");
	INTERN(sched.s_waker, "waker");
	INTERN(s_unfinished, "unfinished");
	INTERN(s_before_window, "before_window");
	INTERN(s_syscall, "syscall");
	INTERN(s_error, "error");
	INTERN(s_ret, "ret");
	for (int i = 0; i < FTFB_MAX_ARGS; i++) {
		buf[0] = 'a';
		buf[1] = 'r';
		buf[2] = 'g';
		buf[3] = (char)('0' + i);
		buf[4] = '\0';
		INTERN(s_arg[i], buf);
	}
	INTERN(s_drop_name, COUNTER_NAME);
	INTERN(s_drop_cat, COUNTER_CAT);
	INTERN(s_total, "total");
	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		INTERN(s_kind[i], ftfb_kinds[i].name ? ftfb_kinds[i].name : "other");
	err = ftfb_tr_usdt_init(t);
	if (err < 0)
		goto fail;
#undef INTERN
	return 0;
fail:
	ftfb_translator_free(t);
	return err;
}

void ftfb_translator_free(struct ftfb_translator *t)
{
	ftfb_pt_free(&t->pt);
	free(t->fstats);
	free(t->func_name_id);
	free(t->func_cat_id);
	ftfb_tr_usdt_free(t);
	ftfb_proctree_free(&t->ptree);
	t->fstats = NULL;
	t->func_name_id = NULL;
	t->func_cat_id = NULL;
}

int ftfb_translator_add_task(struct ftfb_translator *t,
			     const struct ftfb_task_info *ti)
{
	struct ftfb_task_info c = *ti;
	struct ftfb_task *leader;
	int err;

	if (c.tgid == 0)
		c.tgid = c.tid;
	if (c.tgid != c.tid && !ftfb_pt_find(&t->pt, c.tgid)) {
		err = ftfb_tr_ensure_task(t, c.tgid, c.tgid, &leader);
		if (err)
			return err;
	}
	return new_task(t, &c, NULL);
}

/* Ticks to ns as Perfetto's Fuchsia importer converts an FTF timestamp:
 * the high 32 bits of the ticks times a truncated (1e9 << 32) / tps, plus
 * the low 32 bits times 1e9 / tps. The truncation puts its result up to
 * ticks >> 32 ns early (1.3 us an hour after boot on a 2.6 GHz TSC, more
 * with uptime), so a sample timed exactly would not land on the
 * scheduling records it belongs with. */
uint64_t ftfb_ticks_to_ns_as_perfetto(uint64_t ticks, uint64_t tps)
{
	const uint64_t ns_per_s = 1000000000ull;

	if (!tps)
		return 0;
	return (ticks >> 32) * ((ns_per_s << 32) / tps) +
	       (ticks & 0xffffffffull) * ns_per_s / tps;
}

/* mono ns as Perfetto reads the FTF part's time: the ticks written,
 * converted with the ticks per second of the tick initialization. */
static uint64_t perfetto_ns(struct ftfb_translator *t, uint64_t ns)
{
	uint64_t ticks = ftfb_tr_ticks(t, ns);
	uint64_t tps = t->o.clock_mono ? 1000000000ull
				       : ftf_writer_clock(t->w)->ticks_per_second;

	return ftfb_ticks_to_ns_as_perfetto(ticks, tps);
}

/* A stack sample (--stacks) to the Perfetto packets; without --stacks
 * (a replayed stream) it is skipped. */
static int on_stack(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_stack e;
	struct ftfb_stack_sample s;
	const uint64_t *ips = (const void *)((const char *)data + sizeof(e));
	struct ftfb_task *k;
	int err;

	memcpy(&e, data, sizeof(e));
	if (!t->o.stacks)
		return 0;
	/* (the BPF side sends at most FTFB_STACK_MAX_DEPTH frames a kind;
	 * anything else is not a stack event of ours) */
	if (!ftfb_stack_event_ok(&e, size, ips)) {
		t->st.skipped++;
		return 0;
	}
	/* a thread first seen here is named as any other */
	if (e.hdr.tid && (err = ftfb_tr_ensure_task(t, e.hdr.tid, e.hdr.tgid, &k)))
		return err;
	memset(&s, 0, sizeof(s));
	s.kind = e.hdr.kind == FTFB_EV_STACK_OFF     ? FTFB_STACK_OFF_CPU
		 : e.hdr.kind == FTFB_EV_STACK_WAKER ? FTFB_STACK_WAKER
						     : FTFB_STACK_ON_CPU;
	s.ts_ns = perfetto_ns(t, e.hdr.ts);
	s.cpu = e.hdr.cpu;
	s.tid = e.hdr.tid;
	s.tgid = e.hdr.tgid;
	s.weight = e.weight;
	s.uhash = e.uhash;
	s.khash = e.khash;
	s.nu = e.nu;
	s.nk = e.nk;
	s.uips = e.nu ? ips : NULL;
	s.kips = e.nk ? ips + e.nu : NULL;
	s.phash = e.py.hash;
	s.np = e.py.n;
	s.pips = e.py.n ? ips + e.nu + e.nk : NULL;
	return ftfb_stackprof_sample(t->o.stacks, &s);
}

/* The handlers of the event-kind table (event_kinds.c): each copies its
 * event into an aligned local (ring buffer records are 8-aligned, but
 * tests and replays may hand any pointer) and handles it. */
#define COPY_EVENT(type, e, data) \
	type e;                   \
	memcpy(&e, data, sizeof(e))

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

int ftfb_tr_ev_fork(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_fork, e, data);
	(void)size;
	return on_fork(t, &e);
}

int ftfb_tr_ev_exec(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_comm_ev, e, data);
	(void)size;
	if (t->o.stacks) /* its addresses are another image's now */
		ftfb_stackprof_forget(t->o.stacks, e.hdr.tgid);
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
		ftfb_stackprof_forget(t->o.stacks, e.hdr.tgid);
	return on_task_exit(t, &e);
}

int ftfb_tr_ev_taskname(struct ftfb_translator *t, const void *data,
			size_t size)
{
	COPY_EVENT(struct ftfb_taskname, e, data);
	(void)size;
	return name_task(t, e.hdr.tid, e.hdr.tgid, e.comm, e.pcomm, true);
}

int ftfb_tr_ev_uentry(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_uentry, e, data);
	(void)size;
	return on_uentry(t, &e);
}

int ftfb_tr_ev_uret(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_uret, e, data);
	(void)size;
	return on_uret(t, &e);
}

int ftfb_tr_ev_senter(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_senter, e, data);
	(void)size;
	return on_senter(t, &e);
}

int ftfb_tr_ev_sexit(struct ftfb_translator *t, const void *data, size_t size)
{
	COPY_EVENT(struct ftfb_sexit, e, data);
	(void)size;
	return on_sexit(t, &e);
}

int ftfb_tr_ev_usdt(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_usdt e;

	/* sent without the unused tail of its strings */
	memset(&e, 0, sizeof(e));
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	return ftfb_tr_usdt(t, &e);
}

int ftfb_tr_ev_stack(struct ftfb_translator *t, const void *data, size_t size)
{
	return on_stack(t, data, size);
}

/* -g: a Python code object's strings, kept for the Python frames */
int ftfb_tr_ev_pycode(struct ftfb_translator *t, const void *data,
		      size_t size)
{
	struct ftfb_pycode e;

	(void)size;
	memcpy(&e, data, sizeof(e));
	return t->o.stacks ? ftfb_stackprof_pycode(t->o.stacks, &e) : 0;
}

int ftfb_translator_event(struct ftfb_translator *t, const void *data,
			  size_t size)
{
	const struct ftfb_kind_info *ki;
	uint16_t kind;
	uint64_t ts;
	int err;

	t->st.events++;
	if (size < sizeof(struct ftfb_hdr)) {
		t->st.skipped++;
		return 0;
	}
	/* (the two fields alone: a copy of the whole header would take a
	 * stack frame on this, the hottest path) */
	memcpy(&kind, (const char *)data + offsetof(struct ftfb_hdr, kind),
	       sizeof(kind));
	memcpy(&ts, (const char *)data + offsetof(struct ftfb_hdr, ts),
	       sizeof(ts));
	ki = kind < FTFB_EV_KIND_MAX ? &ftfb_kinds[kind] : NULL;
	if (!ki || !ki->handler || size < ki->size) {
		t->st.skipped++;
		return 0;
	}
	t->st.by_kind[kind]++;
	err = advance(t, ts);
	if (err)
		return err;
	return ki->handler(t, data, size);
}

int ftfb_translator_drops(struct ftfb_translator *t, uint64_t mono_ns,
			  const uint64_t drops[FTFB_EV_KIND_MAX])
{
	struct ftfb_task *idle;
	uint64_t total = 0;
	int err, ref;

	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		total += drops[i];
	if (t->drops_written && total == t->st.dropped_total)
		return 0;
	err = advance(t, mono_ns);
	if (err)
		return err;
	/* The counter lives on the tracer's own thread when it is given
	 * (in Perfetto: under the ftf-bpf process), else on pid 0 / tid 0. */
	err = ftfb_tr_ensure_task(t, t->o.self_tid, t->o.self_tid, &idle);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, idle);
	if (ref < 0)
		return ref;
	/* One arg per kind that has lost events (the counts only grow, so a
	 * kind once shown stays): FTF allows 15 args, total included, and
	 * there are more kinds than that. */
	int shown = 0;
	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		shown += drops[i] && shown < MAX_DROP_KIND_ARGS;
	err = ftf_write_counter(t->w, FTF_ARG_TYPES(1 + shown, 0, 0, 0, 0, 0),
				ref, t->s_drop_cat, t->s_drop_name,
				ftfb_tr_ticks(t, mono_ns), 0);
	if (!err)
		err = ftf_arg_int64(t->w, t->s_total, (int64_t)total);
	for (int i = 0; !err && shown && i < FTFB_EV_KIND_MAX; i++) {
		if (!drops[i])
			continue;
		err = ftf_arg_int64(t->w, t->s_kind[i], (int64_t)drops[i]);
		shown--;
	}
	if (err)
		return err;
	t->st.records++;
	if (total > t->st.dropped_total) {
		err = ftf_write_provider_event_dropped(t->w, PROVIDER_ID);
		if (err)
			return err;
		t->st.records++;
	}
	t->drops_written = true;
	t->st.dropped_total = total;
	return 0;
}

struct finish_ctx {
	struct ftfb_translator *t;
	uint64_t ns;
	int err;
};

static void finish_one(struct ftfb_task *k, void *arg)
{
	struct finish_ctx *c = arg;

	if (!c->err && (k->depth || k->sys.open || k->uslice_top))
		c->err = close_all(c->t, k, c->ns);
	k->overflow = 0;
	k->overflow_sp = 0;
}

int ftfb_translator_finish(struct ftfb_translator *t, uint64_t mono_ns)
{
	struct finish_ctx c = {.t = t, .ns = mono_ns};

	if (c.ns < t->last_ts)
		c.ns = t->last_ts;
	ftfb_pt_for_each(&t->pt, finish_one, &c);
	if (!c.err && t->ptree.count)
		c.err = flush_cmdlines(t, c.ns);
	if (c.err)
		return c.err;
	if (t->o.stacks && (c.err = ftfb_stackprof_flush(t->o.stacks)))
		return c.err;
	return ftf_flush(t->w);
}

struct sort_ctx {
	const struct ftfb_func_stats *fs;
	bool by_time;
};

static int cmp_func(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	uint64_t va = c->by_time ? c->fs[ia].total_ns : c->fs[ia].calls;
	uint64_t vb = c->by_time ? c->fs[ib].total_ns : c->fs[ib].calls;

	if (va != vb)
		return va > vb ? -1 : 1;
	return ia < ib ? -1 : (ia > ib);
}

/* The indices of the n entries of fs[0..count) with the most calls (or
 * time), among those called at all. */
static size_t top_of(const struct ftfb_func_stats *fs, size_t count,
		     bool by_time, size_t *out, size_t n)
{
	size_t m = 0, *all;

	if (!count || !n)
		return 0;
	all = malloc(count * sizeof(*all));
	if (!all)
		return 0;
	for (size_t i = 0; i < count; i++)
		if (fs[i].calls)
			all[m++] = i;
	qsort_r(all, m, sizeof(*all), cmp_func,
		&(struct sort_ctx){.fs = fs, .by_time = by_time});
	if (m > n)
		m = n;
	memcpy(out, all, m * sizeof(*out));
	free(all);
	return m;
}

size_t ftfb_translator_top(const struct ftfb_translator *t, bool by_time,
			   size_t *out, size_t n)
{
	return top_of(t->fstats, t->o.nfuncs, by_time, out, n);
}

size_t ftfb_translator_top_syscalls(const struct ftfb_translator *t,
				    bool by_time, size_t *out, size_t n)
{
	return top_of(t->sys_stats, FTFB_NR_SYSCALLS, by_time, out, n);
}

const struct ftfb_translator_stats *
ftfb_translator_stats(const struct ftfb_translator *t)
{
	return &t->st;
}

const struct ftfb_func_stats *
ftfb_translator_func_stats(const struct ftfb_translator *t, size_t i)
{
	return &t->fstats[i];
}

const struct ftfb_func_stats *
ftfb_translator_syscall_stats(const struct ftfb_translator *t, uint32_t nr)
{
	return &t->sys_stats[nr];
}

int ftfb_translator_new(struct ftfb_translator **out,
			const struct ftfb_translator_opts *o)
{
	struct ftfb_translator *t = calloc(1, sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	err = ftfb_translator_init(t, o);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

void ftfb_translator_destroy(struct ftfb_translator *t)
{
	if (!t)
		return;
	ftfb_translator_free(t);
	free(t);
}

struct ftfb_proctable *ftfb_translator_tasks(struct ftfb_translator *t)
{
	return &t->pt;
}
