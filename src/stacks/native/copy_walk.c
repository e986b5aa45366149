// SPDX-License-Identifier: MIT
/*
 * copy_walk.c - the BPF walker's steps over a copied user stack (see
 * copy_walk.h). Each step mirrors its namesake in bpf/unwind.bpf.h.
 */
#include <stddef.h>
#include <string.h>

#include "copy_walk.h"
#include "uw_rule.h"

#define GO_ON FTFB_UW_NREASONS /* a step's result: not a reason to stop */
#define USER_END 0x800000000000ull
#define FP_JUMPS 2 /* as UW_FP_JUMPS */

struct walk {
	uint64_t pc, sp, bp;
	bool bp_known, retaddr;
	uint8_t jumps;
	const uint8_t *bytes;
	uint64_t base; /* the address of bytes[0] */
	uint32_t nbytes;
};

/* 8 bytes at addr, from the copy only */
static bool rd(const struct walk *w, uint64_t addr, uint64_t *out)
{
	uint64_t off = addr - w->base;

	if (addr < w->base || off > w->nbytes || w->nbytes - off < 8)
		return false;
	memcpy(out, w->bytes + off, 8);
	return true;
}

const struct ftfb_uw_map *ftfb_cw_find_map(const struct ftfb_uw_proc *p,
					   uint64_t pc)
{
	uint32_t lo = 0, hi = p->n < FTFB_UW_MAX_MAPS ? p->n : FTFB_UW_MAX_MAPS;

	while (lo < hi) { /* the first mapping starting above pc */
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->m[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return p->m[lo - 1].start <= pc && pc < p->m[lo - 1].end ? &p->m[lo - 1]
								 : NULL;
}

/* as uw_step_fp */
static uint32_t step_fp(struct walk *w, uint32_t fail)
{
	uint64_t ra, bp;

	if (!w->bp_known)
		return fail;
	if (!w->bp)
		return FTFB_UW_COMPLETE;
	if (w->bp & 7 || w->bp >= USER_END)
		return fail;
	if (w->bp < w->sp && w->jumps++ >= FP_JUMPS)
		return fail;
	if (!rd(w, w->bp + 8, &ra) || !rd(w, w->bp, &bp))
		return fail;
	if (ra >= USER_END)
		return fail;
	w->sp = w->bp + 16;
	w->bp = bp;
	w->pc = ra;
	return ra ? GO_ON : FTFB_UW_COMPLETE;
}

/* The row of table t covering rel, or NULL (as uw_find_row). */
static const struct ftfb_uw_row *find_row(const struct ftfb_cw_tables *t,
					  const struct ftfb_uw_table *tab,
					  uint64_t rel)
{
	uint32_t lo = tab->first, hi;

	if (tab->first > t->nrows || tab->n > t->nrows - tab->first)
		return NULL; /* (not a table of these rows) */
	hi = tab->first + tab->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > tab->first ? &t->rows[lo - 1] : NULL;
}

/* as uw_step_cfi */
static uint32_t step_cfi(const struct ftfb_cw_tables *t, struct walk *w,
			 const struct ftfb_uw_map *m)
{
	struct ftfb_uw_table tab;
	const struct ftfb_uw_row *r;
	uint32_t why = FTFB_UW_NO_CFI;
	uint64_t cfa, ra, bp;

	if (t->table(t->ctx, m->table, &tab))
		return FTFB_UW_NO_CFI;
	r = find_row(t, &tab, w->pc - (w->retaddr ? 1 : 0) - m->bias);
	if (!r)
		return FTFB_UW_NO_CFI;
	/* a leaf at these two rows needs what the copy lacks (its code, rax):
	 * the BPF walker's uw_cfa decides them there */
	if (!w->retaddr && (FTFB_UW_CFA_TYPE(r) == FTFB_UW_CFA_RSP_RET ||
			    FTFB_UW_CFA_TYPE(r) == FTFB_UW_CFA_CLONE))
		return FTFB_UW_NO_CFI;
	cfa = ftfb_uw_rule_cfa(r->type, r->cfa_off, w->pc, w->sp, w->bp,
			       w->bp_known, &why);
	if (!cfa)
		return why;
	if (cfa <= w->sp)
		return FTFB_UW_BAD_FRAME;
	if (!rd(w, cfa - 8, &ra))
		return FTFB_UW_UNREADABLE;
	if (FTFB_UW_RBP_TYPE(r) == FTFB_UW_RBP_AT_CFA) {
		if (!rd(w, cfa + (int64_t)r->rbp_off8 * 8, &bp))
			return FTFB_UW_UNREADABLE;
		w->bp = bp;
		w->bp_known = true;
	} else if (FTFB_UW_RBP_TYPE(r) == FTFB_UW_RBP_LOST) {
		w->bp_known = false;
	}
	w->sp = cfa;
	w->pc = ra;
	return ra ? GO_ON : FTFB_UW_COMPLETE;
}

/* One frame's step (as uw_frame, after the frame is recorded). */
static uint32_t step(const struct ftfb_cw_tables *t, struct walk *w, uint32_t n)
{
	const struct ftfb_uw_map *m = ftfb_cw_find_map(t->proc, w->pc);
	uint32_t why;

	if (!m)
		return step_fp(w, FTFB_UW_NO_MAPPING);
	switch (m->table) {
	case FTFB_UW_TABLE_PENDING:
		return FTFB_UW_NOT_LOADED;
	case FTFB_UW_TABLE_FP:
		return step_fp(w, FTFB_UW_BAD_FRAME);
	case FTFB_UW_TABLE_UPROBES: /* (the thread's uprobe state: gone) */
		return FTFB_UW_UNSUPPORTED;
	case FTFB_UW_TABLE_OVER_BUDGET:
		return FTFB_UW_OVER_BUDGET;
	case FTFB_UW_TABLE_NONE:
		if (m->go_top && n > 1 &&
		    w->pc - m->start - m->go_top < FTFB_UW_GO_TOP_BYTES)
			return FTFB_UW_COMPLETE;
		return step_fp(w, FTFB_UW_NO_CFI);
	}
	why = step_cfi(t, w, m);
	return why == FTFB_UW_NO_CFI ? step_fp(w, FTFB_UW_NO_CFI) : why;
}

uint32_t ftfb_cw_walk(const struct ftfb_cw_tables *t,
		      const struct ftfb_cw_start *s, uint64_t *out,
		      uint32_t max, uint32_t *reason)
{
	struct walk w = {
		.pc = s->pc,
		.sp = s->sp,
		.bp = s->bp,
		.bp_known = s->bp_known,
		.retaddr = s->retaddr,
		.bytes = s->bytes,
		.base = s->sp,
		.nbytes = s->nbytes,
	};
	uint32_t n = 0, why;

	/* the stopped frame counts as the walk's second or later when its
	 * pc is a return address (go_top looks at that) */
	while ((why = step(t, &w, n + (s->retaddr ? 2 : 1))) == GO_ON) {
		w.retaddr = true;
		if (n >= max) {
			*reason = FTFB_UW_DEPTH;
			return n;
		}
		out[n++] = w.pc;
	}
	*reason = why;
	return n;
}
