// SPDX-License-Identifier: MIT
/*
 * translate_syscalls.c - system calls (--syscalls) -> one duration-complete
 * record each, with its arguments, its return and its error's name.
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <stdio.h>
#include <string.h>

#include "translate_priv.h"
#include "syscall_names.h"

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
		"ERESTARTSYS", "ERESTARTNOINTR",	"ERESTARTNOHAND",
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
		ftf_record_put(r, i++,
			       ftf_arg_word(FTF_ARG_INT64, 2, t->s_arg[n]));
		ftf_record_put(r, i++, k->sys_args[n]);
	}
	if (has_ret && small) {
		ftf_record_put(r, i++, arg_int32_word(t->s_ret, (int32_t)ret));
		n++;
	} else if (has_ret) {
		ftf_record_put(r, i++,
			       ftf_arg_word(FTF_ARG_INT64, 2, t->s_ret));
		ftf_record_put(r, i++, (uint64_t)ret);
		n++;
	}
	if (err_id) {
		ftf_record_put(r, i++,
			       ftf_arg_word(FTF_ARG_STRING, 1, t->s_error) |
				       ((uint64_t)(uint16_t)err_id << 32));
		n++;
	}
	if (how == SYS_END_UNFINISHED) {
		ftf_record_put(r, i++, arg_bool_word(t->s_unfinished, true));
		n++;
		t->st.slices_closed_early++;
	}
	ftf_record_put(r, i, ftfb_tr_ticks(t, ns));
	ftf_record_put(r, 0,
		       ftf_event_header(FTF_EVENT_DURATION_COMPLETE, words, n,
					ref, t->s_syscall, name));
	return 0;
}

/* Writes k's open system call as one duration-complete record ending at
 * ns: its arguments, and `ret` (int32 when it fits, as nearly all do)
 * with `error` for -4095..-1, or `unfinished`. */
int ftfb_tr_end_syscall(struct ftfb_translator *t, struct ftfb_task *k,
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
		err = ftfb_tr_end_syscall(t, k, e->hdr.ts, SYS_END_UNFINISHED,
					  0);
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
		return ftfb_tr_end_syscall(t, k, e->hdr.ts, SYS_END_CLEAN, 0);
	return ftfb_tr_end_syscall(t, k, e->hdr.ts, SYS_END_RET, e->ret);
}

/* At exit and exec: exit, exit_group and a successful execve never
 * return; they end there, cleanly. */
int ftfb_tr_end_syscall_never_returning(struct ftfb_translator *t,
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
		return ftfb_tr_end_syscall(t, k, ns, SYS_END_RET, 0);
	return ftfb_tr_end_syscall(
		t, k, ns, clean ? SYS_END_CLEAN : SYS_END_UNFINISHED, 0);
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
