/* SPDX-License-Identifier: MIT */
/*
 * translate.h - raw BPF events (bpf/events.h) -> FTF records (libftf).
 *
 * A pure function of the raw event stream plus the process/thread table:
 * it never touches BPF, so tests feed it events they build themselves.
 *
 * Records written:
 *   - context switches (scheduling subtype 1): cpu, outgoing state from
 *     prev_state (ftfb_state_of()), outgoing/incoming tids as koids, int32
 *     args incoming_weight and outgoing_weight = ftfb_weight_of(prio);
 *     a switch whose outgoing task is not the one the CPU's previous
 *     switch put there (the kernel reported no switch-out) is preceded
 *     by a switch of that task to idle, at the same time, outgoing state
 *     running (stats.switches_repaired), so no CPU slice runs forever;
 *   - wakeups (subtype 2): cpu, woken tid, koid arg `waker` (the waker's
 *     tid); 40 bytes, and a context switch 48;
 *   - process (type 1) and thread (type 2, `process` koid arg) kernel
 *     objects: for tasks added at start, on fork, exec and rename, and for
 *     any tid first seen in the stream (resolved through opts.lookup);
 *   - uprobe calls as duration begin/end on the thread's track, name and
 *     category from opts.funcs[cookie], int64 args arg0..argN-1 and `ret`;
 *     ends written by the translator itself (thread exit, skipped returns,
 *     finish) carry a bool arg `unfinished` = true;
 *   - drops as a counter event "ftf-bpf dropped events" (category
 *     "ftf-bpf", on pid 0 / tid 0, counter id 0) with int64 args `total`
 *     and one per event kind, plus the provider "records dropped" event.
 *
 * Weights: the kernel's prio as it is (0..99 real-time, 100..139 nice
 * -20..19, so 120 for nice 0; deadline tasks have -1): Perfetto stores
 * incoming_weight as the CPU slice's priority and reads below 100 as
 * real-time, as Linux (and Perfetto's own Linux traces) number them. The
 * idle task (tid 0) gets INT32_MIN, which Perfetto reads as "idle".
 *
 * States: preempted or 0 -> running; EXIT_DEAD -> dead; EXIT_ZOMBIE ->
 * dying; TASK_DEAD alone -> dead; stopped/traced -> suspended; S, D
 * (incl. idle and killable), parked -> blocked; anything else -> running.
 *
 * Names: a thread is named by its comm; a process as ps -o args shows it:
 * by process_name when it is a title the process set (procfs.h), else by
 * its leader's comm, or by process_name (cmdline's first word) when comm
 * is truncated to 15 characters. A process's cmdline (task_info) goes to
 * Perfetto as a ProcessTree packet (proctree.h). Every distinct string is interned once; past the 32767
 * string ids, names go through the writer's temporary slots (round
 * robin), so the trace never runs out of names.
 *
 * Threads refs: the writer's 255 slots are given to threads least
 * recently used first; a thread record is re-emitted whenever a slot
 * changes hands, so any number of threads works.
 *
 * Uprobe depth cap: opts.max_depth (default 512) open calls per thread;
 * deeper calls are counted (stats.depth_capped) and not written, and their
 * returns are matched and dropped, so the written slices stay balanced.
 * Calls and returns are matched by stack pointer when the events carry it
 * (see translate.c before on_uentry): calls abandoned by longjmp or a
 * lost return end (unfinished) at the next call at the same or a higher
 * stack address, so they never pile up to the cap.
 */
#ifndef FTFB_TRANSLATE_H
#define FTFB_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"
#include "events.h"
#include "proctable.h"
#include "stackprof.h"
#include "ticks.h"
#include "tr_types.h"

struct ftfb_tr_source; /* event_kinds.h */

/* Open USDT slices, all threads together, at most (more are counted,
 * not written). */
#define FTFB_USLICE_MAX 4096

struct ftfb_translator_opts {
	struct ftf_writer *w;  /* header already written by the caller */
	bool clock_mono;       /* write CLOCK_MONOTONIC ns as ticks (1e9/s) */
	ftfb_lookup_fn lookup; /* may be NULL */
	void *lookup_ctx;
	const struct ftfb_func *funcs;
	size_t nfuncs;
	const struct ftfb_usdt_desc *usdt; /* -u usdt:... */
	size_t nusdt;
	unsigned max_depth;    /* uprobe nesting cap per thread; 0: 512 */
	size_t expected_tasks; /* table size hint; 0: 4096 */
	uint32_t self_tid;     /* the tracer's pid (main thread), which owns
				* the dropped-events counter; 0: pid 0 */
	struct ftfb_stackprof *stacks; /* --stacks: where samples go */
	/* -p/--: the tasks of no traced process (what only shared a CPU
	 * with them) get no process or thread record, only their name as a
	 * thread of no process (proctree.h), so Perfetto lists the traced
	 * processes alone and the CPU tracks still name everything. The
	 * traced ones: ftfb_translator_add_task's, their forks, their
	 * threads. */
	bool strangers_apart;
	/* the event sources beyond the core's kinds (event_kinds.h: their
	 * kinds, handlers and state), as the source table lists them; a
	 * kind of none of them is skipped */
	const struct ftfb_tr_source *const *sources;
	size_t nsources;
};

