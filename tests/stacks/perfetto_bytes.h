/* SPDX-License-Identifier: MIT */
/*
 * tests/stacks/perfetto_bytes.h - the stack tests' view of a memory trace:
 * the Perfetto bytes its blob records carry, and how often a string
 * stands in them. Include after <cmocka.h>.
 */
#ifndef TESTS_STACKS_PERFETTO_BYTES_H
#define TESTS_STACKS_PERFETTO_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ftf/destination.h"
#include "ftf/reader.h"

/* The payloads of the blob records (each of type Perfetto), concatenated;
 * they must fit in cap. */
static inline size_t perfetto_bytes(struct ftf_dest_mem *m, uint8_t *out,
				    size_t cap)
{
	struct ftf_reader r;
	struct ftf_record rec;
	size_t n = 0;

	assert_int_equal(ftf_reader_init(&r, m->data, m->len), 0);
	while (ftf_reader_next(&r, &rec) == 1) {
		if (rec.type != FTF_REC_BLOB)
			continue;
		assert_int_equal(rec.u.blob.blob_type, FTF_BLOB_PERFETTO);
		assert_true(n + rec.u.blob.size <= cap);
		memcpy(out + n, rec.u.blob.payload, rec.u.blob.size);
		n += rec.u.blob.size;
	}
	ftf_reader_free(&r);
	return n;
}

/* How many times s stands in the n bytes at p (overlaps counted). */
static inline size_t count_bytes(const uint8_t *p, size_t n, const char *s)
{
	size_t hits = 0, k = strlen(s);

	for (size_t i = 0; i + k <= n; i++)
		hits += !memcmp(p + i, s, k);
	return hits;
}

#endif
