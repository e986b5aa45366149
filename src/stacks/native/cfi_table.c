// SPDX-License-Identifier: MIT
/*
 * cfi_table.c - the unwind rows of a binary's FDEs (see cfi_table.h):
 * each FDE's instructions run once (cfi_run.c), each CIE's once for all
 * its FDEs, so the time is linear in the size of the CFI; the rows, the
 * time and a caller's cancel are checked as it goes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cfi_run.h"
#include "cfi_table.h"
#include "elfsym.h"
#include "grow_array.h"
#include "idtab.h"

/* FDEs between two polls */
#define POLL_FDES 256

/* A search table entry: the FDE of the code from pc. */
struct hdr_ent {
	uint64_t pc, fde;
};

/* A CIE read once, and the state its FDEs start from. */
struct cie_ent {
	struct ftfb_cie c;
	struct ftfb_cfi_state s;
	int rc; /* of reading it; of its state */
	int state_rc;
};

struct builder {
	const struct ftfb_ehf_buf *ehf;
	const struct ftfb_uw_build_opts *o;
	struct ftfb_uw_table_built *t;
	size_t cap, max_rows;
	uint64_t deadline;
	struct ftfb_idtab cie_ids; /* CIE offset + 2 -> index + 1 */
	struct cie_ent *cies;
	size_t ncies, cies_cap;
};

/* The building thread's CPU time: the budget is the work a binary costs,
 * which a busy machine does not stretch as it does wall time (libLLVM,
 * 0.4 s of CPU, took 6 s of wall time at a load of 20 on 2 CPUs) */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether to stop: cancelled, or out of time. */
static int poll_budget(void *arg)
{
	struct builder *b = arg;

	if (b->o && b->o->cancelled && b->o->cancelled(b->o->arg))
		return -ECANCELED;
	return now_ns() > b->deadline ? -ETIMEDOUT : 0;
}

int ftfb_cfi_hdr_frame(const struct ftfb_ehf_buf *hdr, uint64_t *vaddr)
{
	const uint8_t *p = hdr->p + 4, *end = hdr->p + hdr->size;

	if (hdr->size < 4 || hdr->p[0] != 1 || hdr->p[1] == FTFB_PE_OMIT ||
	    !ftfb_ehf_ptr(hdr, hdr->p[1], &p, end, hdr->vaddr, vaddr))
		return -ENODATA;
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct hdr_ent *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->fde < y->fde ? -1 : x->fde > y->fde;
}

/* The search table's entries, sorted by pc. */
static int hdr_entries(const struct ftfb_ehf_buf *hdr, struct hdr_ent **out,
		       size_t *n)
{
	const uint8_t *p = hdr->p + 4, *end = hdr->p + hdr->size;
	uint64_t ptr, count;
	uint8_t enc;

	*out = NULL;
	*n = 0;
	if (hdr->size < 4 || hdr->p[0] != 1 || hdr->p[2] == FTFB_PE_OMIT ||
	    (enc = hdr->p[3]) == FTFB_PE_OMIT ||
	    !ftfb_ehf_ptr(hdr, hdr->p[1], &p, end, hdr->vaddr, &ptr) ||
	    !ftfb_ehf_ptr(hdr, hdr->p[2], &p, end, hdr->vaddr, &count))
		return -ENODATA;
	/* each entry takes at least 2 bytes: the count cannot exceed that */
	if (!count || count > (uint64_t)(end - p) / 2)
		return -ENODATA;
	if (!(*out = calloc(count, sizeof(**out))))
		return -ENOMEM;
	for (; *n < count; (*n)++)
		if (!ftfb_ehf_ptr(hdr, enc, &p, end, hdr->vaddr,
				  &(*out)[*n].pc) ||
		    !ftfb_ehf_ptr(hdr, enc, &p, end, hdr->vaddr,
				  &(*out)[*n].fde))
			return -ENODATA;
	qsort(*out, *n, sizeof(**out), ent_cmp);
	return 0;
}

static struct cie_ent *cie_at(struct builder *b, uint64_t off);

/* Without .eh_frame_hdr (a static program: gcc asks the linker for one
 * only when it links dynamically), the FDEs as .eh_frame holds them, read
 * through to its end (a zero length, or the section's end) and sorted by
 * pc; an entry that cannot be read is skipped, as elfutils does. */
