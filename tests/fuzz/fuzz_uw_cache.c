// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the unwind table cache's file reader
 * (uw_cache_file.c, compiled into the target with its coverage): the
 * input is a cache file, after one byte of flags: bit 0 set, the file's
 * CRC is made right first, so the fuzzer gets past it to the sizes and
 * the rows. The key is the one the file's header names (the fuzzer would
 * not guess a build id), else a fixed one.
 * The reader returns 0 with rows in address order, of the types
 * bpf/unwind.h defines, and the same file written back from them; or a
 * negative errno with a message and no rows. It never crashes, reads
 * out of bounds or leaks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "uw_cache_file.h"

#define HDR 504
#define CRC_AT 496

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void key_of(const uint8_t *f, size_t len, struct ftfb_uw_cache_key *k)
{
	uint32_t n = 20;

	memset(k, 0, sizeof(*k));
	if (len >= HDR) {
		memcpy(&n, f + 16, sizeof(n));
		memcpy(k->build_id, f + 24, FTFB_BUILD_ID_MAX);
		memcpy(&k->file_size, f + 88, sizeof(k->file_size));
	}
	k->build_id_len = n && n <= FTFB_BUILD_ID_MAX ? n : 20;
}

static void fix_crc(uint8_t *f, size_t len)
{
	uint32_t c;

	if (len < HDR)
		return;
	memset(f + CRC_AT, 0, 4);
	c = (uint32_t)crc32(0L, f, HDR);
	c = (uint32_t)crc32(c, f + HDR, (uInt)(len - HDR));
	memcpy(f + CRC_AT, &c, 4);
}

static void check(const uint8_t *f, size_t len,
		  const struct ftfb_uw_cache_key *k,
		  const struct ftfb_uw_table_built *t, int rc, const char *err)
{
	void *again;
	size_t n;

	if (rc) {
		if (rc > 0 || !err[0] || t->rows || t->n)
			abort();
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct ftfb_uw_row *r = &t->rows[i];

		if ((i && r->pc < t->rows[i - 1].pc) ||
		    FTFB_UW_CFA_TYPE(r) > FTFB_UW_CFA_SIGNAL ||
		    FTFB_UW_RBP_TYPE(r) > FTFB_UW_RBP_LOST)
			abort();
	}
	/* written back, the same file (but the header's unused bytes: the
	 * build id past its length, the segments past their count, pad) */
	if (ftfb_uw_cache_encode(k, t, &again, &n))
		abort();
	if (n != len || memcmp((uint8_t *)again + HDR, f + HDR, len - HDR))
		abort();
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftfb_uw_cache_key k;
	struct ftfb_uw_table_built t;
	uint8_t *f;
	char err[256] = "";
	int rc;

	if (!size)
		return 0;
	f = malloc(size);
	if (!f)
		return 0;
	memcpy(f, data + 1, size - 1);
	if (data[0] & 1)
		fix_crc(f, size - 1);
	key_of(f, size - 1, &k);
	rc = ftfb_uw_cache_decode(f, size - 1, &k, &t, err, sizeof(err));
	check(f, size - 1, &k, &t, rc, err);
	free(t.rows);
	free(f);
	return 0;
}
