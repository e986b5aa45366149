// SPDX-License-Identifier: MIT
/*
 * cfi_run.c - call frame instructions to rows, in one pass (see
 * cfi_run.h). The instructions are DWARF 5's, section 6.4.2 (the numbers
 * are in its table 7.29) with the GNU ones elfutils also reads.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cfi_run.h"
#include "unwind.h"

/* DWARF registers of x86-64 (System V ABI, figure 3.36) */
#define DW_RBX 3
#define DW_RDI 5
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16

/* remember_state's stack: compilers nest it once or twice; deeper is
 * treated as invalid CFI rather than allocated */
#define MAX_REMEMBER 32
/* instructions between two polls */
#define POLL_EVERY 4096

enum { STEP_BAD = -1, STEP_RULE = 0, STEP_ADVANCE = 1 };

struct interp {
	const struct ftfb_ehf_buf *ehf;
	const struct ftfb_cie *c;
	const struct ftfb_cfi_state *init; /* NULL in the CIE's own run */
	struct ftfb_cfi_state s;
	struct ftfb_cfi_state stack[MAX_REMEMBER];
	unsigned depth;
	uint64_t loc;
};

/* libdw keeps a register's offset in 61 bits */
static int64_t trunc61(uint64_t v)
{
	return (int64_t)(v << 3) >> 3;
}

/* The rule register reg gets, when it is one the walker follows. */
static struct ftfb_cfi_reg *tracked(struct interp *in, uint64_t reg)
{
	return reg == DW_RBP   ? &in->s.rbp
	       : reg == DW_RBX ? &in->s.rbx
	       : reg == DW_RA  ? &in->s.ra
			       : NULL;
}

static void set_reg(struct interp *in, uint64_t reg, int kind, int64_t off)
{
	struct ftfb_cfi_reg *r = tracked(in, reg);

	if (r) {
		r->kind = (uint8_t)kind;
		r->off = off;
	}
}

/* A register expression (block [p, end)) as the walker's rule: it is
 * evaluated with the CFA pushed, so "plus_uconst N" is "at CFA + N"; an
 * empty one has no value. val: DW_CFA_val_expression. */
static void reg_expr(struct interp *in, uint64_t reg, const uint8_t *p,
		     const uint8_t *end, bool val)
{
	uint64_t n;

	if (p == end)
		set_reg(in, reg, FTFB_CFI_REG_UNDEF, 0);
	else if (!val && *p++ == 0x23 /* DW_OP_plus_uconst */ &&
		 ftfb_uleb(&p, end, &n) && p == end)
		set_reg(in, reg, FTFB_CFI_REG_AT_CFA, (int64_t)n);
	else
		set_reg(in, reg, FTFB_CFI_REG_OTHER, 0);
}

struct op {
	uint8_t atom;
	uint64_t n1, n2;
};

/* The ops of a CFA expression, when they are all ones the walker may
 * follow (bregN, bregx, litN, and, ge, shl, plus): their count, else 0. */
static unsigned cfa_ops(const uint8_t *p, const uint8_t *end, struct op *o,
			unsigned max)
{
	unsigned n = 0;
	int64_t s;

	for (; p < end; n++) {
		uint8_t a = *p++;

		if (n == max)
			return 0;
		o[n].atom = a;
		o[n].n1 = o[n].n2 = 0;
		if (a >= 0x70 && a <= 0x8f) { /* bregN */
			if (!ftfb_sleb(&p, end, &s))
				return 0;
			o[n].n1 = (uint64_t)s;
		} else if (a == 0x92) { /* bregx */
			if (!ftfb_uleb(&p, end, &o[n].n1) ||
			    !ftfb_sleb(&p, end, &s))
				return 0;
			o[n].n2 = (uint64_t)s;
		} else if (!(a >= 0x30 && a <= 0x4f) && a != 0x1a &&
			   a != 0x2a && a != 0x24 && a != 0x22) {
			return 0;
		}
	}
	return n;
}

/* The CFA expression [p, end): one breg, glibc/binutils PLT entries'
 * "rsp + 8, + 8 when (rip & 15) >= N" (breg7 8; breg16 0; lit15; and;
 * litN; ge; lit3; shl; plus), or another. */