static int ehf_entries(struct builder *b, struct hdr_ent **out, size_t *n)
{
	size_t cap = 0, seen = 0;
	uint64_t off = 0, cie_off;
	struct ftfb_fde f;
	struct cie_ent *c;
	int rc;

	*out = NULL;
	*n = 0;
	do {
		if (++seen % POLL_FDES == 0 && (rc = poll_budget(b)))
			return rc;
		if (ftfb_ehf_fde_cie(b->ehf, off, &cie_off))
			continue;
		if (!(c = cie_at(b, cie_off)))
			return -ENOMEM;
		if (c->rc || ftfb_ehf_fde(b->ehf, off, &c->c, &f))
			continue;
		if (ftfb_grow_array((void **)out, &cap, *n + 1, sizeof(**out)))
			return -ENOMEM;
		(*out)[(*n)++] = (struct hdr_ent){f.start, b->ehf->vaddr + off};
	} while (!ftfb_ehf_next(b->ehf, off, &off));
	if (!*n)
		return -ENODATA;
	qsort(*out, *n, sizeof(**out), ent_cmp);
	return 0;
}

/* The CIE at offset off, read (and its initial instructions run) on
 * first use: NULL when out of memory. */
static struct cie_ent *cie_at(struct builder *b, uint64_t off)
{
	uint32_t i = ftfb_idtab_get(&b->cie_ids, off + 2);
	struct cie_ent *e;

	if (i)
		return &b->cies[i - 1];
	if (b->ncies >= UINT32_MAX - 1 ||
	    ftfb_grow_array((void **)&b->cies, &b->cies_cap, b->ncies + 1,
			    sizeof(*b->cies)) ||
	    ftfb_idtab_put(&b->cie_ids, off + 2, (uint32_t)b->ncies + 1))
		return NULL;
	e = &b->cies[b->ncies++];
	e->rc = ftfb_ehf_cie(b->ehf, off, &e->c);
	e->state_rc = e->rc ? e->rc : ftfb_cfi_cie_state(b->ehf, &e->c, &e->s);
	return e;
}

/* The rbx rule of r in a row whose rbp rule is rbp (bpf/unwind.h's
 * FTFB_UW_RBX_*), and in *off8 its offset / 8 when the row's rbp offset
 * holds it. */
static int pack_rbx(const struct ftfb_cfi_rule *r, int rbp, int8_t *off8)
{
	int64_t o = r->rbx_off;

	if (r->rbx_kind == FTFB_CFI_REG_SAME)
		return FTFB_UW_RBX_SAME;
	if (r->rbx_kind != FTFB_CFI_REG_AT_CFA || o % 8)
		return FTFB_UW_RBX_LOST;
	if (rbp == FTFB_UW_RBP_AT_CFA)
		return o == r->rbp_off - 8 ? FTFB_UW_RBX_BELOW_RBP
					   : FTFB_UW_RBX_LOST;
	if (o / 8 < INT8_MIN || o / 8 > INT8_MAX)
		return FTFB_UW_RBX_LOST;
	*off8 = (int8_t)(o / 8);
	return FTFB_UW_RBX_AT_CFA;
}

/* r as a table row: an offset the row cannot hold makes the CFA rule
 * unsupported, the rbp or rbx lost. */
static struct ftfb_uw_row pack(const struct ftfb_cfi_rule *r)
{
	struct ftfb_uw_row row = {0};
	int cfa = r->cfa_type, rbp = r->rbp_type, rbx = FTFB_UW_RBX_SAME;
	bool has_cfa = cfa == FTFB_UW_CFA_RSP || cfa == FTFB_UW_CFA_RBP ||
		       cfa == FTFB_UW_CFA_PLT || cfa == FTFB_UW_CFA_RA_RDI ||
		       cfa == FTFB_UW_CFA_RBX;

	if (has_cfa && (r->cfa_off < INT16_MIN || r->cfa_off > INT16_MAX))
		cfa = FTFB_UW_CFA_UNSUPP, has_cfa = false;
	if (rbp == FTFB_UW_RBP_AT_CFA &&
	    (r->rbp_off % 8 || r->rbp_off / 8 < INT8_MIN ||
	     r->rbp_off / 8 > INT8_MAX))
		rbp = FTFB_UW_RBP_LOST;
	if (!has_cfa)
		rbp = FTFB_UW_RBP_SAME; /* not used */
	else
		row.cfa_off = (int16_t)r->cfa_off;
	if (rbp == FTFB_UW_RBP_AT_CFA)
		row.rbp_off8 = (int8_t)(r->rbp_off / 8);
	if (has_cfa)
		rbx = pack_rbx(r, rbp, &row.rbp_off8);
	row.type = (uint8_t)(cfa | rbp << 4 | rbx << 6);
	return row;
}

