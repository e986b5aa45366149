// SPDX-License-Identifier: MIT
/*
 * uw_cache_file.c - an unwind table's cache file, written and checked
 * (see uw_cache_file.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "elfsym.h"
#include "uw_cache_file.h"

static const char magic[8] = "FTFBUWT";

/* The header, little-endian as the machine (x86-64 only, as the rows). */
struct hdr {
	char magic[8];
	uint32_t version;
	uint32_t row_size; /* sizeof(struct ftfb_uw_row) */
	uint32_t build_id_len;
	uint32_t nsegs;
	uint8_t build_id[FTFB_BUILD_ID_MAX];
	uint64_t file_size;
	uint64_t base;
	uint64_t nrows;
	struct ftfb_uw_seg segs[FTFB_UW_MAX_SEGS];
	uint32_t crc; /* of the header with crc 0, then the rows */
	uint32_t pad;
};

/* (tests/unwind/test_uw_cache.py and the fuzz seeds write headers) */
_Static_assert(sizeof(struct hdr) == 504, "the cache file header is 504 bytes");

static uint32_t file_crc(const struct hdr *h, const void *rows, size_t n)
{
	struct hdr z = *h;
	uLong c;

	z.crc = 0;
	c = crc32(0L, (const Bytef *)&z, sizeof(z));
	/* (in pieces: crc32 takes a uInt length) */
	for (size_t off = 0, len = n * sizeof(struct ftfb_uw_row); off < len;) {
		size_t part = len - off > (1u << 30) ? (1u << 30) : len - off;

		c = crc32(c, (const Bytef *)rows + off, (uInt)part);
		off += part;
	}
	return (uint32_t)c;
}

int ftfb_uw_cache_encode(const struct ftfb_uw_cache_key *k,
			 const struct ftfb_uw_table_built *t, void **out,
			 size_t *len)
{
	struct hdr h;
	char *buf;

	*out = NULL;
	*len = 0;
	if (!k->build_id_len || k->build_id_len > FTFB_BUILD_ID_MAX || !t->n ||
	    t->n > FTFB_UW_MAX_ROWS || t->nsegs > FTFB_UW_MAX_SEGS)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, magic, sizeof(magic));
	h.version = FTFB_UW_CACHE_VERSION;
	h.row_size = sizeof(struct ftfb_uw_row);
	h.build_id_len = (uint32_t)k->build_id_len;
	memcpy(h.build_id, k->build_id, k->build_id_len);
	h.file_size = k->file_size;
	h.base = t->base;
	h.nrows = t->n;
	h.nsegs = (uint32_t)t->nsegs;
	memcpy(h.segs, t->segs, t->nsegs * sizeof(*t->segs));
	h.crc = file_crc(&h, t->rows, t->n);
	buf = malloc(sizeof(h) + t->n * sizeof(*t->rows));
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), t->rows, t->n * sizeof(*t->rows));
	*out = buf;
	*len = sizeof(h) + t->n * sizeof(*t->rows);
	return 0;
}

/* The header's own fields: NULL if they hold, else what is wrong. */
static const char *bad_header(const struct hdr *h, size_t len,
			      const struct ftfb_uw_cache_key *k)
{
	if (memcmp(h->magic, magic, sizeof(magic)))
		return "not an ftf-bpf unwind table";
	if (h->version != FTFB_UW_CACHE_VERSION ||
	    h->row_size != sizeof(struct ftfb_uw_row))
		return "another format version";
	if (h->build_id_len != k->build_id_len ||
	    memcmp(h->build_id, k->build_id, k->build_id_len) ||
	    h->file_size != k->file_size)
		return "the table of another binary";
	if (!h->nrows || h->nrows > FTFB_UW_MAX_ROWS ||
	    len - sizeof(*h) != h->nrows * sizeof(struct ftfb_uw_row))
		return "its size does not match its row count";
	if (h->nsegs > FTFB_UW_MAX_SEGS)
		return "too many segments";
	for (uint32_t i = 0; i < h->nsegs; i++) {
		const struct ftfb_uw_seg *s = &h->segs[i];

		if (s->offset + s->filesz < s->offset ||
		    s->vaddr + s->filesz < s->vaddr)
			return "a segment past the end of the address space";
	}
	return NULL;
}

/* The rows' contents: NULL if the walker can use them, else why not. */
static const char *bad_rows(const struct ftfb_uw_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (FTFB_UW_CFA_TYPE(&r[i]) > FTFB_UW_CFA_LAST ||
		    FTFB_UW_RBP_TYPE(&r[i]) > FTFB_UW_RBP_LOST)
			return "a row of unknown type";
		if (i && r[i].pc < r[i - 1].pc)
			return "rows out of order";
	}
	return NULL;
}

int ftfb_uw_cache_decode(const void *buf, size_t len,
			 const struct ftfb_uw_cache_key *k,
			 struct ftfb_uw_table_built *t, char *err,
			 size_t errlen)
{
	const struct ftfb_uw_row *rows;
	const char *why;
	struct hdr h;

	memset(t, 0, sizeof(*t));
	if (len < sizeof(h)) {
		ftfb_seterr(err, errlen, "shorter than its header (%zu bytes)",
			    len);
		return -EBADMSG;
	}
	memcpy(&h, buf, sizeof(h)); /* (buf may be unaligned) */
	rows = (const void *)((const char *)buf + sizeof(h));
	why = bad_header(&h, len, k);
	if (!why && file_crc(&h, rows, h.nrows) != h.crc)
		why = "bad checksum";
	if (why) {
		ftfb_seterr(err, errlen, "%s", why);
		return -EBADMSG;
	}
	t->rows = malloc(h.nrows * sizeof(*t->rows));
	if (!t->rows)
		return -ENOMEM;
	memcpy(t->rows, rows, h.nrows * sizeof(*t->rows));
	t->n = h.nrows;
	if ((why = bad_rows(t->rows, t->n))) {
		ftfb_seterr(err, errlen, "%s", why);
		free(t->rows);
		memset(t, 0, sizeof(*t));
		return -EBADMSG;
	}
	t->base = h.base;
	t->nsegs = h.nsegs;
	memcpy(t->segs, h.segs, h.nsegs * sizeof(*h.segs));
	return 0;
}