static void cfa_expr(struct interp *in, const uint8_t *p, const uint8_t *end)
{
	struct op o[9];
	unsigned n = cfa_ops(p, end, o, 9);

	in->s.cfa_kind = FTFB_CFI_CFA_EXPR;
	if (n == 1 && o[0].atom >= 0x70 && o[0].atom <= 0x8f) {
		in->s.cfa_kind = FTFB_CFI_CFA_EXPR_REG;
		in->s.cfa_reg = o[0].atom - 0x70u;
		in->s.cfa_off = (int64_t)o[0].n1;
	} else if (n == 1 && o[0].atom == 0x92) {
		in->s.cfa_kind = FTFB_CFI_CFA_EXPR_REG;
		in->s.cfa_reg = o[0].n1;
		in->s.cfa_off = (int64_t)o[0].n2;
	} else if (n == 9 && o[0].atom == 0x77 && o[0].n1 == 8 &&
		   o[1].atom == 0x80 && o[1].n1 == 0 && o[2].atom == 0x3f &&
		   o[3].atom == 0x1a && o[4].atom >= 0x30 &&
		   o[4].atom <= 0x4f && o[5].atom == 0x2a &&
		   o[6].atom == 0x33 && o[7].atom == 0x24 &&
		   o[8].atom == 0x22) {
		in->s.cfa_kind = FTFB_CFI_CFA_EXPR_PLT;
		in->s.cfa_off = o[4].atom - 0x30;
	}
}

/* A DW_FORM_block operand: its bytes [*b, *p). */
static bool block(const uint8_t **p, const uint8_t *end, const uint8_t **b)
{
	uint64_t len;

	if (!ftfb_uleb(p, end, &len) || len > (uint64_t)(end - *p))
		return false;
	*b = *p;
	*p += len;
	return true;
}

static int advance(struct interp *in, uint64_t delta)
{
	in->loc += delta * in->c->code_align;
	return STEP_ADVANCE;
}

/* A register's offset operands: reg (unless primary), offset. */
static int offset_rule(struct interp *in, const uint8_t **p, const uint8_t *end,
		       uint64_t reg, bool sf, int kind)
{
	uint64_t u;
	int64_t s;

	if (sf) {
		if (!ftfb_sleb(p, end, &s))
			return STEP_BAD;
		u = (uint64_t)s;
	} else if (!ftfb_uleb(p, end, &u)) {
		return STEP_BAD;
	}
	set_reg(in, reg, kind, trunc61(u * (uint64_t)in->c->data_align));
	return STEP_RULE;
}

static int restore(struct interp *in, uint64_t reg)
{
	struct ftfb_cfi_reg *r = tracked(in, reg);

	if (!in->init) /* not in a CIE's own instructions */
		return STEP_BAD;
	if (r)
		*r = reg == DW_RBP   ? in->init->rbp
		     : reg == DW_RBX ? in->init->rbx
				     : in->init->ra;
	return STEP_RULE;
}

static int def_cfa(struct interp *in, const uint8_t **p, const uint8_t *end,
		   int op)
{
	uint64_t reg = in->s.cfa_reg, u = 0;
	int64_t s;

	if ((op == 0x0c || op == 0x12 || op == 0x0d) &&
	    !ftfb_uleb(p, end, &reg))
		return STEP_BAD;
	if (op == 0x0c || op == 0x0e) {
		if (!ftfb_uleb(p, end, &u))
			return STEP_BAD;
	} else if (op == 0x12 || op == 0x13) {
		if (!ftfb_sleb(p, end, &s))
			return STEP_BAD;
		u = (uint64_t)s * (uint64_t)in->c->data_align;
	}
	if (op == 0x0c || op == 0x12) {
		in->s.cfa_kind = FTFB_CFI_CFA_REG;
	} else if (in->s.cfa_kind != FTFB_CFI_CFA_REG) {
		/* a register or offset alone needs a register rule */
		in->s.cfa_kind = FTFB_CFI_CFA_INVALID;
	}
	in->s.cfa_reg = reg;
	if (op != 0x0d)
		in->s.cfa_off = (int64_t)u;
	return STEP_RULE;
}

static int remember(struct interp *in, bool push)
{
	if (push) {
		if (in->depth == MAX_REMEMBER)
			return STEP_BAD;
		in->stack[in->depth++] = in->s;
	} else {
		if (!in->depth)
			return STEP_BAD;
		in->s = in->stack[--in->depth];
	}
	return STEP_RULE;
}