/* Appends a row at vaddr pc unless it has the rules of the last one. */
static int add_row(void *arg, uint64_t pc, const struct ftfb_cfi_rule *rl)
{
	struct builder *b = arg;
	struct ftfb_uw_table_built *t = b->t;
	struct ftfb_uw_row *last = t->n ? &t->rows[t->n - 1] : NULL;
	struct ftfb_uw_row r = pack(rl);

	if (last && last->type == r.type && last->cfa_off == r.cfa_off &&
	    last->rbp_off8 == r.rbp_off8)
		return 0;
	if (pc - t->base > UINT32_MAX)
		return -ERANGE;
	if (last && last->pc == pc - t->base) { /* an empty range: replace */
		*last = r;
		last->pc = (uint32_t)(pc - t->base);
		return 0;
	}
	if (t->n >= b->max_rows)
		return -E2BIG;
	if (ftfb_grow_array((void **)&t->rows, &b->cap, t->n + 1,
			    sizeof(*t->rows)))
		return -ENOMEM;
	t->rows[t->n] = r;
	t->rows[t->n++].pc = (uint32_t)(pc - t->base);
	return 0;
}

/* The FDE at offset off if it covers code from pc, with its CIE. */
static int fde_at(struct builder *b, uint64_t off, uint64_t pc,
		  struct ftfb_fde *f, struct cie_ent **c)
{
	uint64_t cie_off;

	if (ftfb_ehf_fde_cie(b->ehf, off, &cie_off))
		return -EINVAL;
	if (!(*c = cie_at(b, cie_off)))
		return -ENOMEM;
	if ((*c)->rc || ftfb_ehf_fde(b->ehf, off, &(*c)->c, f) ||
	    f->start != pc)
		return -EINVAL;
	return 0;
}

/* The rows of the FDE of e, up to limit (the next FDE's start). An FDE
 * that cannot be read, or does not start where the table says, gives a
 * "no CFI" row. */
static int fde_rows(struct builder *b, const struct hdr_ent *e, uint64_t limit)
{
	static const struct ftfb_cfi_rule none;
	uint64_t off = e->fde - b->ehf->vaddr;
	struct cie_ent *c;
	struct ftfb_fde f;
	int rc = e->fde < b->ehf->vaddr ? -EINVAL
					: fde_at(b, off, e->pc, &f, &c);

	/* BOLT may list an empty FDE and write the function's own one
	 * right after it (libLLVM): elfutils, reading .eh_frame through,
	 * finds that one */
	if (rc == -EINVAL && e->fde >= b->ehf->vaddr &&
	    !ftfb_ehf_next(b->ehf, off, &off))
		rc = fde_at(b, off, e->pc, &f, &c);
	if (rc)
		return rc == -ENOMEM ? rc : add_row(b, e->pc, &none);
	return ftfb_cfi_fde_rows(b->ehf, &c->c, c->state_rc ? NULL : &c->s, &f,
				 limit, add_row, poll_budget, b);
}

static const char *why(int rc, char *buf, size_t len, const struct builder *b)
{
	switch (rc) {
	case -ENOMEM:
		return "out of memory";
	case -ERANGE:
		return "code larger than 4 GiB";
	case -E2BIG:
		snprintf(buf, len, "CFI over budget: more than %zu rows",
			 b->max_rows);
		return buf;
	case -ETIMEDOUT:
		return "CFI over budget: too long to read";
	case -ECANCELED:
		return "cancelled";
	}
	return "no .eh_frame_hdr/.eh_frame CFI";
}

int ftfb_cfi_table(const struct ftfb_ehf_buf *hdr,
		   const struct ftfb_ehf_buf *ehf,
		   const struct ftfb_uw_build_opts *o,
		   struct ftfb_uw_table_built *t, char *err, size_t errlen,
		   const char *what)
{
	struct builder b = {.ehf = ehf, .o = o, .t = t};
	struct hdr_ent *ents;
	size_t n;
	char buf[64];
	int rc;

	b.max_rows = o && o->max_rows ? o->max_rows : FTFB_UW_MAX_ROWS;
	b.deadline =
		now_ns() + (o && o->max_ns ? o->max_ns : FTFB_UW_MAX_BUILD_NS);
	rc = hdr->size ? hdr_entries(hdr, &ents, &n)
		       : ehf_entries(&b, &ents, &n);
	if (!rc) {
		t->base = ents[0].pc;
		rc = poll_budget(&b);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t limit = i + 1 < n ? ents[i + 1].pc : UINT64_MAX;

		if ((i + 1) % POLL_FDES == 0 && (rc = poll_budget(&b)))
			break;
		/* (of FDEs that start at one address, the last) */
		if (ents[i].pc < limit)
			rc = fde_rows(&b, &ents[i], limit);
	}
	free(ents);
	free(b.cies);
	ftfb_idtab_free(&b.cie_ids);
	if (rc) {
		free(t->rows);
		t->rows = NULL;
		t->n = 0;
		ftfb_seterr(err, errlen, "%s: %s", what,
			    why(rc, buf, sizeof(buf), &b));
	}
	return rc;
}
