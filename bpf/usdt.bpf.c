// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/usdt.bpf.c - USDT probes (-u usdt:...): one program for every probe,
 * attached with libbpf's bpf_program__attach_usdt(), which parses the
 * probes' argument specs and hands semaphores to the kernel's uprobe
 * reference counter (so they are set while a probe is attached and back
 * to 0 when it goes, also when the tool is killed). Arguments are read
 * from libbpf's spec of the probe, looked up once per hit
 * (usdt_args.bpf.h).
 *
 * The usdt cookie: bits 0-31 the probe's index in userspace's table,
 * bits 32-43 the arguments to read as C strings (bounded, at most
 * FTFB_USDT_MAX_STRS of them).
 *
 * A hit is appended to its cpu's buffer of compact events (ubuf.bpf.h),
 * as uprobe events are: no ring buffer operation per hit, and a thread's
 * probes stay in order with its calls and system calls.
 */
#include "common.bpf.h"
#include "ubuf.bpf.h"
#include "usdt_args.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 self_tgid = 0; /* never the tracer's own */
/* set by the loader once every probe is attached, cleared at stop */
volatile __u32 armed = 0;

/* Reads the first n (<= FTFB_USDT_MAX_ARGS) arguments into args[] and the
 * string ones (mask) into base[soff..], which has room up to base[lim]
 * (at most FTFB_USDT_STR_BYTES are used). Returns the string bytes used;
 * *got: the arguments read as strings. An argument that is no readable
 * string is recorded as its value. */
static __always_inline __u32 read_args(struct pt_regs *ctx,
				       const struct __bpf_usdt_spec *spec,
				       __u64 *args, char *base, __u32 soff,
				       __u32 lim, int n, __u32 mask, __u32 *got)
{
	__u32 used = 0;

	*got = 0;
	for (int i = 0; i < FTFB_USDT_MAX_ARGS; i++) {
		__u32 at;
		long r, v;

		if (i >= n)
			break;
		v = ftfb_usdt_arg(ctx, spec, i);
		args[i] = v;
		if (!(mask & (1u << i)) ||
		    used > FTFB_USDT_STR_BYTES - FTFB_USDT_STR_LEN)
			continue;
		/* checked right where it is used: the verifier sees it */
		at = soff + used;
		barrier_var(at);
		if (at > lim - FTFB_USDT_STR_LEN)
			continue;
		r = bpf_probe_read_user_str(base + at, FTFB_USDT_STR_LEN,
					    (const void *)v);
		if (r <= 0)
			continue;
		args[i] = r;
		*got |= 1u << i;
		used += (r + 7) & ~7;
	}
	return used;
}

/* The cpu's buffer is taken (a preempted append of another thread): one
 * ring record of its own. */
static __always_inline void hit_direct(struct pt_regs *ctx,
				       const struct __bpf_usdt_spec *spec,
				       __u64 id, __u32 cpu, __u32 cookie, int n,
				       __u32 mask)
{
	struct ftfb_usdt *e;
	__u32 got;
	void *rb;

	e = ftfb_reserve(&rb, FTFB_EV_USDT, sizeof(*e), cpu);
	if (!e)
		return;
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.tid = (__u32)id;
	e->hdr.tgid = id >> 32;
	e->cookie = cookie;
	e->nargs = n;
	e->strbytes = read_args(ctx, spec, e->args, e->str, 0,
				FTFB_USDT_STR_BYTES, n, mask, &got);
	e->strmask = got;
	e->_pad = 0;
	ftfb_submit(rb, e);
}

SEC("usdt")
int ftfb_usdt(struct pt_regs *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ftfb_ubuf *b = ftfb_ubuf_of(cpu);
	bool known;
	__u64 id = ftfb_running_id(b, ctx, &known);
	struct __bpf_usdt_spec *spec;
	struct ftfb_ucompact *c;
	__u64 ck, *v;
	__u32 off, soff, mask, got, sbytes;
	int n;

	if (!ftfb_probe_recorded(id, armed, self_tgid))
		return 0;
	spec = ftfb_usdt_spec(ctx);
	if (!spec)
		return 0;
	ck = spec->usdt_cookie;
	mask = (ck >> 32) & 0xfff;
	n = spec->arg_cnt;
	if (n < 0)
		n = 0;
	if (n > FTFB_USDT_MAX_ARGS)
		n = FTFB_USDT_MAX_ARGS;
	if (!ftfb_ubuf_claim_for(b, ctx, id, known)) {
		hit_direct(ctx, spec, id, cpu, (__u32)ck, n, mask);
		return 0;
	}
	b->fired[FTFB_UBUF_USDT]++;
	c = ftfb_ubuf_append(b, id, cpu, FTFB_EV_USDT, 0, (__u32)ck, 0, &off);
	if (off > FTFB_UBUF_BYTES - FTFB_UCOMPACT_MAX) { /* for the verifier */
		b->busy = 0;
		return 0;
	}
	v = (void *)(c + 1);
	soff = off + sizeof(*c) + 8 * (__u32)n; /* where the strings go */
	sbytes = 0;
	got = 0;
	if (n)
		sbytes = read_args(ctx, spec, v, (char *)b->data, soff,
				   FTFB_UBUF_BYTES, n, mask, &got);
	if (sbytes > FTFB_USDT_STR_BYTES)
		sbytes = FTFB_USDT_STR_BYTES;
	c->nvals = n + sbytes / 8;
	c->sp = (__u64)n | (__u64)got << 16 | (__u64)sbytes << 32;
	b->batch.len = off + sizeof(*c) + 8 * n + sbytes;
	b->n[FTFB_UBUF_USDT]++;
	ftfb_barrier();
	b->busy = 0;
	return 0;
}
