/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/ubuf.h - the per-CPU buffer of uprobe events (map `ubufs`, see
 * common.bpf.h), shared by the BPF programs and the loader, which reads
 * the buffers' tails at stop through an mmap of the map.
 */
#ifndef FTFB_UBUF_H
#define FTFB_UBUF_H

#include "events.h"

#define FTFB_UBUF_BYTES 4000

/* busy values (0: free) */
#define FTFB_UBUF_APPENDING 1 /* a uprobe program appends */
#define FTFB_UBUF_FLUSHING 2  /* a sched program or the loader flushes */

/* The events in a buffer (and in an FTFB_EV_BATCH record) are compact:
 * the batch header carries the thread (tid, tgid, cpu: a buffer holds the
 * events of one thread), each event is this header followed by `nvals`
 * 64-bit values: the arguments of an entry, the return value of a
 * return. The loader expands them to struct ftfb_uentry / ftfb_uret. */
struct ftfb_ucompact {
	__u64 ts;
	__u64 sp; /* ftfb_uentry.sp / ftfb_uret.sp (0 for a system call) */
	__u32 cookie; /* for a system call: its number */
	__u16 kind; /* FTFB_EV_UENTRY, _URET, _SENTER, _SEXIT or _USDT */
	__u16 nvals;
};
/* A USDT hit (FTFB_EV_USDT) in compact form: sp holds nargs (bits 0-15),
 * strmask (16-31) and strbytes (32-47) of struct ftfb_usdt; the nvals
 * words are its nargs arguments, then its strbytes of strings. */

#define FTFB_UCOMPACT_MAX                                                      \
	(sizeof(struct ftfb_ucompact) + 8 * FTFB_USDT_MAX_ARGS +               \
	 FTFB_USDT_STR_BYTES)

/* The kinds a buffer holds, each a slot of its counters below; the
 * kind of slot i is FTFB_UBUF_SLOT_KINDS[i]. */
enum ftfb_ubuf_slot {
	FTFB_UBUF_ENTRY = 0, /* FTFB_EV_UENTRY */
	FTFB_UBUF_RET,	     /* FTFB_EV_URET */
	FTFB_UBUF_SENTER,    /* FTFB_EV_SENTER */
	FTFB_UBUF_SEXIT,     /* FTFB_EV_SEXIT */
	FTFB_UBUF_USDT,	     /* FTFB_EV_USDT */
	FTFB_UBUF_NSLOTS,
};
#define FTFB_UBUF_SLOT_KINDS                                                   \
	{ FTFB_EV_UENTRY, FTFB_EV_URET, FTFB_EV_SENTER, FTFB_EV_SEXIT,          \
	  FTFB_EV_USDT }

struct ftfb_ubuf {
	__u64 busy; /* 64 bits: clang 14 has no 32-bit BPF cmpxchg */
	__u32 n[FTFB_UBUF_NSLOTS]; /* events of each kind in data[] */
	__u32 _pad;
	/* The task that last ran a probe program on this cpu, remembered so
	 * that its next one reads its pid_tgid with a plain load, where the
	 * bpf_get_current_pid_tgid() call costs ~9 ns (Linux 6.18 on a VM with
	 * retpolines and SRSO's safe RET, measured with bpftrace): the task
	 * is known by the address of its registers (ctx: on its own kernel
	 * stack, so no two live tasks share it). See ftfb_running_id(). */
	__u64 id_regs; /* 0: none */
	__u64 id;
	/* Events appended to this buffer since load, by kind: part of the
	 * `fired` counts (kept here, in the cache line the append touches
	 * anyway, rather than in the `fired` map: measured cheaper). */
	__u64 fired[FTFB_UBUF_NSLOTS];
	struct ftfb_batch batch; /* batch.len: bytes used in data[] */
	__u8 data[FTFB_UBUF_BYTES];
};

#endif
