/* SPDX-License-Identifier: MIT */
/*
 * src/bpf_loader.h - load, attach and read the BPF programs of bpf/.
 *
 * One loader owns the sched programs, the uprobe programs, their shared
 * maps (ring buffers, traced tgids, counters) and every link. The events
 * come out of ftfb_loader_poll()/ftfb_loader_drain() as the raw structs of
 * bpf/events.h (never FTFB_EV_BATCH: those records are split here).
 */
#ifndef FTFB_BPF_LOADER_H
#define FTFB_BPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "defaults.h"
#include "events.h"
#include "ring_reader.h"


/* (ftfb_event_fn, the callback of the poll and drain: ring_reader.h) */

struct ftfb_loader_opts {
	bool filter_tgids; /* true for -p/-- (per process), false for -a */
	size_t ring_bytes; /* per ring, power of 2 >= page size; 0: 8 MiB */
	int nr_rings;      /* 0: 1; events go to ring cpu % nr_rings */
	bool sched;        /* attach the sched programs */
	int uprobe_nargs;  /* 0..6 */
	bool verbose;      /* let libbpf's warnings through to stderr */
	bool uprobe_no_multi; /* one link per function even where the
			       * kernel has uprobe_multi (tests, debugging) */
	bool exclude_self;       /* never record this process's uprobe hits */
	bool waker_stacks;       /* with the stacks: the wakers' (--events=waker) */
	bool tables_nice_set;    /* the unwind table thread is born with */
	int tables_nice;         /* this nice value, not its creator's */
	bool background_detach;  /* close: the links' last copies are closed
				  * by a helper process (detach.h), so the
				  * caller never waits for the kernel */
	bool python_stacks;      /* --stacks: read CPython processes' Python
				  * frames (bpf/pystack.bpf.h) */
	bool preload_stacks;     /* the stacks will be attached: their
				  * programs load from the open on, beside
				  * the rest of the start */
};

struct ftfb_loader; /* opaque */

/* The kernel's BTF (CO-RE needs /sys/kernel/btf/vmlinux): 0, or -errno
 * with one line in errmsg. ftfb_loader_open checks it too; the tool asks
 * first, before it creates the output. */
int ftfb_loader_check_btf(char *errmsg, size_t errlen);

/* Load the programs and attach the sched ones (if opts->sched). On
 * failure returns -errno and puts one line in errmsg. */
int ftfb_loader_open(struct ftfb_loader **out,
		     const struct ftfb_loader_opts *opts, char *errmsg,
		     size_t errlen);

/* Add tgid to the traced set (used when opts->filter_tgids). */
int ftfb_loader_trace_tgid(struct ftfb_loader *l, uint32_t tgid);

/* Attach the entry and return programs to n functions of binary_path at
 * file offsets offs[i], events carrying cookies[i]; pid -1 for every
 * process. Uses one uprobe_multi link per kind, or one link per function
 * where the kernel has no uprobe_multi. 0 or -errno with errmsg. */
int ftfb_loader_attach_uprobes(struct ftfb_loader *l, const char *binary_path,
			       const uint64_t *offs, const uint64_t *cookies,
			       size_t n, int pid, char *errmsg, size_t errlen);

/* Attaches the USDT program to every location of probe provider:name in
 * binary_path (exact names; libbpf's attach: semaphores are counted by
 * the kernel while attached), its hits carrying cookie (bits 0-31: the
 * probe's index, 32-43: the arguments to read as strings; see
 * bpf/usdt.bpf.c); pid -1 for every process. Armed with the uprobes.
 * 0 or -errno with errmsg. */
int ftfb_loader_attach_usdt(struct ftfb_loader *l, const char *binary_path,
			    const char *provider, const char *name,
			    uint64_t cookie, int pid, char *errmsg,
			    size_t errlen);

/* Starts (on) or stops recording calls at the attached uprobes: armed
 * after the last ftfb_loader_attach_uprobes(), so every function's
 * entries and returns start at the same instant; drain disarms before it
 * detaches. The USDT probes too. */
void ftfb_loader_arm_uprobes(struct ftfb_loader *l, bool on);
/* Records system calls (tp_btf raw_syscalls) of the traced tasks, or of
 * process only_tgid alone (not 0): wanted[nr] != 0 for the ones to record
 * (FTFB_NR_SYSCALLS entries), or NULL for all; the arguments with
 * opts.uprobe_nargs. 0 or -errno with errmsg. */
int ftfb_loader_attach_syscalls(struct ftfb_loader *l, const uint8_t *wanted,
				uint32_t only_tgid, char *errmsg,
				size_t errlen);

/* Stack samples (--stacks): the on-CPU sampler on a cpu-clock perf
 * event per cpu at freq_hz, and the off-CPU stacks at sched_switch, of
 * the traced tasks (FTFB_EV_STACK_ON / FTFB_EV_STACK_OFF events). 0 or
 * -errno with errmsg. */
