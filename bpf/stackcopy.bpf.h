/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/stackcopy.bpf.h - an on-CPU sample whose user stack walk stopped
 * "not loaded yet" goes out with a copy of the user stack (bpf/stackcopy.h),
 * for userspace to finish the walk once the table is built. Only then:
 * every other sample goes out as before, and a copy that finds no room
 * in the ring falls back to the ordinary event.
 *
 * Included by stacks.bpf.c after unwind.bpf.h (uw_bufs: the walk just
 * made on this cpu) and its stack_buf.
 */
#ifndef FTFB_STACKCOPY_BPF_H
#define FTFB_STACKCOPY_BPF_H

#include "stackcopy.h"

#define SC_PAGE 4096

struct sc_buf {
	struct ftfb_stack_copy c;
	__u8 bytes[FTFB_SC_MAX_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_buf);
} sc_bufs SEC(".maps");

/* The user stack from sp up to the end of a page, as many pages as are
 * mapped (at most FTFB_SC_MAX_BYTES): a read that runs into an unmapped
 * page fails whole, so the longest is tried first. */
static __always_inline __u32 sc_read_stack(struct sc_buf *c, __u64 sp)
{
	__u32 head = SC_PAGE - (sp & (SC_PAGE - 1)), len;

	for (int k = FTFB_SC_MAX_BYTES / SC_PAGE - 1; k >= 0; k--) {
		len = head + k * SC_PAGE;
		if (len > FTFB_SC_MAX_BYTES)
			continue;
		if (!bpf_probe_read_user(c->bytes, len, (const void *)sp))
			return len;
	}
	return 0;
}

/* Before a sample's stacks are taken: the last walk on this cpu (the
 * on-CPU or the off-CPU program's) left its reason in uw_bufs, and a
 * sample that walks no user stack (a kernel thread's) would be sent as
 * a copy of that walk, under its own thread: rcu_preempt and kdamond
 * carried another process's user frames beside a build. */
static __always_inline void ftfb_sc_forget(void)
{
	__u32 zero = 0;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);

	if (b)
		b->w.reason = FTFB_UW_COMPLETE;
}

/* Writes the copy record of sample s (its stacks taken by take_stacks,
 * the user walk's state still in uw_bufs) into rb: false if the walk did
 * not stop "not loaded yet" or the record did not fit. */
static __always_inline bool ftfb_sc_send(struct stack_buf *s, void *rb)
{
	__u32 zero = 0, nu, nrest, off, nbytes, size;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);
	struct sc_buf *c = bpf_map_lookup_elem(&sc_bufs, &zero);
	const struct ftfb_uw_proc *p;
	const struct ftfb_uw_map *m;
	struct bpf_dynptr d;

	if (!b || !c || !rb || b->w.reason != FTFB_UW_NOT_LOADED)
		return false;
	nu = b->w.n + 1; /* with the stop frame ftfb_uw_user_stack added */
	if (nu > UW_DEPTH)
		return false;
	off = s->ev.nu; /* (0: the user ips were sent before) */
	nrest = s->ev.nk + s->ev.py.n;
	if (off > DEPTH || nrest > MAX_SENT - DEPTH)
		return false;
	c->c.ev = s->ev;
	c->c.ev.hdr.kind = FTFB_EV_STACK_COPY;
	c->c.ev.hdr._pad = 0;
	c->c.ev._pad = 0;
	c->c.ev.nu = nu;
	c->c.pc = b->w.pc;
	c->c.sp = b->w.sp;
	c->c.bp = b->w.bp;
	c->c.flags = (b->w.bp_known ? FTFB_SC_BP_KNOWN : 0) |
		     (b->w.n > 1 || b->w.trapped ? FTFB_SC_RETADDR : 0);
	c->c.map_start = c->c.map_end = 0;
	p = bpf_map_lookup_elem(&uw_procs, &b->w.tgid);
	m = p ? uw_find_map(p, b->w.pc) : NULL;
	if (m) {
		c->c.map_start = m->start;
		c->c.map_end = m->end;
	}
	nbytes = sc_read_stack(c, b->w.sp);
	c->c.nbytes = nbytes;
	size = sizeof(c->c) + (nu + nrest) * 8 + nbytes;
	if (bpf_ringbuf_reserve_dynptr(rb, size, 0, &d)) {
		bpf_ringbuf_discard_dynptr(&d, 0);
		return false;
	}
	/* (the masks: bounds the verifier sees; the values were checked,
	 * which the barriers keep clang from taking as the bounds) */
	asm volatile("" : "+r"(nu), "+r"(off), "+r"(nrest));
	nu &= UW_MASK;
	off &= DEPTH;
	nrest &= 255;
	bpf_dynptr_write(&d, 0, &c->c, sizeof(c->c), 0);
	bpf_dynptr_write(&d, sizeof(c->c), b->ips, nu * 8, 0);
	bpf_dynptr_write(&d, sizeof(c->c) + nu * 8, &s->ips[off], nrest * 8, 0);
	if (nbytes > FTFB_SC_MAX_BYTES)
		nbytes = FTFB_SC_MAX_BYTES;
	asm volatile("" : "+r"(nbytes));
	if (nbytes <= FTFB_SC_MAX_BYTES)
		bpf_dynptr_write(&d, sizeof(c->c) + (nu + nrest) * 8, c->bytes,
				 nbytes, 0);
	bpf_ringbuf_submit_dynptr(&d, ftfb_wake_flags(rb));
	return true;
}

#endif
