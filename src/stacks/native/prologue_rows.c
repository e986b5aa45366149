// SPDX-License-Identifier: MIT
/*
 * prologue_rows.c - rows for the functions no FDE covers, from their
 * prologues (see prologue_rows.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"
#include "prologue_rows.h"

/* the bytes of a prologue read, and the instructions followed */
#define PROLOGUE_BYTES 64
#define PROLOGUE_INSNS 24

struct func {
	uint64_t start, end;
};

/* A row at an absolute address, before the table's base is known. */
struct arow {
	uint64_t pc;
	struct ftfb_uw_row r;
};

struct arows {
	struct arow *v;
	size_t n, cap;
};

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* The functions of elf's symbol tables (with a size), sorted by start,
 * the longest of those starting at one address first. */
static int read_funcs(Elf *elf, struct func **out, size_t *n)
{
	size_t cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	*out = NULL;
	*n = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size ||
			    sym.st_value + sym.st_size < sym.st_value)
				continue;
			if (ftfb_grow_array((void **)out, &cap, *n + 1,
					    sizeof(**out)))
				return -ENOMEM;
			(*out)[(*n)++] = (struct func){
				sym.st_value, sym.st_value + sym.st_size};
		}
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), func_cmp);
	return 0;
}

/* The table's row at address pc, or NULL (before its first row). */
static const struct ftfb_uw_row *row_at(const struct ftfb_uw_table_built *t,
					uint64_t pc, size_t *next)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->base + t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = lo;
	return lo ? &t->rows[lo - 1] : NULL;
}

/* Whether no FDE covers any of f: it lies in one "no CFI" stretch. */
static bool uncovered(const struct ftfb_uw_table_built *t, const struct func *f)
{
	size_t next;
	const struct ftfb_uw_row *r = row_at(t, f->start, &next);

	return (!r || FTFB_UW_CFA_TYPE(r) == FTFB_UW_CFA_NONE) &&
	       (next == t->n || t->base + t->rows[next].pc >= f->end);
}

static int add(struct arows *a, uint64_t pc, uint8_t cfa, int32_t cfa_off,
	       int32_t rbp_off)
{
	struct ftfb_uw_row r = {0};

	if (cfa == FTFB_UW_CFA_RSP || cfa == FTFB_UW_CFA_RSP_RET) {
		if (cfa_off > INT16_MAX)
			return 0; /* (a frame no row holds: none) */
		r.cfa_off = (int16_t)cfa_off;
		/* (rbx's place is not read from the prologue: lost, which
		 * only a CFA_RBX row above needs) */
		cfa |= FTFB_UW_RBX_LOST << 6;
		if (rbp_off && rbp_off / 8 >= INT8_MIN) {
			r.rbp_off8 = (int8_t)(rbp_off / 8);
			cfa |= FTFB_UW_RBP_AT_CFA << 4;
		}
	}
	r.type = cfa;
	if (a->n && a->v[a->n - 1].pc == pc) {
		a->v[a->n - 1].r = r; /* an empty stretch: replaced */
		return 0;
	}
	if (ftfb_grow_array((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)))
		return -ENOMEM;
	a->v[a->n++] = (struct arow){pc, r};
	return 0;
}

/* The length of a ModRM operand from m (after the opcode), or 0 when it
 * does not fit; *reg, *rm: its registers (REX-extended; rm -1 for a
 * memory operand). */
static size_t modrm_len(const uint8_t *m, size_t left, uint8_t rex, int *reg,
			int *rm)
{
	size_t len = 1;
	int mod = m[0] >> 6, r = m[0] & 7;

	if (!left)
		return 0;
	*reg = ((m[0] >> 3) & 7) | (rex & 4) << 1;
	*rm = mod == 3 ? r | (rex & 1) << 3 : -1;
	if (mod == 3)
		return 1;
	if (r == 4) { /* SIB */
		if (left < 2)
			return 0;
		len++;
		if (mod == 0 && (m[1] & 7) == 5)
			len += 4;
	}
	if (mod == 0 && r == 5)
		len += 4; /* rip-relative */
	len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return len <= left ? len : 0;
}