/* The instructions with operands after the opcode byte op. */
static int extended(struct interp *in, const uint8_t **p, const uint8_t *end,
		    uint8_t op)
{
	const uint8_t *b;
	uint64_t reg, u;

	switch (op) {
	case 0x0c: /* def_cfa */
	case 0x0d: /* def_cfa_register */
	case 0x0e: /* def_cfa_offset */
	case 0x12: /* def_cfa_sf */
	case 0x13: /* def_cfa_offset_sf */
		return def_cfa(in, p, end, op);
	case 0x0f: /* def_cfa_expression */
		if (!block(p, end, &b))
			return STEP_BAD;
		cfa_expr(in, b, *p);
		return STEP_RULE;
	case 0x2e: /* GNU_args_size */
		return ftfb_uleb(p, end, &u) ? STEP_RULE : STEP_BAD;
	}
	if (!ftfb_uleb(p, end, &reg))
		return STEP_BAD;
	switch (op) {
	case 0x05: /* offset_extended */
	case 0x11: /* offset_extended_sf */
		return offset_rule(in, p, end, reg, op == 0x11,
				   FTFB_CFI_REG_AT_CFA);
	case 0x14: /* val_offset */
	case 0x15: /* val_offset_sf */
		return offset_rule(in, p, end, reg, op == 0x15,
				   FTFB_CFI_REG_OTHER);
	case 0x2f: /* GNU_negative_offset_extended */
		if (!ftfb_uleb(p, end, &u))
			return STEP_BAD;
		set_reg(in, reg, FTFB_CFI_REG_AT_CFA,
			trunc61(-u * (uint64_t)in->c->data_align));
		return STEP_RULE;
	case 0x06: /* restore_extended */
		return restore(in, reg);
	case 0x07: /* undefined */
	case 0x08: /* same_value */
		set_reg(in, reg,
			op == 0x07 ? FTFB_CFI_REG_UNDEF : FTFB_CFI_REG_SAME, 0);
		return STEP_RULE;
	case 0x09: /* register */
		if (!ftfb_uleb(p, end, &u))
			return STEP_BAD;
		set_reg(in, reg,
			u == DW_RDI ? FTFB_CFI_REG_IN_RDI : FTFB_CFI_REG_OTHER,
			0);
		return STEP_RULE;
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		if (!block(p, end, &b))
			return STEP_BAD;
		reg_expr(in, reg, b, *p, op == 0x16);
		return STEP_RULE;
	}
	return STEP_BAD;
}

/* Runs the instruction at *p: STEP_ADVANCE when it moved in->loc. */
static int step(struct interp *in, const uint8_t **p, const uint8_t *end)
{
	uint8_t op = *(*p)++;
	uint64_t u = 0;

	switch (op >> 6) {
	case 1: /* advance_loc */
		return advance(in, op & 0x3f);
	case 2: /* offset */
		return offset_rule(in, p, end, op & 0x3f, false,
				   FTFB_CFI_REG_AT_CFA);
	case 3: /* restore */
		return restore(in, op & 0x3f);
	}
	switch (op) {
	case 0x00: /* nop */
		return STEP_RULE;
	case 0x01: /* set_loc */
		return ftfb_ehf_ptr(in->ehf, in->c->fde_enc, p, end, 0,
				    &in->loc)
			       ? STEP_ADVANCE
			       : STEP_BAD;
	case 0x02: /* advance_loc1, 2, 4, MIPS_advance_loc8 */
	case 0x03:
	case 0x04:
	case 0x1d: {
		size_t len = op == 0x02	  ? 1
			     : op == 0x03 ? 2
			     : op == 0x04 ? 4
					  : 8;

		if ((size_t)(end - *p) < len)
			return STEP_BAD;
		memcpy(&u, *p, len); /* little-endian */
		*p += len;
		return advance(in, u);
	}
	case 0x0a: /* remember_state */
	case 0x0b: /* restore_state */
		return remember(in, op == 0x0a);
	case 0x2d: /* GNU_window_save: SPARC's, to elfutils on any machine;
		    * it puts the return address at CFA + 0 */
		set_reg(in, DW_RA, FTFB_CFI_REG_AT_CFA, 0);
		return STEP_RULE;
	}
	return extended(in, p, end, op);
}

int ftfb_cfi_cie_state(const struct ftfb_ehf_buf *ehf, const struct ftfb_cie *c,
		       struct ftfb_cfi_state *s)
{
	struct interp in = {.ehf = ehf, .c = c};
	const uint8_t *p = c->ins;

	/* the ABI's: rbp, rbx and the return address same value, CFA
	 * undefined */
	memset(&in.s, 0, sizeof(in.s));
	in.s.rbp.kind = in.s.rbx.kind = in.s.ra.kind = FTFB_CFI_REG_SAME;
	while (p < c->ins_end)
		if (step(&in, &p, c->ins_end) != STEP_RULE)
			return -EINVAL; /* invalid, or a row in a CIE */
	*s = in.s;
	return 0;
}

