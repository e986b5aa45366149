// SPDX-License-Identifier: MIT
/*
 * gopclntab.c - Go's .gopclntab function table, read bounded (see
 * gopclntab.h).
 */
#include <errno.h>
#include <string.h>

#include "gopclntab.h"

#define MAGIC_GO118 0xfffffff0u
#define MAGIC_GO120 0xfffffff1u

/* Header words after the 8 fixed bytes, in ptrSize units. */
enum {
	W_NFUNC,
	W_NFILES,
	W_TEXT,
	W_FUNCNAME,
	W_CU,
	W_FILETAB,
	W_PCTAB,
	W_PCLN,
	W_COUNT
};

static uint64_t le(const uint8_t *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = width; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

struct table {
	const uint8_t *p;
	size_t n;
	uint64_t text, names, pcln, nfunc;
};

/* Reads and checks the header; 0, -ENOENT or -EINVAL. */
static int header(const uint8_t *p, size_t n, uint64_t text_addr,
		  struct table *t)
{
	unsigned ptr;
	uint64_t magic;

	if (n < 8)
		return -ENOENT;
	magic = le(p, 4);
	if ((magic != MAGIC_GO118 && magic != MAGIC_GO120) || p[4] || p[5])
		return -ENOENT;
	ptr = p[7];
	if (ptr != 4 && ptr != 8)
		return -EINVAL;
	if (n < 8 + (size_t)W_COUNT * ptr)
		return -EINVAL;
	t->p = p;
	t->n = n;
	t->nfunc = le(p + 8 + W_NFUNC * ptr, ptr);
	t->text = le(p + 8 + W_TEXT * ptr, ptr);
	t->names = le(p + 8 + W_FUNCNAME * ptr, ptr);
	t->pcln = le(p + 8 + W_PCLN * ptr, ptr);
	if (!t->text)
		t->text = text_addr;
	if (t->nfunc > FTFB_GOPCLNTAB_MAX_FUNCS)
		return -EINVAL;
	/* the functab: nfunc + 1 pairs of u32 (no overflow: nfunc capped) */
	if (t->pcln > n || (t->nfunc + 1) * 8 > n - t->pcln)
		return -EINVAL;
	if (t->names >= n)
		return -EINVAL;
	return 0;
}

/* Function i's name inside the section, or NULL if its _func does not
 * fit, does not start at its functab entry, or its name runs out. */
static const char *func_name(const struct table *t, uint64_t i,
			     uint32_t entryoff)
{
	const uint8_t *ft = t->p + t->pcln + i * 8;
	uint64_t fo = le(ft + 4, 4), at, name;
	const char *s;

	if (fo > t->n - t->pcln || 8 > t->n - t->pcln - fo)
		return NULL;
	at = t->pcln + fo;
	if (le(t->p + at, 4) != entryoff)
		return NULL;
	name = le(t->p + at + 4, 4);
	if (name & 0x80000000u) /* nameOff is signed */
		return NULL;
	if (name >= t->n - t->names)
		return NULL;
	s = (const char *)t->p + t->names + name;
	if (!*s || !memchr(s, 0, t->n - t->names - name))
		return NULL;
	return s;
}

int ftfb_gopclntab_walk(const uint8_t *p, size_t n, uint64_t text_addr,
			ftfb_gopclntab_fn fn, void *arg)
{
	struct table t;
	int err = header(p, n, text_addr, &t), given = 0;

	if (err)
		return err;
	for (uint64_t i = 0; i < t.nfunc; i++) {
		const uint8_t *ft = p + t.pcln + i * 8;
		uint32_t entry = (uint32_t)le(ft, 4);
		uint32_t next = (uint32_t)le(ft + 8, 4);
		const char *name = func_name(&t, i, entry);

		if (!name)
			continue;
		err = fn(arg, t.text + entry, next > entry ? next - entry : 0,
			 name);
		if (err)
			return err;
		given++;
	}
	return given;
}