/* The prologue's effect, instruction by instruction. */
struct pro {
	int32_t cfa_off; /* CFA = rsp + cfa_off */
	int32_t rbp_off; /* the caller's rbp at CFA + rbp_off; 0: in rbp */
};

/* One instruction at c (left bytes): its length, and its effect on p; 0
 * ends the prologue (a call, a jump, another instruction), -1 makes the
 * frame unknown (rsp or rbp changed another way). */
static long step(const uint8_t *c, size_t left, struct pro *p)
{
	uint8_t rex = 0, op;
	size_t n = 0, ml;
	int reg, rm;

	if (left >= 4 && !memcmp(c, "\xf3\x0f\x1e\xfa", 4))
		return 4; /* endbr64 */
	if (left && (c[0] & 0xf0) == 0x40)
		rex = c[n++];
	if (n >= left)
		return 0;
	op = c[n++];
	if (op >= 0x50 && op <= 0x57) { /* push */
		p->cfa_off += 8;
		if ((op & 7) == 5 && !(rex & 1) && !p->rbp_off)
			p->rbp_off = -p->cfa_off;
		return (long)n;
	}
	if (rex == 0x48 && (op == 0x83 || op == 0x81) && n < left &&
	    c[n] == 0xec) { /* sub $imm, %rsp */
		size_t isz = op == 0x83 ? 1 : 4;
		int32_t imm = 0;

		if (n + 1 + isz > left)
			return 0;
		if (isz == 1)
			imm = (int8_t)c[n + 1];
		else
			memcpy(&imm, c + n + 1, 4);
		if (imm < 0 || imm > 0x10000)
			return -1;
		p->cfa_off += imm;
		return (long)(n + 1 + isz);
	}
	if (op >= 0xb8 && op <= 0xbf) /* mov $imm, %reg */
		return ((op & 7) | (rex & 1) << 3) == 4
			       ? -1
			       : (long)(n + (rex & 8 ? 8 : 4));
	/* register moves and arithmetic that leave rsp alone */
	if (!strchr("\x89\x8b\x63\x8d\x31\x33\x85\x39\x3b\x01\x29\x21\x09", op))
		return 0;
	if (!(ml = modrm_len(c + n, left - n, rex, &reg, &rm)))
		return 0;
	if (reg == 4 || rm == 4 || (!p->rbp_off && (reg == 5 || rm == 5)))
		return -1; /* rsp, or the caller's rbp before it is saved */
	return (long)(n + ml);
}

/* Whether the instruction at c is a call (direct, indirect) or a
 * syscall: the prologue is done, the body begins with its frame set. A
 * prologue that ends on anything else may be shrink-wrapped (a test and
 * a branch first, the frame set up on one path only: musl's
 * __clock_nanosleep), and its body is left without CFI. */
static bool at_call(const uint8_t *c, size_t left)
{
	size_t n = left && (c[0] & 0xf0) == 0x40 ? 1 : 0;

	return left >= n + 2 &&
	       (c[n] == 0xe8 || (c[n] == 0x0f && c[n + 1] == 0x05) ||
		(c[n] == 0xff && ((c[n + 1] >> 3) & 7) == 2));
}

/* Whether the rest of a function, from c, may move its stack pointer: a
 * push (50-57, 6a, 68: stack arguments before a call, as musl passes a
 * seventh) or a sub from rsp, anywhere among its bytes (a byte scan,
 * which may find one in another instruction's operands: then the body
 * is left without CFI, never given a wrong one). */
static bool may_move_sp(const uint8_t *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((c[i] >= 0x50 && c[i] <= 0x57) || c[i] == 0x6a ||
		    c[i] == 0x68)
			return true;
		if (i + 2 < n && c[i] == 0x48 &&
		    (c[i + 1] == 0x83 || c[i + 1] == 0x81) && c[i + 2] == 0xec)
			return true;
	}
	return false;
}

