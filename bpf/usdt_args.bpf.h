/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/usdt_args.bpf.h - a USDT hit's cookie and arguments from libbpf's
 * spec of the probe (its __bpf_usdt_specs map, filled by
 * bpf_program__attach_usdt()), looked up once per hit.
 *
 * Why not libbpf's bpf_usdt_cookie(), bpf_usdt_arg_cnt() and
 * bpf_usdt_arg(): each is a subprogram that takes the attach cookie and
 * looks the spec up again, and bpf_usdt_arg() reads a register with
 * bpf_probe_read_kernel(). For a hit with 2 arguments that is 4 cookie
 * helpers, 4 lookups and 2 probe reads; here it is one cookie helper, one
 * lookup, and plain loads from the context for the registers (constant
 * offsets, as the verifier wants them). Any argument kind other than a
 * constant or a register goes to libbpf's bpf_usdt_arg(), so a libbpf
 * that adds kinds stays correct.
 */
#ifndef FTFB_USDT_ARGS_BPF_H
#define FTFB_USDT_ARGS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/usdt.bpf.h>

/* The probe's spec (NULL if libbpf has none for this attachment). */
static __always_inline struct __bpf_usdt_spec *
ftfb_usdt_spec(struct pt_regs *ctx)
{
	int id = __bpf_usdt_spec_id(ctx);

	if (id < 0)
		return NULL;
	return bpf_map_lookup_elem(&__bpf_usdt_specs, &id);
}

/* A load of the context at a constant offset, in asm: written in C, clang
 * folds the switch below into one load at ctx + off, which the verifier
 * refuses (a modified context pointer). */
#define FTFB_CTX_LOAD(ctx, off)                                                \
	({                                                                     \
		unsigned long v_;                                              \
		asm volatile("%0 = *(u64 *)(%1 + " #off ")"                    \
			     : "=r"(v_)                                        \
			     : "r"(ctx));                                      \
		v_;                                                            \
	})

#define FTFB_REG_CASE(r, off)                                                  \
	_Static_assert(__builtin_offsetof(struct pt_regs, r) == off,          \
		       "pt_regs layout");                                     \
	case off:                                                              \
		return FTFB_CTX_LOAD(ctx, off)

/* The x86-64 register at `off` in pt_regs (libbpf's reg_off), read as a
 * plain load; *ok false for any other offset. */
static __always_inline unsigned long ftfb_usdt_reg(struct pt_regs *ctx,
						   short off, bool *ok)
{
	*ok = true;
	switch (off) {
		FTFB_REG_CASE(r15, 0);
		FTFB_REG_CASE(r14, 8);
		FTFB_REG_CASE(r13, 16);
		FTFB_REG_CASE(r12, 24);
		FTFB_REG_CASE(bp, 32);
		FTFB_REG_CASE(bx, 40);
		FTFB_REG_CASE(r11, 48);
		FTFB_REG_CASE(r10, 56);
		FTFB_REG_CASE(r9, 64);
		FTFB_REG_CASE(r8, 72);
		FTFB_REG_CASE(ax, 80);
		FTFB_REG_CASE(cx, 88);
		FTFB_REG_CASE(dx, 96);
		FTFB_REG_CASE(si, 104);
		FTFB_REG_CASE(di, 112);
		FTFB_REG_CASE(ip, 128);
		FTFB_REG_CASE(sp, 152);
	}
	*ok = false;
	return 0;
}

/* Argument i (< spec->arg_cnt, < BPF_USDT_MAX_ARG_CNT) of the hit, cast
 * to 64 bits as bpf_usdt_arg() does. */
static __always_inline long ftfb_usdt_arg(struct pt_regs *ctx,
					  const struct __bpf_usdt_spec *spec,
					  __u32 i)
{
	const struct __bpf_usdt_arg_spec *a;
	unsigned long v;
	long slow = 0;
	bool ok;

	if (i >= BPF_USDT_MAX_ARG_CNT)
		return 0;
	a = &spec->args[i];
	if (a->arg_type == BPF_USDT_ARG_CONST)
		return (long)a->val_off;
	if (a->arg_type != BPF_USDT_ARG_REG) {
		bpf_usdt_arg(ctx, i, &slow);
		return slow;
	}
	v = ftfb_usdt_reg(ctx, a->reg_off, &ok);
	if (!ok) {
		bpf_usdt_arg(ctx, i, &slow);
		return slow;
	}
	v <<= a->arg_bitshift;
	if (a->arg_signed)
		return ((long)v) >> a->arg_bitshift;
	return (long)(v >> a->arg_bitshift);
}

#endif
