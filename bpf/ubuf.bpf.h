/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/ubuf.bpf.h - appending to this cpu's buffer of compact events (the
 * `ubufs` map of common.bpf.h, layout in ubuf.h): used by the uprobe and
 * the system call programs, whose events of one thread share it.
 */
#ifndef FTFB_UBUF_BPF_H
#define FTFB_UBUF_BPF_H

#include "common.bpf.h"

/* This cpu's buffer, claimed (busy = 1), or NULL if another program
 * holds it (a preempted uprobe program of another thread, the loader). */
static __always_inline struct ftfb_ubuf *ftfb_ubuf_claim(__u32 cpu)
{
	struct ftfb_ubuf *b = bpf_map_lookup_elem(&ubufs, &cpu);

	if (!b ||
	    __sync_val_compare_and_swap(&b->busy, 0, FTFB_UBUF_APPENDING) != 0)
		return NULL;
	return b;
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