/* The rules of state s as a row (bpf/unwind.h): END where the return
 * address is undefined, SIGNAL for a signal frame, RA_RDI where it is
 * in rdi and the CFA rsp plus an offset, UNSUPP unless it is at CFA - 8
 * and the CFA is rsp, rbp or rbx plus an offset, or a PLT's. */
static void rule_of(const struct ftfb_cfi_state *s, bool signal,
		    struct ftfb_cfi_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (signal) {
		r->cfa_type = FTFB_UW_CFA_SIGNAL;
		return;
	}
	if (s->ra.kind == FTFB_CFI_REG_UNDEF) {
		r->cfa_type = FTFB_UW_CFA_END;
		return;
	}
	r->cfa_type = FTFB_UW_CFA_UNSUPP;
	if ((s->cfa_kind == FTFB_CFI_CFA_REG ||
	     s->cfa_kind == FTFB_CFI_CFA_EXPR_REG) &&
	    (s->cfa_reg == DW_RSP || s->cfa_reg == DW_RBP ||
	     s->cfa_reg == DW_RBX)) {
		r->cfa_type = s->cfa_reg == DW_RSP   ? FTFB_UW_CFA_RSP
			      : s->cfa_reg == DW_RBP ? FTFB_UW_CFA_RBP
						     : FTFB_UW_CFA_RBX;
		r->cfa_off = s->cfa_off;
	} else if (s->cfa_kind == FTFB_CFI_CFA_EXPR_PLT) {
		r->cfa_type = FTFB_UW_CFA_PLT;
		r->cfa_off = s->cfa_off;
	}
	r->rbp_type = FTFB_UW_RBP_LOST;
	if (s->rbp.kind == FTFB_CFI_REG_SAME) {
		r->rbp_type = FTFB_UW_RBP_SAME;
	} else if (s->rbp.kind == FTFB_CFI_REG_AT_CFA) {
		r->rbp_type = FTFB_UW_RBP_AT_CFA;
		r->rbp_off = s->rbp.off;
	}
	r->rbx_kind = s->rbx.kind;
	r->rbx_off = s->rbx.off;
	if (s->ra.kind == FTFB_CFI_REG_IN_RDI &&
	    r->cfa_type == FTFB_UW_CFA_RSP)
		r->cfa_type = FTFB_UW_CFA_RA_RDI;
	else if (s->ra.kind != FTFB_CFI_REG_AT_CFA || s->ra.off != -8)
		r->cfa_type = FTFB_UW_CFA_UNSUPP;
	if (r->cfa_type == FTFB_UW_CFA_UNSUPP)
		r->cfa_off = r->rbp_off = 0, r->rbp_type = 0,
		r->rbx_kind = FTFB_CFI_REG_SAME, r->rbx_off = 0;
}

int ftfb_cfi_fde_rows(const struct ftfb_ehf_buf *ehf, const struct ftfb_cie *c,
		      const struct ftfb_cfi_state *init,
		      const struct ftfb_fde *fde, uint64_t limit,
		      ftfb_cfi_row_fn row, ftfb_cfi_poll_fn poll, void *arg)
{
	static const struct ftfb_cfi_rule none;
	struct interp in = {.ehf = ehf, .c = c, .init = init};
	const uint8_t *p = fde->ins;
	uint64_t pc = fde->start; /* the address of the row being built */
	struct ftfb_cfi_rule r;
	unsigned n = 0;
	int rc, st;

	if (!init)
		return row(arg, pc, &none);
	in.s = *init;
	in.loc = pc;
	while (p < fde->ins_end) {
		if (++n == POLL_EVERY && (n = 0, poll) && (rc = poll(arg)))
			return rc;
		st = step(&in, &p, fde->ins_end);
		if (st == STEP_BAD) /* no frame from this address on */
			return row(arg, pc, &none);
		if (st != STEP_ADVANCE || in.loc <= pc)
			continue;
		/* moved past pc: the rules so far hold up to in.loc */
		rule_of(&in.s, c->signal, &r);
		if ((rc = row(arg, pc, &r)))
			return rc;
		pc = in.loc;
		if (pc >= limit)
			return 0;
		if (pc >= fde->end)
			return row(arg, pc, &none);
	}
	rule_of(&in.s, c->signal, &r);
	if ((rc = row(arg, pc, &r)))
		return rc;
	return fde->end < limit ? row(arg, fde->end, &none) : 0;
}