/* the largest function whose body is scanned */
#define BODY_BYTES 65536

/* The rows of f from its prologue, in a: exact ones for the prologue's
 * bytes, RSP_RET from where it ends (none when its frame is unknown). */
static int prologue(Elf *elf, ftfb_code_fn code, const struct func *f,
		    struct arows *a)
{
	struct ftfb_ehf_buf c;
	struct pro p = {8, 0};
	size_t off = 0;
	long got = 1;
	int rc;

	if (!code(elf, f->start,
		  f->end - f->start < PROLOGUE_BYTES ? f->end - f->start
						     : PROLOGUE_BYTES,
		  &c))
		return 0;
	if ((rc = add(a, f->start, FTFB_UW_CFA_RSP, 8, 0)))
		return rc;
	for (int i = 0; i < PROLOGUE_INSNS && off < c.size; i++) {
		struct pro was = p;

		if ((got = step(c.p + off, c.size - off, &p)) <= 0)
			break;
		off += (size_t)got;
		if ((p.cfa_off != was.cfa_off || p.rbp_off != was.rbp_off) &&
		    (rc = add(a, f->start + off, FTFB_UW_CFA_RSP, p.cfa_off,
			      p.rbp_off)))
			return rc;
	}
	if (got < 0 || !at_call(c.p + off, c.size - off) ||
	    f->end - f->start > BODY_BYTES ||
	    !code(elf, f->start, f->end - f->start, &c) ||
	    c.size != f->end - f->start || may_move_sp(c.p + off, c.size - off))
		return add(a, f->start + off, FTFB_UW_CFA_NONE, 0, 0);
	return add(a, f->start + off, FTFB_UW_CFA_RSP_RET, p.cfa_off,
		   p.rbp_off);
}

/* The new rows of the functions no FDE covers, sorted; with_entry: the
 * function at the entry point gets one END row. */
