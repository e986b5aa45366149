/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/uw_rule.h - how a row of an unwind table (struct ftfb_uw_row,
 * bpf/unwind.h) gives the caller's CFA: the one reading of a row's CFA
 * rule, shared by the BPF walker (unwind.bpf.h) and the userspace walk
 * over a copied stack (src/stacks/native/copy_walk.c), so that a stack
 * finished in userspace goes through the same frames the kernel's walk
 * would have.
 */
#ifndef FTFB_UW_RULE_H
#define FTFB_UW_RULE_H

#include "unwind.h"

#ifndef __VMLINUX_H__
#include <stdbool.h>
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* The CFA by the rule of row type `type` (cfa_type | rbp_type << 4) and
 * offset cfa_off at pc with registers sp, bp (bp_known: bp is the
 * frame's, not lost by an earlier frame's rule); 0 when it cannot be
 * known, with *why the reason the walk ends (FTFB_UW_COMPLETE at the
 * outermost frame). */
static __always_inline __u64 ftfb_uw_rule_cfa(__u8 type, __s16 cfa_off,
					      __u64 pc, __u64 sp, __u64 bp,
					      bool bp_known, __u32 *why)
{
	switch (type & 15) {
	case FTFB_UW_CFA_RSP:
		return sp + cfa_off;
	case FTFB_UW_CFA_RBP:
		if (bp_known)
			return bp + cfa_off;
		*why = FTFB_UW_BAD_FRAME;
		return 0;
	case FTFB_UW_CFA_PLT:
		return sp + 8 + ((pc & 15) >= (__u64)cfa_off ? 8 : 0);
	case FTFB_UW_CFA_RSP_RET: /* (a leaf's reading: the caller's) */
	case FTFB_UW_CFA_CLONE:
		return sp + cfa_off;
	case FTFB_UW_CFA_END:
		*why = FTFB_UW_COMPLETE;
		return 0;
	case FTFB_UW_CFA_SIGNAL:
		*why = FTFB_UW_SIGNAL;
		return 0;
	case FTFB_UW_CFA_NONE:
		*why = FTFB_UW_NO_CFI;
		return 0;
	default:
		*why = FTFB_UW_UNSUPPORTED;
		return 0;
	}
}

#endif