int ftfb_loader_attach_stacks(struct ftfb_loader *l, unsigned freq_hz,
			      char *errmsg, size_t errlen);

/* An --events source's attach (loader/loader_NAME.c, reached through its
 * row of the source table, src/sources.c): its own object opened,
 * loaded, attached and armed at once, recording the traced processes,
 * or all with -a. 0 or -errno with errmsg. */
typedef int ftfb_loader_attach_fn(struct ftfb_loader *l, char *errmsg,
				  size_t errlen);

/* true once uprobes were attached through uprobe_multi links. */
bool ftfb_loader_uprobe_multi(const struct ftfb_loader *l);

/* Wait up to timeout_ms for a ring buffer wakeup, then consume whatever
 * is available (wakeups are batched, so data may be there without one).
 * Returns the number of events consumed, fn's non-zero return, or -errno
 * (-EINTR: interrupted by a signal, not an error to report). */
int ftfb_loader_poll(struct ftfb_loader *l, int timeout_ms, ftfb_event_fn fn,
		     void *ctx);

/* As ftfb_loader_poll, but fn gets the ring records as they are (a
 * batch of buffered events is one), to be handed over later with
 * ftfb_loader_deliver: what start-up reads (session's early reader)
 * kept compact. Not while another thread polls l. */
int ftfb_loader_poll_raw(struct ftfb_loader *l, int timeout_ms,
			 ftfb_event_fn fn, void *ctx);

/* One record of ftfb_loader_poll_raw to fn, as ftfb_loader_poll would
 * have given it (a batch split into its events). 0 or fn's non-zero
 * return (-EBADMSG: a malformed batch). */
int ftfb_loader_deliver(struct ftfb_loader *l, const void *data, size_t size,
			ftfb_event_fn fn, void *ctx);

/* --rings N: ring 0 alone is polled and drained from now on, and rings
 * 1..N-1 (switches, wakeups and task names only) are the caller's to read
 * on threads of their own (ring_reader.h): their map fds (the loader's,
 * closed at ftfb_loader_close) go into fds. The number of fds, 0 with
 * one ring, or -errno. Call it before the first poll. */
int ftfb_loader_split_rings(struct ftfb_loader *l, int fds[FTFB_MAX_RINGS]);

/* Stops every program from recording (they stay attached, returning at
 * once, until ftfb_loader_close()). */
void ftfb_loader_stop_recording(struct ftfb_loader *l);

/* At stop: stop recording (nothing new comes in, so it ends even on a
 * busy machine), then consume everything left, waiting at most about a
 * second for records still being written, including the uprobe events
 * still buffered per thread (each thread's events in order). The maps
 * stay, for ftfb_loader_counters(). Returns the number of events
 * consumed, fn's non-zero return or -errno. */
int ftfb_loader_drain(struct ftfb_loader *l, ftfb_event_fn fn, void *ctx);

/* Sums over CPUs of the per-kind counters: events lost (ring full) and
 * events the programs tried to emit (written + dropped = fired). */
int ftfb_loader_counters(struct ftfb_loader *l,
			 uint64_t drops[FTFB_EV_KIND_MAX],
			 uint64_t fired[FTFB_EV_KIND_MAX]);

/* Run-time statistics of our programs (kernel.bpf_stats_enabled must be
 * 1 for them to count): sums over the entry (or return) programs. */
struct ftfb_prog_stats {
	uint64_t run_cnt;
	uint64_t run_time_ns;
};
int ftfb_loader_uprobe_stats(struct ftfb_loader *l,
			     struct ftfb_prog_stats *entry,
			     struct ftfb_prog_stats *ret);

/* --stacks: the user stack walker's statistics (unwind_maps.h); -ENOENT
 * without --stacks. */
struct ftfb_uw_stats;
int ftfb_loader_unwind_stats(struct ftfb_loader *l, struct ftfb_uw_stats *st);

/* --stacks with python_stacks: process tgid is CPython (p), or no
 * longer (NULL): an ftfb_py_set_fn (pystack_procs.h) with l as ctx. */
int ftfb_loader_set_python(void *l, uint32_t tgid,
			   const struct ftfb_py_proc *p);

/* The same for the --stacks programs: the on-CPU sampler, and the
 * off-CPU one (it runs at every context switch of the machine). */
int ftfb_loader_stack_stats(struct ftfb_loader *l, struct ftfb_prog_stats *on,
			    struct ftfb_prog_stats *off);

/* IDs of our loaded programs (kernel prog ids, as `bpftool prog show`
 * lists them); returns how many there are (at most max are stored). */
int ftfb_loader_prog_ids(struct ftfb_loader *l, uint32_t *ids, size_t max);

/* Detach and unload everything; l may be NULL. With background_detach
 * this returns at once however long the kernel takes to release the
 * links; without, it may wait for the kernel (minutes on a starved cpu). */
void ftfb_loader_close(struct ftfb_loader *l);

#endif
