/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/ubuf.bpf.h - appending to this cpu's buffer of compact events (the
 * `ubufs` map of common.bpf.h, layout in ubuf.h): used by the uprobe and
 * the system call programs, whose events of one thread share it.
 */
#ifndef FTFB_UBUF_BPF_H
#define FTFB_UBUF_BPF_H

#include "common.bpf.h"

/* This cpu's buffer (NULL only past the map's size). */
static __always_inline struct ftfb_ubuf *ftfb_ubuf_of(__u32 cpu)
{
	return bpf_map_lookup_elem(&ubufs, &cpu);
}

/* pid_tgid of the task this program runs for, whose registers are at
 * regs (the program's ctx, or a system call's regs): the one remembered in
 * this cpu's buffer b if it is that task's (*known), else the helper's
 * (remembered when the caller claims b: ftfb_ubuf_claim_for).
 *
 * Only b's holder writes id_regs and id, in the order 0, id, regs; the
 * sched programs write 0 whoever holds b. A reader that does not hold b
 * runs between them only when it preempted the writer or was preempted
 * by it, so it reads id_regs before and after id: unchanged and equal to
 * its own regs, no one wrote id in between (a writer ends by writing its
 * own, different, regs; the reader cannot write while preempted). */
static __always_inline __u64 ftfb_running_id(const struct ftfb_ubuf *b,
					      const void *regs, bool *known)
{
	__u64 key = (__u64)regs, id;

	*known = false;
	if (b && b->id_regs == key) {
		ftfb_barrier();
		id = b->id;
		ftfb_barrier();
		if (b->id_regs == key) {
			*known = true;
			return id;
		}
	}
	return bpf_get_current_pid_tgid();
}

/* Claims b (busy = 1) for the task id (registers at regs, see
 * ftfb_running_id), and remembers it there unless it was known; false if
 * b is NULL or another program holds it (a preempted append of another
 * thread, a flusher). */
static __always_inline bool ftfb_ubuf_claim_for(struct ftfb_ubuf *b,
						const void *regs, __u64 id,
						bool known)
{
	if (!b || __sync_val_compare_and_swap(&b->busy, 0,
					      FTFB_UBUF_APPENDING) != 0)
		return false;
	if (!known) {
		b->id_regs = 0;
		ftfb_barrier();
		b->id = id;
		ftfb_barrier();
		b->id_regs = (__u64)regs;
	}
	return true;
}

/* Room for an event of `size` bytes of thread id in b: flushes b if it is
 * full or holds another thread's events (possible only when a sched
 * flush was skipped, see common.bpf.h). Returns the offset to write at. */
static __always_inline __u32 ftfb_ubuf_room(struct ftfb_ubuf *b, __u64 id, __u32 cpu)
{
	__u32 off = b->batch.len;

	if (off && (off > FTFB_UBUF_BYTES - FTFB_UCOMPACT_MAX ||
		    b->batch.hdr.tid != (__u32)id)) {
		ftfb_ubuf_flush(b, cpu);
		off = 0;
	}
	if (!off) {
		b->batch.hdr.cpu = cpu;
		b->batch.hdr.tid = (__u32)id;
		b->batch.hdr.tgid = id >> 32;
	}
	return off;
}

/* The head of a compact event of the task `id` at the end of b (flushing b
 * first if needed, see ftfb_ubuf_room); *off is where it starts. The caller
 * writes the nvals values after it and then sets batch.len. */
static __always_inline struct ftfb_ucompact *
ftfb_ubuf_append(struct ftfb_ubuf *b, __u64 id, __u32 cpu, __u16 kind,
		 __u16 nvals, __u32 cookie, __u64 sp, __u32 *off)
{
	struct ftfb_ucompact *c;

	*off = ftfb_ubuf_room(b, id, cpu);
	c = (void *)&b->data[*off];
	c->ts = bpf_ktime_get_ns();
	c->cookie = cookie;
	c->sp = sp;
	c->kind = kind;
	c->nvals = nvals;
	return c;
}

#endif
