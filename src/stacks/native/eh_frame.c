// SPDX-License-Identifier: MIT
/*
 * eh_frame.c - CIEs and FDEs of .eh_frame (see eh_frame.h). The layout is
 * the LSB's ("Exception Frames", Linux Standard Base Core, 10.6) with
 * DWARF 4's section 6.4.1: a length (0xffffffff: a 64-bit one follows),
 * an id (0: a CIE; else the distance back to the FDE's CIE), the rest.
 */
#include <errno.h>
#include <string.h>

#include "eh_frame.h"

bool ftfb_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned i = 0; *p < end && i < 10; i++) {
		uint8_t b = *(*p)++;

		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

bool ftfb_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t r = 0;

	for (unsigned i = 0; *p < end && i < 10; i++) {
		uint8_t b = *(*p)++;

		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if ((b & 0x40) && i < 9)
				r |= ~0ull << (7 * (i + 1));
			*v = (int64_t)r;
			return true;
		}
	}
	return false;
}

/* The fixed-size value of encoding enc at *p: 2, 4 or 8 bytes. */
static bool fixed(uint8_t enc, const uint8_t **p, const uint8_t *end,
		  uint64_t *v)
{
	size_t len = (enc & 7) == FTFB_PE_UDATA2   ? 2
		     : (enc & 7) == FTFB_PE_UDATA4 ? 4
						   : 8;
	uint64_t u = 0;

	if ((size_t)(end - *p) < len)
		return false;
	memcpy(&u, *p, len); /* little-endian: x86-64 only */
	*p += len;
	if (len == 2 && (enc & 8))
		u = (uint64_t)(int64_t)(int16_t)u;
	else if (len == 4 && (enc & 8))
		u = (uint64_t)(int64_t)(int32_t)u;
	*v = u;
	return true;
}

bool ftfb_ehf_ptr(const struct ftfb_ehf_buf *buf, uint8_t enc,
		  const uint8_t **p, const uint8_t *end, uint64_t datarel,
		  uint64_t *out)
{
	uint64_t base = 0, v;
	int64_t s;

	switch (enc & 0x70) {
	case FTFB_PE_PCREL:
		base = buf->vaddr + (uint64_t)(*p - buf->p);
		break;
	case FTFB_PE_DATAREL:
		base = datarel;
		break;
	case 0:
	case FTFB_PE_TEXTREL:
	case FTFB_PE_FUNCREL:
		break;
	default: /* aligned, or not an encoding */
		return false;
	}
	if (enc & 0x80) /* indirect: a pointer to the pointer */
		return false;
	switch (enc & 0x0f) {
	case FTFB_PE_ABSPTR:
	case FTFB_PE_UDATA2:
	case FTFB_PE_UDATA4:
	case FTFB_PE_UDATA8:
	case FTFB_PE_SDATA2:
	case FTFB_PE_SDATA4:
	case FTFB_PE_SDATA8:
		if (!fixed(enc, p, end, &v))
			return false;
		break;
	case FTFB_PE_ULEB128:
		if (!ftfb_uleb(p, end, &v))
			return false;
		break;
	case FTFB_PE_SLEB128:
		if (!ftfb_sleb(p, end, &s))
			return false;
		v = (uint64_t)s;
		break;
	default:
		return false;
	}
	*out = base + v;
	return true;
}

/* The entry at off: its id's place *id_at, its end *lim, its id. */
static int entry(const struct ftfb_ehf_buf *ehf, uint64_t off,
		 const uint8_t **id_at, const uint8_t **lim, uint64_t *id)
{
	const uint8_t *p, *end = ehf->p + ehf->size;
	uint64_t len = 0;
	size_t osz = 4;

	if (off >= ehf->size || ehf->size - off <= 4)
		return -EINVAL;
	p = ehf->p + off;
	memcpy(&len, p, 4);
	p += 4;
	if (len == 0xffffffffu) {
		osz = 8;
		if (end - p < 8)
			return -EINVAL;
		memcpy(&len, p, 8);
		p += 8;
	}
	if (!len || (uint64_t)(end - p) < len || len < osz + 1)
		return -EINVAL;
	*lim = p + len;
	*id_at = p;
	*id = 0;
	memcpy(id, p, osz);
	return (int)osz;
}

/* The augmentation data of a "z" CIE: LSDA (L), FDE pointers (R),
 * personality (P), signal frame (S); other letters carry no data
 * (elfutils skips them too). */
static int augmentation(const struct ftfb_ehf_buf *ehf, const char *aug,
			const uint8_t *d, const uint8_t *dend,
			struct ftfb_cie *c)
{
	uint64_t ignored;

