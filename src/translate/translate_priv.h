/* SPDX-License-Identifier: MIT */
/*
 * translate_priv.h - the translator's helpers shared by its parts
 * (translate*.c, event_kinds.c) and its state, which
 * white-box tests may read; not for the tool.
 */
#ifndef FTFB_TRANSLATE_PRIV_H
#define FTFB_TRANSLATE_PRIV_H

#include "ftf/reader.h"
#include "ftf/writer.h"
#include "arg_words.h"
#include "named_tracks.h"
#include "proctree.h"
#include "sched_records.h"
#include "ticks.h"
#include "translate.h"
#include "event_kinds.h"

/* Open USDT slices, all threads together (a pool: no allocation per
 * event); a task's form a stack through `below`. */
struct ftfb_uslice {
	/* the START hit as the BPF side sent it: a flight-recorder
	 * snapshot begins the slice again with it, strings included */
	struct ftfb_usdt start;
	uint32_t below; /* index + 1 of the one under it, 0: none */
	/* its thread's track of its pair (named_tracks.h), where its begin
	 * was written and its end goes */
	uint64_t track;
};

struct ftfb_translator {
	struct ftfb_translator_opts o;
	struct ftf_writer *w;
	struct ftfb_proctable pt;
	struct ftfb_translator_stats st;
	struct ftfb_func_stats *fstats; /* nfuncs */
	int *func_name_id; /* nfuncs; 0 unknown, -1 use temp slots */
	int *func_cat_id;
	int temp_next;
	bool ids_exhausted; /* the writer ran out of string ids */
	/* argument and event names, interned at init */
	int s_unfinished, s_before_window, s_ret, s_arg[FTFB_MAX_ARGS];
	int s_drop_name, s_drop_cat, s_total, s_kind[FTFB_EV_KIND_MAX];
	/* system calls: their names (0: not interned yet), category, the
	 * error argument and error names, per-call statistics */
	int s_syscall, s_error;
	int sys_name_id[FTFB_NR_SYSCALLS];
	int errno_name_id[FTFB_MAX_ERRNO + 1];
	struct ftfb_func_stats sys_stats[FTFB_NR_SYSCALLS];
	/* USDT: name and category ids per probe (0: not yet), the default
	 * argument names, the open slices' pool and its free list */
	int *usdt_name_id, *usdt_cat_id;
	int s_uarg[FTFB_USDT_MAX_ARGS], s_end_arg[FTFB_USDT_MAX_ARGS];
	struct ftfb_uslice *uslices;
	uint32_t uslice_free;	    /* index + 1, 0: none */
	bool drops_written;
	struct ftfb_proctree ptree; /* command lines waiting to be written */
	struct ftfb_named_tracks ntracks; /* slices on named tracks */
	/* switches and wakeups (their argument names interned at init) */
	struct ftfb_sched_rec sched;
	struct ftfb_ticks tk;	   /* mono ns -> ticks, the writer's clock */
	uint64_t last_ts;	   /* newest event timestamp seen (mono ns) */
	uint64_t refresh_check_ns; /* the writer's refresh is asked from then */
	size_t title_cursor; /* where translate_titles.c's last round ended */
	bool adding_traced; /* the task new_task makes is traced (fork, scan) */
	/* a stranger was named (process 0 has threads), and process 0 was
	 * then ranked after the traced processes (process_order.h) */
	bool strangers_named, strangers_ranked;
	/* ends all a task has open (ftfb_tr_close_all): the core's way to
	 * the parts above it (translate_tasks.c calls no part by name) */
	int (*close_task)(struct ftfb_translator *t, struct ftfb_task *k,
			  uint64_t ns);
	/* each kind's row (the core's, then o.sources'; copied, so the
	 * dispatch reads it without a load more), and the state of the
	 * source it is of (opaque here: its translator's own) */
	struct ftfb_kind_info kinds[FTFB_EV_KIND_MAX];
	void *kind_state[FTFB_EV_KIND_MAX];
	void **src_state; /* o.nsources, freed with t */
};

/* In place (the tests' harness keeps one in a struct): 0 or a negative
 * errno; free undoes it. */
int ftfb_translator_init(struct ftfb_translator *t,
			 const struct ftfb_translator_opts *o);
void ftfb_translator_free(struct ftfb_translator *t);

/* The state of kind's source (struct ftfb_tr_source: NULL if it has
 * none), for its handlers. */
static inline void *ftfb_tr_state(struct ftfb_translator *t, unsigned kind)
{
	return t->kind_state[kind];
}

/* mono ns -> the trace's ticks (ticks.h) */
static inline uint64_t ftfb_tr_ticks(struct ftfb_translator *t, uint64_t ns)
{
	return ftfb_ticks_of(&t->tk, ns);
}
/* string id of s (permanent, or a temporary slot once ids run out:
 * *temp then true) */
int ftfb_tr_str_id(struct ftfb_translator *t, const char *s, size_t len,
		   bool *temp);
/* a task not known yet: created and named */
int ftfb_tr_add_task(struct ftfb_translator *t, uint32_t tid,
		     uint32_t tgid_hint, struct ftfb_task **out);
/* the entry for ti made (again: what it had open ended first, through
 * t->close_task) and its kernel objects written; out may be NULL */
