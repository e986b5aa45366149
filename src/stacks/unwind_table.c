// SPDX-License-Identifier: MIT
/*
 * unwind_table.c - a binary's .eh_frame as rows for the BPF stack walker
 * (see unwind_table.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "elfsym.h"
#include "grow_array.h"
#include "unwind_table.h"

/* DWARF registers of x86-64 (System V ABI, figure 3.36) */
#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16

/* One row's rules before they are packed into a struct ftfb_uw_row. */
struct rule {
	int cfa_type, rbp_type;
	int64_t cfa_off, rbp_off;
};

struct builder {
	struct ftfb_uw_table_built *t;
	size_t cap;
	uint64_t *fdes; /* FDE start addresses, sorted */
	size_t nfdes;
};

/* ---- .eh_frame_hdr: where the FDEs start ----------------------------- */

/* One pointer of encoding enc at *p (DW_EH_PE_*: absptr, udata/sdata 2,
 * 4, 8; pcrel or datarel to the header at hdr_vaddr). false: another
 * encoding, or past end. */
static bool read_encoded(const uint8_t **p, const uint8_t *end, uint8_t enc,
			 uint64_t hdr_vaddr, const uint8_t *hdr, uint64_t *out)
{
	uint64_t here = hdr_vaddr + (uint64_t)(*p - hdr), v;
	size_t len;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		len = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		len = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		len = 2;
		break;
	default:
		return false;
	}
	if ((size_t)(end - *p) < len)
		return false;
	if (len == 8) {
		memcpy(&v, *p, 8);
	} else if (len == 4) {
		uint32_t u;

		memcpy(&u, *p, 4);
		v = (enc & 0x0f) == DW_EH_PE_sdata4
			    ? (uint64_t)(int64_t)(int32_t)u
			    : u;
	} else {
		uint16_t u;

		memcpy(&u, *p, 2);
		v = (enc & 0x0f) == DW_EH_PE_sdata2
			    ? (uint64_t)(int64_t)(int16_t)u
			    : u;
	}
	*p += len;
	switch (enc & 0x70) {
	case 0:
		break;
	case DW_EH_PE_pcrel:
		v += here;
		break;
	case DW_EH_PE_datarel:
		v += hdr_vaddr;
		break;
	default:
		return false;
	}
	*out = v;
	return true;
}

/* The FDE start addresses of the binary's search table. */
static int read_fde_starts(Elf *elf, struct builder *b)
{
	size_t nph, cap = 0;
	GElf_Phdr ph;
	Elf_Data *d = NULL;
	const uint8_t *p, *end, *hdr;
	uint64_t count, ptr, loc, fde;

	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	for (size_t i = 0; i < nph && !d; i++)
		if (gelf_getphdr(elf, (int)i, &ph) &&
		    ph.p_type == PT_GNU_EH_FRAME)
			d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
						 ph.p_filesz, ELF_T_BYTE);
	if (!d || d->d_size < 4)
		return -ENODATA;
	hdr = d->d_buf;
	end = hdr + d->d_size;
	p = hdr + 4;
	if (hdr[0] != 1 || hdr[2] == DW_EH_PE_omit || hdr[3] == DW_EH_PE_omit ||
	    !read_encoded(&p, end, hdr[1], ph.p_vaddr, hdr, &ptr) ||
	    !read_encoded(&p, end, hdr[2], ph.p_vaddr, hdr, &count))
		return -ENODATA;
	for (uint64_t i = 0; i < count; i++) {
		if (!read_encoded(&p, end, hdr[3], ph.p_vaddr, hdr, &loc) ||
		    !read_encoded(&p, end, hdr[3], ph.p_vaddr, hdr, &fde))
			return -ENODATA;
		if (ftfb_grow_array((void **)&b->fdes, &cap, b->nfdes + 1,
				    sizeof(*b->fdes)))
			return -ENOMEM;
		b->fdes[b->nfdes++] = loc;
	}
	return b->nfdes ? 0 : -ENODATA;
}

/* ---- CFI rules to rows ------------------------------------------------- */

