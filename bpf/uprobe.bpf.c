// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/uprobe.bpf.c - one entry and one return program for every probed
 * function; the BPF cookie says which (an index into userspace's table).
 * The *_multi programs attach through uprobe_multi links (Linux 6.6+), the
 * others one link per function (the fallback).
 *
 * Each event carries the user stack pointer (ctx->sp): at the entry it
 * points at the return address; in the return handler it is that + 8
 * (the return popped it; checked by tests/bpf/test_uprobe.c,
 * test_uprobe_sp). Userspace matches returns to calls by it. Recording it
 * cost nothing measurable (uprobe_cost: ~465 ns per call, entry + return,
 * with 6 args, before and after).
 *
 * Kept minimal: the per-call cost is the whole point. A ring buffer
 * operation costs more than the rest of the program together, so each
 * event is appended to its cpu's buffer (`ubufs`, see common.bpf.h), which
 * goes to the ring in one record when full; the sched programs flush it
 * at every switch, exec and exit, the loader at stop. A thread's events
 * thus reach the ring in order and before its later sched events.
 *
 * Measured (tests/bpf/uprobe_cost, 2-core VM, Linux 6.18, kvm-clock):
 * ~225 ns per program with BPF statistics on, of which ~90 ns is what an
 * empty program costs there and ~85 ns bpf_ktime_get_ns() (kvm-clock,
 * no TSC clocksource); the ring buffer write is ~20 ns per call.
 */
#include "common.bpf.h"
#include "ubuf.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 nargs = 0; /* 0..FTFB_MAX_ARGS integer args to record */
/* The tracer's own process: never recorded (with -a and a library it
 * uses, its calls would make events that make calls ...). */
const volatile __u32 self_tgid = 0;
/* Set by the loader once every entry and return link is attached, cleared
 * before they are detached: the links come and go one at a time, and
 * between them a call would be seen only half (an entry without its
 * return, or the reverse); armed, the trace starts and ends at one
 * instant for every function. */
volatile __u32 armed = 0;

static __always_inline void fill_entry(struct ftfb_uentry *e,
				       struct pt_regs *ctx, __u64 id, __u32 cpu)
{
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.kind = FTFB_EV_UENTRY;
	e->hdr.cpu = cpu;
	e->hdr.tid = (__u32)id;
	e->hdr.tgid = id >> 32;
	e->hdr._pad = 0;
	e->cookie = bpf_get_attach_cookie(ctx);
	e->nargs = nargs;
	/* x86-64 SysV integer argument registers. */
	e->args[0] = nargs > 0 ? ctx->di : 0;
	e->args[1] = nargs > 1 ? ctx->si : 0;
	e->args[2] = nargs > 2 ? ctx->dx : 0;
	e->args[3] = nargs > 3 ? ctx->cx : 0;
	e->args[4] = nargs > 4 ? ctx->r8 : 0;
	e->args[5] = nargs > 5 ? ctx->r9 : 0;
	e->sp = ctx->sp;
}

static __always_inline void fill_ret(struct ftfb_uret *e, struct pt_regs *ctx,
				     __u64 id, __u32 cpu)
{
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.kind = FTFB_EV_URET;
	e->hdr.cpu = cpu;
	e->hdr.tid = (__u32)id;
	e->hdr.tgid = id >> 32;
	e->hdr._pad = 0;
	e->cookie = bpf_get_attach_cookie(ctx);
	e->_pad = 0;
	e->ret = ctx->ax;
	e->sp = ctx->sp;
}

static __always_inline int on_entry(struct pt_regs *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ftfb_ubuf *b = ftfb_ubuf_of(cpu);
	bool known;
	__u64 id = ftfb_running_id(b, ctx, &known);
	struct ftfb_ucompact *c;
	struct ftfb_uentry *e;
	__u64 *v;
	__u32 off;
	void *rb;

	if (!ftfb_probe_recorded(id, armed, self_tgid))
		return 0;
	if (!ftfb_ubuf_claim_for(b, ctx, id, known)) {
		/* buffer taken: one record of its own */
		e = ftfb_reserve(&rb, FTFB_EV_UENTRY, sizeof(*e), cpu);
		if (!e)
			return 0;
		fill_entry(e, ctx, id, cpu);
		ftfb_submit(rb, e);
		return 0;
	}
	b->fired[FTFB_UBUF_ENTRY]++;
	c = ftfb_ubuf_append(b, id, cpu, FTFB_EV_UENTRY, nargs,
			      bpf_get_attach_cookie(ctx), ctx->sp, &off);
	v = (void *)(c + 1);
	/* x86-64 SysV integer argument registers. */
	if (nargs > 0)
		v[0] = ctx->di;
	if (nargs > 1)
		v[1] = ctx->si;
	if (nargs > 2)
		v[2] = ctx->dx;
	if (nargs > 3)
		v[3] = ctx->cx;
	if (nargs > 4)
		v[4] = ctx->r8;
	if (nargs > 5)
		v[5] = ctx->r9;
	b->batch.len = off + sizeof(*c) +
		       8 * (nargs > FTFB_MAX_ARGS ? FTFB_MAX_ARGS : nargs);
	b->n[FTFB_UBUF_ENTRY]++;
	ftfb_barrier();
	b->busy = 0;
	return 0;
}

static __always_inline int on_return(struct pt_regs *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ftfb_ubuf *b = ftfb_ubuf_of(cpu);
	bool known;
	__u64 id = ftfb_running_id(b, ctx, &known);
	struct ftfb_ucompact *c;
	struct ftfb_uret *e;
	__u32 off;
	void *rb;

	if (!ftfb_probe_recorded(id, armed, self_tgid))
		return 0;
	if (!ftfb_ubuf_claim_for(b, ctx, id, known)) {
		e = ftfb_reserve(&rb, FTFB_EV_URET, sizeof(*e), cpu);
		if (!e)
			return 0;
		fill_ret(e, ctx, id, cpu);
		ftfb_submit(rb, e);
		return 0;
	}
	b->fired[FTFB_UBUF_RET]++;
	c = ftfb_ubuf_append(b, id, cpu, FTFB_EV_URET, 1,
			      bpf_get_attach_cookie(ctx), ctx->sp, &off);
	*(__u64 *)(c + 1) = ctx->ax;
	b->batch.len = off + sizeof(*c) + 8;
	b->n[FTFB_UBUF_RET]++;
	ftfb_barrier();
	b->busy = 0;
	return 0;
}

SEC("uprobe.multi")
int ftfb_uentry_multi(struct pt_regs *ctx)
{
	return on_entry(ctx);
}

SEC("uretprobe.multi")
int ftfb_uret_multi(struct pt_regs *ctx)
{
	return on_return(ctx);
}

SEC("uprobe")
int ftfb_uentry(struct pt_regs *ctx)
{
	return on_entry(ctx);
}

SEC("uretprobe")
int ftfb_uret(struct pt_regs *ctx)
{
	return on_return(ctx);
}
