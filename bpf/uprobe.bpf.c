// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/uprobe.bpf.c - one entry and one return program for every probed
 * function; the BPF cookie says which (an index into userspace's table).
 * The *_multi programs attach through uprobe_multi links (Linux 6.6+), the
 * others one link per function (the fallback).
 *
 * Kept minimal: the per-call cost is the whole point (pid/tgid, optional
 * filter lookup, reserve, a few stores, submit).
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 nargs = 0; /* 0..FTFB_MAX_ARGS integer args to record */

static __always_inline int on_entry(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ftfb_uentry *e;
	void *rb;

	if (filter_tgids && !ftfb_traced(id >> 32))
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_UENTRY, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (!e)
		return 0;
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.tid = (__u32)id;
	e->hdr.tgid = id >> 32;
	e->cookie = bpf_get_attach_cookie(ctx);
	e->nargs = nargs;
	/* x86-64 SysV integer argument registers. */
	e->args[0] = nargs > 0 ? ctx->di : 0;
	e->args[1] = nargs > 1 ? ctx->si : 0;
	e->args[2] = nargs > 2 ? ctx->dx : 0;
	e->args[3] = nargs > 3 ? ctx->cx : 0;
	e->args[4] = nargs > 4 ? ctx->r8 : 0;
	e->args[5] = nargs > 5 ? ctx->r9 : 0;
	ftfb_submit(rb, e);
	return 0;
}

static __always_inline int on_return(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ftfb_uret *e;
	void *rb;

	if (filter_tgids && !ftfb_traced(id >> 32))
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_URET, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (!e)
		return 0;
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.tid = (__u32)id;
	e->hdr.tgid = id >> 32;
	e->cookie = bpf_get_attach_cookie(ctx);
	e->_pad = 0;
	e->ret = ctx->ax;
	ftfb_submit(rb, e);
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