int ftfb_tr_new_task(struct ftfb_translator *t, const struct ftfb_task_info *ti,
		     struct ftfb_task **out);
/* a task the lookup found, after its process's leader */
int ftfb_tr_add_found_task(struct ftfb_translator *t,
			   const struct ftfb_task_info *ti,
			   struct ftfb_task **out);
/* the task, created (and named) on first sight; 0 or -errno */
static inline int ftfb_tr_ensure_task(struct ftfb_translator *t, uint32_t tid,
				      uint32_t tgid_hint,
				      struct ftfb_task **out)
{
	*out = ftfb_pt_find(&t->pt, tid);
	return *out ? 0 : ftfb_tr_add_task(t, tid, tgid_hint, out);
}
/* its thread ref, a slot assigned if needed (ftfb_tr_thread_ref_new: the
 * slow half, out of line so the usual case stays a few instructions) */
int ftfb_tr_thread_ref_new(struct ftfb_translator *t, struct ftfb_task *k);
static inline int ftfb_tr_thread_ref(struct ftfb_translator *t,
				     struct ftfb_task *k)
{
	if (k->slot >= 0) {
		ftfb_pt_slot_touch(&t->pt, k->slot);
		return k->slot + 1;
	}
	return ftfb_tr_thread_ref_new(t, k);
}

/* translate_names.c: a string id interned for good, process and thread
 * names as records, command lines for Perfetto (written at the first
 * event if the trace has not begun) */
int ftfb_tr_flush_cmdlines(struct ftfb_translator *t, uint64_t ns);
int ftfb_tr_write_cmdline(struct ftfb_translator *t,
			  const struct ftfb_task_info *ti);
int ftfb_tr_write_process(struct ftfb_translator *t, struct ftfb_task *k);
int ftfb_tr_write_thread(struct ftfb_translator *t, struct ftfb_task *k);
/* a comm or process name copied whole (a cut UTF-8 character dropped) */
void ftfb_tr_set_comm(char *dst, const char *src);
void ftfb_tr_set_pname(char *dst, const char *src);

/* mono ns as Perfetto reads the FTF part's time: the ticks written,
 * converted with the ticks per second of the tick initialization */
static inline uint64_t ftfb_tr_perfetto_ns(struct ftfb_translator *t,
					   uint64_t ns)
{
	uint64_t tps = t->o.clock_mono
			       ? 1000000000ull
			       : ftf_writer_clock(t->w)->ticks_per_second;

	return ftfb_ticks_to_ns_as_perfetto(ftfb_tr_ticks(t, ns), tps);
}

/* translate_sched.c: the switch and wakeup writer over t's writer */
void ftfb_tr_sched_init(struct ftfb_translator *t);

/* translate_task_events.c: ends all k has open at ns (its system call,
 * USDT slices and calls, marked unfinished); the translator's
 * t->close_task */
int ftfb_tr_close_all(struct ftfb_translator *t, struct ftfb_task *k,
		      uint64_t ns);

/* translate_calls.c: ends k's top call at ns, with `ret` if has_ret */
int ftfb_tr_end_frame(struct ftfb_translator *t, struct ftfb_task *k,
		      uint64_t ns, bool has_ret, uint64_t ret);

/* translate_syscalls.c: how k's open system call ends */
enum sys_end {
	SYS_END_RET,	    /* its exit: ret */
	SYS_END_CLEAN,	    /* it never returns by design: exit, exec */
	SYS_END_UNFINISHED, /* the stop, a lost exit */
};
int ftfb_tr_end_syscall(struct ftfb_translator *t, struct ftfb_task *k,
			uint64_t ns, int how, int64_t ret);
/* at exit (exec false) and exec: the calls that never return end there */
int ftfb_tr_end_syscall_never_returning(struct ftfb_translator *t,
					struct ftfb_task *k, uint64_t ns,
					bool exec);

/* a string id kept in *cache once interned for good (a temporary one is
 * returned, not kept); 0 in *cache: not yet */
int ftfb_tr_cached_id(struct ftfb_translator *t, int *cache, const char *s);
/* ids above any pid (pid_max is at most 2^22), of tasks of no process
 * of Linux that earlier traces had (a disk, a cpu's interrupts; all are
 * on named tracks now, named_tracks.h) */
#define FTFB_PSEUDO_IRQ_PID 0x7b000000u /* + 1 + cpu: its threads */
#define FTFB_PSEUDO_MAX_CPUS 4096
#define FTFB_PSEUDO_DISK_PID 0x7c000000u /* + major:minor in 22 bits */

/* translate_usdt.c */
int ftfb_tr_usdt_init(struct ftfb_translator *t);
void ftfb_tr_usdt_free(struct ftfb_translator *t);
int ftfb_tr_usdt(struct ftfb_translator *t, const struct ftfb_usdt *e);
/* ends k's open USDT slices at ns, marked unfinished */
int ftfb_tr_usdt_close(struct ftfb_translator *t, struct ftfb_task *k,
		       uint64_t ns);

/* The handlers of the event-kind table (event_kinds.c): each copies its
 * event into an aligned local (ring buffer records are 8-aligned, but
 * tests and replays may hand any pointer) and handles it. */
#define COPY_EVENT(type, e, data)                                              \
	type e;                                                                \
	memcpy(&e, data, sizeof(e))

/* (the handlers of the event kinds: event_kinds.h) */

#endif