	for (const char *a = aug + 1; *a; a++) {
		if (*a == 'S') {
			c->signal = true;
		} else if (*a == 'L' || *a == 'R') {
			if (d >= dend)
				return -EINVAL;
			if (*a == 'R')
				c->fde_enc = *d;
			d++;
		} else if (*a == 'P') {
			if (d >= dend)
				return -EINVAL;
			uint8_t enc = *d++;

			/* (skipped: its size is all that matters) */
			if (!ftfb_ehf_ptr(ehf, enc & 0x0f, &d, dend, 0,
					  &ignored))
				return -EINVAL;
		}
	}
	return 0;
}

int ftfb_ehf_cie(const struct ftfb_ehf_buf *ehf, uint64_t off,
		 struct ftfb_cie *c)
{
	const uint8_t *p, *lim, *aug_end;
	const char *aug;
	uint64_t id, ra, asz;
	int osz = entry(ehf, off, &p, &lim, &id);
	uint8_t version;

	if (osz < 0 || id != 0)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	p += osz;
	version = *p++;
	if (version != 1 && version != 3 && version != 4)
		return -EINVAL;
	aug = (const char *)p;
	if (!(aug_end = memchr(p, 0, (size_t)(lim - p))))
		return -EINVAL;
	p = aug_end + 1;
	if (version == 4) { /* address size 8, no segment selector */
		if (lim - p < 5 || p[0] != 8 || p[1] != 0)
			return -EINVAL;
		p += 2;
	}
	if (aug[0] == 'e' && aug[1] == 'h') /* g++ 2's "eh" pointer */
		p += 8;
	if (p >= lim || !ftfb_uleb(&p, lim, &c->code_align) || p >= lim ||
	    !ftfb_sleb(&p, lim, &c->data_align) || p >= lim)
		return -EINVAL;
	if (version == 1)
		p++; /* the return address register: x86-64's is 16 */
	else if (!ftfb_uleb(&p, lim, &ra))
		return -EINVAL;
	if (aug[0] == 'z') {
		c->sized_aug = true;
		if (p >= lim || !ftfb_uleb(&p, lim, &asz) ||
		    (uint64_t)(lim - p) < asz ||
		    augmentation(ehf, aug, p, p + asz, c))
			return -EINVAL;
		p += asz;
	} else if (aug[0] == 'S') {
		c->signal = true;
	}
	if (p > lim)
		return -EINVAL;
	c->ins = p;
	c->ins_end = lim;
	return 0;
}

int ftfb_ehf_fde_cie(const struct ftfb_ehf_buf *ehf, uint64_t off,
		     uint64_t *cie_off)
{
	const uint8_t *p, *lim;
	uint64_t id, pos;
	int osz = entry(ehf, off, &p, &lim, &id);

	if (osz < 0 || id == 0)
		return -EINVAL;
	/* the distance back from the id to the CIE */
	pos = (uint64_t)(p - ehf->p);
	if (id > pos || pos <= (uint64_t)osz)
		return -EINVAL;
	*cie_off = pos - id;
	return 0;
}

int ftfb_ehf_fde(const struct ftfb_ehf_buf *ehf, uint64_t off,
		 const struct ftfb_cie *c, struct ftfb_fde *f)
{
	const uint8_t *p, *lim;
	uint64_t id, range, asz;
	int osz = entry(ehf, off, &p, &lim, &id);

	if (osz < 0 || id == 0)
		return -EINVAL;
	p += osz;
	if (!ftfb_ehf_ptr(ehf, c->fde_enc, &p, lim, 0, &f->start) ||
	    !ftfb_ehf_ptr(ehf, c->fde_enc & 0x0f, &p, lim, 0, &range))
		return -EINVAL;
	f->end = f->start + range;
	if (f->start >= f->end) /* no code, or wraps around */
		return -EINVAL;
	if (c->sized_aug) {
		if (!ftfb_uleb(&p, lim, &asz) || (uint64_t)(lim - p) < asz)
			return -EINVAL;
		p += asz;
	} else {
		p += c->fde_aug_size < (size_t)(lim - p) ? c->fde_aug_size
							 : (size_t)(lim - p);
	}
	f->ins = p;
	f->ins_end = lim;
	return 0;
}

int ftfb_ehf_next(const struct ftfb_ehf_buf *ehf, uint64_t off, uint64_t *next)
{
	const uint8_t *p, *lim;
	uint64_t id;

	if (entry(ehf, off, &p, &lim, &id) < 0)
		return -EINVAL;
	*next = (uint64_t)(lim - ehf->p);
	return 0;
}