static int new_rows(Elf *elf, ftfb_code_fn code,
		    const struct ftfb_uw_table_built *t, const struct func *fs,
		    size_t nf, bool with_entry, struct arows *a)
{
	GElf_Ehdr eh;
	uint64_t entry = gelf_getehdr(elf, &eh) ? eh.e_entry : 0, last = 0;
	size_t next;
	int rc;

	for (size_t i = 0; i < nf; i++) {
		const struct func *f = &fs[i];

		if (f->start < last || !uncovered(t, f))
			continue; /* (an alias, or overlapping) */
		if (with_entry && f->start <= entry && entry < f->end)
			rc = add(a, f->start, FTFB_UW_CFA_END, 0, 0);
		else
			rc = prologue(elf, code, f, a);
		last = f->end;
		/* its end: "no CFI" again, unless a row starts there (or
		 * its last row says so already) */
		if (!rc && (i + 1 == nf || fs[i + 1].start != f->end) &&
		    FTFB_UW_CFA_TYPE(&a->v[a->n - 1].r) != FTFB_UW_CFA_NONE) {
			row_at(t, f->end, &next);
			if (next == 0 ||
			    t->base + t->rows[next - 1].pc != f->end)
				rc = add(a, f->end, FTFB_UW_CFA_NONE, 0, 0);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* t's rows and a's merged, in rows based at base (a's rows lie where t
 * says "no CFI"; where both have one at an address, a's). */
static int merge(struct ftfb_uw_table_built *t, const struct arows *a,
		 size_t max_rows)
{
	uint64_t base = a->v[0].pc < t->base ? a->v[0].pc : t->base;
	size_t n = 0, i = 0, j = 0;
	struct ftfb_uw_row *rows;

	if (t->n + a->n > max_rows)
		return -E2BIG;
	if ((t->n && t->base + t->rows[t->n - 1].pc - base > UINT32_MAX) ||
	    a->v[a->n - 1].pc - base > UINT32_MAX)
		return -ERANGE;
	if (!(rows = calloc(t->n + a->n, sizeof(*rows))))
		return -ENOMEM;
	while (i < t->n || j < a->n) {
		uint64_t ti = i < t->n ? t->base + t->rows[i].pc : UINT64_MAX;

		if (j < a->n && a->v[j].pc <= ti) {
			if (a->v[j].pc == ti)
				i++;
			rows[n] = a->v[j].r;
			rows[n++].pc = (uint32_t)(a->v[j++].pc - base);
		} else {
			rows[n] = t->rows[i++];
			rows[n++].pc = (uint32_t)(ti - base);
		}
	}
	free(t->rows);
	t->rows = rows;
	t->n = n;
	t->base = base;
	return 0;
}

/* The entry point as a function of its own when no function symbol
 * covers it (musl's _start is an assembly label, of no type or size):
 * up to the next function. */
static int add_entry(Elf *elf, struct func **fs, size_t *nf)
{
	GElf_Ehdr eh;
	uint64_t entry, end;
	struct func *more;

	if (!gelf_getehdr(elf, &eh) || !(entry = eh.e_entry))
		return 0;
	end = entry + PROLOGUE_BYTES;
	for (size_t i = 0; i < *nf; i++) {
		if ((*fs)[i].start <= entry && entry < (*fs)[i].end)
			return 0;
		if ((*fs)[i].start > entry && (*fs)[i].start < end)
			end = (*fs)[i].start;
	}
	if (!(more = realloc(*fs, (*nf + 1) * sizeof(**fs))))
		return -ENOMEM;
	*fs = more;
	more[(*nf)++] = (struct func){entry, end};
	qsort(more, *nf, sizeof(*more), func_cmp);
	return 0;
}

/* Whether elf is a static program (ET_EXEC, no PT_INTERP): the only
 * kind read so. Elsewhere code without CFI is most often code that
 * keeps frame pointers, and moves its stack pointer past the prologue
 * (V8's builtins in node: 1,050 of them), which the walker follows by
 * frame pointer instead. */
static bool is_static(Elf *elf)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t nph;

	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_EXEC ||
	    elf_getphdrnum(elf, &nph))
		return false;
	for (size_t i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return false;
	return true;
}

/* The .init and .fini sections of elf as functions, sorted. crti.o's
 * _init and _fini have no CFI, and each library's first code page starts
 * with _init: the first call into it faults that page in, so an on-CPU
 * sample lands at its first instruction (beside a build, every new
 * process's libraries, most of the stacks that stopped "no CFI"). Their
 * code is a fixed frame (sub $8, %rsp, then a call), which prologue()
 * reads as it reads any function's. */
static int read_init_fini(Elf *elf, struct func **out, size_t *n)
{
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;

	*out = NULL;
	*n = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(name, ".init") && strcmp(name, ".fini")))
			continue;
		if (ftfb_grow_array((void **)out, &cap, *n + 1, sizeof(**out)))
			return -ENOMEM;
		(*out)[(*n)++] =
			(struct func){sh.sh_addr, sh.sh_addr + sh.sh_size};
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), func_cmp);
	return 0;
}

int ftfb_prologue_rows(Elf *elf, ftfb_code_fn code,
		       struct ftfb_uw_table_built *t, size_t max_rows)
{
	bool whole = is_static(elf);
	struct func *fs;
	struct arows a = {0};
	size_t nf;
	int rc;

	/* (elsewhere, only .init and .fini: see is_static) */
	rc = whole ? read_funcs(elf, &fs, &nf) : read_init_fini(elf, &fs, &nf);

	if (!rc && whole)
		rc = add_entry(elf, &fs, &nf);

	if (!rc && t->n)
		rc = new_rows(elf, code, t, fs, nf, whole, &a);
	if (!rc && a.n)
		rc = merge(t, &a, max_rows);
	free(fs);
	free(a.v);
	return rc;
}