/* ops is "CFA + off" (libdw's form of a register saved at an offset) */
static bool at_cfa(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* The expression of glibc/binutils PLT entries: rsp + 8, + 8 when
 * (rip & 15) >= N: breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl;
 * plus. *n: N. */
static bool plt_rule(const Dwarf_Op *o, size_t nops, int64_t *n)
{
	if (nops != 9 || o[0].atom != DW_OP_breg7 || o[0].number != 8 ||
	    o[1].atom != DW_OP_breg16 || o[1].number != 0 ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and ||
	    o[4].atom < DW_OP_lit0 || o[4].atom > DW_OP_lit31 ||
	    o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 ||
	    o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return false;
	*n = o[4].atom - DW_OP_lit0;
	return true;
}

/* The CFA rule of frame into r (register + offset, PLT, or unsupported). */
static void cfa_rule(Dwarf_Frame *fr, struct rule *r)
{
	Dwarf_Op *ops;
	size_t nops;
	uint64_t reg = ~0ull;
	int64_t off = 0;

	r->cfa_type = FTFB_UW_CFA_UNSUPP;
	if (dwarf_frame_cfa(fr, &ops, &nops) || !nops)
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (nops == 1 && ops[0].atom >= DW_OP_breg0 &&
		   ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else if (plt_rule(ops, nops, &r->cfa_off)) {
		r->cfa_type = FTFB_UW_CFA_PLT;
		return;
	}
	if (reg != DW_RSP && reg != DW_RBP)
		return;
	r->cfa_type = reg == DW_RSP ? FTFB_UW_CFA_RSP : FTFB_UW_CFA_RBP;
	r->cfa_off = off;
}

/* The caller's rbp: same, saved at CFA + off, or lost. */
static void rbp_rule(Dwarf_Frame *fr, struct rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	r->rbp_type = FTFB_UW_RBP_LOST;
	if (dwarf_frame_register(fr, DW_RBP, mem, &ops, &nops))
		return;
	if (!nops && !ops) {
		r->rbp_type = FTFB_UW_RBP_SAME;
	} else if (at_cfa(ops, nops, &off)) {
		r->rbp_type = FTFB_UW_RBP_AT_CFA;
		r->rbp_off = off;
	}
}

/* The row of frame: END when the return address is undefined, SIGNAL
 * for a signal frame, UNSUPPORTED when it is not at CFA - 8. */
static void row_of(Dwarf_Frame *fr, bool signal, struct rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	memset(r, 0, sizeof(*r));
	if (signal) {
		r->cfa_type = FTFB_UW_CFA_SIGNAL;
		return;
	}
	if (dwarf_frame_register(fr, DW_RA, mem, &ops, &nops)) {
		r->cfa_type = FTFB_UW_CFA_UNSUPP;
		return;
	}
	if (!nops && ops) {
		r->cfa_type = FTFB_UW_CFA_END;
		return;
	}
	cfa_rule(fr, r);
	rbp_rule(fr, r);
	if (!at_cfa(ops, nops, &off) || off != -8)
		r->cfa_type = FTFB_UW_CFA_UNSUPP;
	if (r->cfa_type == FTFB_UW_CFA_UNSUPP)
		r->cfa_off = r->rbp_off = 0, r->rbp_type = 0;
}

/* r as a table row: an offset the row cannot hold makes the CFA rule
 * unsupported, the rbp lost. */
static struct ftfb_uw_row pack(const struct rule *r)
{
	struct ftfb_uw_row row = {0};
	int cfa = r->cfa_type, rbp = r->rbp_type;

	if ((cfa == FTFB_UW_CFA_RSP || cfa == FTFB_UW_CFA_RBP ||
	     cfa == FTFB_UW_CFA_PLT) &&
	    (r->cfa_off < INT16_MIN || r->cfa_off > INT16_MAX))
		cfa = FTFB_UW_CFA_UNSUPP;
	if (rbp == FTFB_UW_RBP_AT_CFA &&
	    (r->rbp_off % 8 || r->rbp_off / 8 < INT8_MIN ||
	     r->rbp_off / 8 > INT8_MAX))
		rbp = FTFB_UW_RBP_LOST;
	if (cfa != FTFB_UW_CFA_RSP && cfa != FTFB_UW_CFA_RBP &&
	    cfa != FTFB_UW_CFA_PLT)
		rbp = FTFB_UW_RBP_SAME; /* not used */
	if (cfa == FTFB_UW_CFA_RSP || cfa == FTFB_UW_CFA_RBP ||
	    cfa == FTFB_UW_CFA_PLT)
		row.cfa_off = (int16_t)r->cfa_off;
	if (rbp == FTFB_UW_RBP_AT_CFA)
		row.rbp_off8 = (int8_t)(r->rbp_off / 8);
	row.type = (uint8_t)(cfa | rbp << 4);
	return row;
}

/* Appends a row at vaddr pc unless it has the rules of the last one. */
static int add_row(struct builder *b, uint64_t pc, const struct rule *rl)
{
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
	if (ftfb_grow_array((void **)&t->rows, &b->cap, t->n + 1,
			    sizeof(*t->rows)))
		return -ENOMEM;
	t->rows[t->n] = r;
	t->rows[t->n++].pc = (uint32_t)(pc - t->base);
	return 0;
}

/* The rows of the FDE at start, up to limit (the next FDE's start);
 * then a "no CFI" row where it ends, if before limit. */
static int fde_rows(struct builder *b, Dwarf_CFI *cfi, uint64_t start,
		    uint64_t limit)
{
	static const struct rule none;
	uint64_t pc = start;
	int err = 0;

	while (pc < limit && !err) {
		Dwarf_Frame *fr;
		Dwarf_Addr s, e;
		bool signal;
		struct rule r;

		if (dwarf_cfi_addrframe(cfi, pc, &fr))
			break;
		dwarf_frame_info(fr, &s, &e, &signal);
		row_of(fr, signal, &r);
		free(fr);
		if (e <= pc) /* cannot happen; never loop */
			break;
		err = add_row(b, pc, &r);
		pc = e;
	}
	if (!err && pc < limit)
		err = add_row(b, pc, &none);
	return err;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The executable PT_LOAD segments, to place mappings. */
static void read_segments(Elf *elf, struct ftfb_uw_table_built *t)
{
	size_t nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return;
	for (size_t i = 0; i < nph && t->nsegs < FTFB_UW_MAX_SEGS; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			t->segs[t->nsegs].offset = ph.p_offset;
			t->segs[t->nsegs].vaddr = ph.p_vaddr;
			t->segs[t->nsegs++].filesz = ph.p_filesz;
		}
}

static int build(Elf *elf, struct ftfb_uw_table_built *t, char *err,
		 size_t errlen, const char *what)
{
	struct builder b = {.t = t};
	Dwarf_CFI *cfi;
	int rc;

	memset(t, 0, sizeof(*t));
	if (elf_kind(elf) != ELF_K_ELF) {
		ftfb_seterr(err, errlen, "%s: not an ELF file", what);
		return -ENOEXEC;
	}
	read_segments(elf, t);
	rc = read_fde_starts(elf, &b);
	if (rc || !(cfi = dwarf_getcfi_elf(elf))) {
		free(b.fdes);
		ftfb_seterr(err, errlen, "%s: %s", what,
			    rc == -ENOMEM ? "out of memory"
					  : "no .eh_frame_hdr/.eh_frame CFI");
		return rc == -ENOMEM ? rc : -ENODATA;
	}
	qsort(b.fdes, b.nfdes, sizeof(*b.fdes), u64_cmp);
	t->base = b.fdes[0];
	for (size_t i = 0; i < b.nfdes && !rc; i++)
		rc = fde_rows(&b, cfi, b.fdes[i],
			      i + 1 < b.nfdes ? b.fdes[i + 1] : UINT64_MAX);
	dwarf_cfi_end(cfi);
	free(b.fdes);
	if (rc) {
		ftfb_uw_table_free(t);
		ftfb_seterr(err, errlen, "%s: %s", what,
			    rc == -ENOMEM ? "out of memory"
					  : "code larger than 4 GiB");
	}
	return rc;
}

int ftfb_uw_table_from_fd(int fd, const char *path,
			  struct ftfb_uw_table_built *t, char *err,
			  size_t errlen)
{
	Elf *elf;
	int rc;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	/* ELF_C_READ, not _MMAP: the file's user may truncate it while it
	 * is read, which must not SIGBUS the tracer */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		ftfb_seterr(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	rc = build(elf, t, err, errlen, path);
	elf_end(elf);
	return rc;
}

int ftfb_uw_table_from_file(const char *path, struct ftfb_uw_table_built *t,
			    char *err, size_t errlen)
{
	int fd = ftfb_open_regular(path), rc;

	memset(t, 0, sizeof(*t));
	if (fd < 0) {
		ftfb_seterr(err, errlen, "%s: %s", path,
			    fd == -ENOEXEC ? "not a regular file"
					   : strerror(-fd));
		return fd;
	}
	rc = ftfb_uw_table_from_fd(fd, path, t, err, errlen);
	close(fd);
	return rc;
}

int ftfb_uw_table_from_memory(const void *image, size_t size,
			      struct ftfb_uw_table_built *t, char *err,
			      size_t errlen)
{
	Elf *elf;
	int rc;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, size);
	if (!elf) {
		ftfb_seterr(err, errlen,
			    "ELF image in memory: not an ELF file");
		return -ENOEXEC;
	}
	rc = build(elf, t, err, errlen, "ELF image in memory");
	elf_end(elf);
	return rc;
}

void ftfb_uw_table_free(struct ftfb_uw_table_built *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

const struct ftfb_uw_row *
ftfb_uw_table_lookup(const struct ftfb_uw_table_built *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->n;

	if (vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return NULL;
	while (lo < hi) { /* the last row at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= vaddr - t->base)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

int ftfb_uw_table_bias(const struct ftfb_uw_table_built *t, uint64_t start,
		       uint64_t pgoff, uint64_t *bias)
{
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct ftfb_uw_seg *s = &t->segs[i];
		/* the mapping starts on the page that holds the segment's
		 * first byte, or inside the segment */
		uint64_t first = s->offset & ~0xfffull;

		if (pgoff >= first && pgoff < s->offset + s->filesz) {
			*bias = start - pgoff - (s->vaddr - s->offset);
			return 0;
		}
	}
	return -ENOENT;
}

/* The vDSO's size: it ends with its section header table. */
static size_t vdso_size(const void *image)
{
	GElf_Ehdr eh;
	Elf *elf = elf_memory((char *)image, sizeof(Elf64_Ehdr));
	size_t size = 0;

	if (elf && gelf_getehdr(elf, &eh))
		size = eh.e_shoff + (size_t)eh.e_shentsize * eh.e_shnum;
	if (elf)
		elf_end(elf);
	return size;
}

int ftfb_uw_table_from_vdso(struct ftfb_uw_table_built *t, char *err,
			    size_t errlen)
{
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	if (!vdso || !(size = vdso_size(vdso))) {
		ftfb_seterr(err, errlen, "no vDSO in this process");
		return -ENOENT;
	}
	return ftfb_uw_table_from_memory(vdso, size, t, err, errlen);
}

const char *ftfb_uw_stop_name(uint64_t ip)
{
	static const char *const names[FTFB_UW_NREASONS] = {
		[FTFB_UW_NOT_LOADED] =
			"[unwind stopped: tables not loaded yet]",
		[FTFB_UW_NO_MAPPING] =
			"[unwind stopped: address in no mapping]",
		[FTFB_UW_NO_CFI] = "[unwind stopped: no CFI]",
		[FTFB_UW_UNSUPPORTED] =
			"[unwind stopped: unsupported CFI rule]",
		[FTFB_UW_UNREADABLE] = "[unwind stopped: stack not readable]",
		[FTFB_UW_DEPTH] = "[unwind stopped: depth limit]",
		[FTFB_UW_BAD_FRAME] = "[unwind stopped: bad frame]",
		[FTFB_UW_SIGNAL] = "[unwind stopped: signal frame]",
	};

	if (ip < FTFB_UW_STOP_BASE ||
	    ip - FTFB_UW_STOP_BASE >= FTFB_UW_NREASONS)
		return NULL;
	return names[ip - FTFB_UW_STOP_BASE];
}