struct ftfb_translator_stats {
	uint64_t by_kind[FTFB_EV_KIND_MAX]; /* events handled, by kind */
	uint64_t events;		    /* all events given */
	uint64_t records;	/* FTF records written (events + objects) */
	uint64_t skipped;	/* unknown kind, short size, bad cookie */
	uint64_t dropped_total; /* last total given to ..._drops() */
	uint64_t slices_closed_early; /* ends written for missing returns */
	uint64_t depth_capped;	      /* calls past max_depth (not written) */
	uint64_t unmatched_returns;   /* returns with no open call */
	uint64_t lookups_failed;      /* tids first seen that lookup missed */
	uint64_t named_by_kernel;     /* tasks named from the kernel's comm
				       * (gone from /proc) */
	uint64_t temp_strings;	      /* names written through temp slots */
	/* returns matched to an open call by stack pointer whose cookie
	 * (function) differs: ended anyway, sp is authoritative */
	uint64_t sp_cookie_mismatch;
	/* returns of calls that tail-called another probed function
	 * (already ended, unfinished, at its entry): not unmatched */
	uint64_t tail_returns;
	/* system call exits with no entry seen (the trace's start, an
	 * execve ended at its exec) */
	uint64_t sys_unmatched;
	/* USDT hits: instants written, slices written, ends with no open
	 * start (started before the trace), starts past FTFB_USLICE_MAX
	 * open slices (not written) */
	uint64_t usdt_instants, usdt_slices, usdt_unmatched, usdt_capped;
	/* switches whose outgoing task was not the one the CPU's previous
	 * switch put there: that one was ended first (see on_switch) */
	uint64_t switches_repaired;
};

/* Per-function call counts and inclusive time (for the summary): a call
 * counts when it enters (capped calls too); its time when it returns or is
 * ended by the translator; recursive calls count at every level. */
#define FTFB_MAX_ERRNO 4095 /* a return in [-4095, -1] is an error */

struct ftfb_func_stats {
	uint64_t calls;
	uint64_t total_ns;
};

/* Opaque: the tool reads it through the accessors below. */
struct ftfb_translator;

/* A translator writing to o->w: writes the tick initialization. 0 or a
 * negative errno (-ENOMEM, the writer's error). */
int ftfb_translator_new(struct ftfb_translator **out,
			const struct ftfb_translator_opts *o);
/* t may be NULL. */
void ftfb_translator_destroy(struct ftfb_translator *t);

/* Declares a task alive at start (from the /proc scan): writes its
 * process (for a leader) and thread kernel objects. */
int ftfb_translator_add_task(struct ftfb_translator *t,
			     const struct ftfb_task_info *ti);

/* (ftfb_ticks_to_ns_as_perfetto: ticks.h) */

/* n, less a UTF-8 character cut short at the end of s[0..n) (a comm the
 * kernel cut at 15 bytes): the bytes of whole characters. */
size_t ftfb_utf8_whole(const char *s, size_t n);

/* One raw event as it came from the ring buffer. Unknown kinds and short
 * sizes are counted (stats.skipped) and skipped, not an error. Returns 0 or
 * the writer's negative error. */
int ftfb_translator_event(struct ftfb_translator *t, const void *data,
			  size_t size);

/* Cumulative drop counters by kind (index = enum ftfb_kind). Writes the
 * counter event once events were lost and whenever the total grew (none
 * while none is lost), and the provider "records dropped" event when it
 * grew. */
int ftfb_translator_drops(struct ftfb_translator *t, uint64_t mono_ns,
			  const uint64_t drops[FTFB_EV_KIND_MAX]);

/* End of trace at mono_ns: ends every open slice (marked `unfinished`),
 * flushes. Does not close the writer. */
int ftfb_translator_finish(struct ftfb_translator *t, uint64_t mono_ns);

/* Titles set after the trace began (argv written over, no event): reads
 * through opts.lookup the command line of up to `budget` processes whose
 * threads were switched in or woken since their last look (all: every
 * live process), and writes a process record (Perfetto renames the
 * process) and its command line for each whose name changed or whose
 * command line was never written (a forked process). 0 or the writer's
 * error. */
int ftfb_translator_titles(struct ftfb_translator *t, size_t budget, bool all);

/* Begins in `to`, at ts, the USDT slices open in `from` (same probes):
 * a flight-recorder snapshot's slices that began before its window.
 * Their string arguments are left out. 0 or the writer's error. */
int ftfb_translator_usdt_inherit(struct ftfb_translator *from,
				 struct ftfb_translator *to, uint64_t ts);

/* Function indexes sorted by calls (by_time false) or total time, best
 * first; writes min(n, nfuncs) indexes of functions called at least once
 * and returns how many. */
size_t ftfb_translator_top(const struct ftfb_translator *t, bool by_time,
			   size_t *out, size_t n);

/* The same for system calls: numbers, top n by count or total time. */
size_t ftfb_translator_top_syscalls(const struct ftfb_translator *t,
				    bool by_time, size_t *out, size_t n);

/* What the summary reads: the statistics, and the calls and time of
 * function (cookie) i and of system call nr. */
const struct ftfb_translator_stats *
ftfb_translator_stats(const struct ftfb_translator *t);
const struct ftfb_func_stats *
ftfb_translator_func_stats(const struct ftfb_translator *t, size_t i);
const struct ftfb_func_stats *
ftfb_translator_syscall_stats(const struct ftfb_translator *t, uint32_t nr);

/* The process/thread table as the translator keeps it (the flight
 * recorder's tracker reads what the window's start inherits). */
struct ftfb_proctable *ftfb_translator_tasks(struct ftfb_translator *t);

/* (ftfb_state_of and ftfb_weight_of, exposed for tests:
 * sched_records.h) */

#endif
