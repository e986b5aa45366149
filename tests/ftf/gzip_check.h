/* SPDX-License-Identifier: MIT */
/*
 * tests/ftf/gzip_check.h - what the gzip destinations' tests share: a
 * file read back and inflated with zlib (every member), events that
 * compress poorly, and the same events on a memory destination as the
 * reference bytes (and tmpfile.h). Include after helpers.h.
 */
#ifndef TESTS_FTF_GZIP_CHECK_H
#define TESTS_FTF_GZIP_CHECK_H

#include <stdbool.h>
#include <zlib.h>

#include "ftf/destination.h"
#include "ftf/writer.h"
#include "tmpfile.h"

static int last_members; /* members in the last inflate_all */

/* Inflates a gzip file image of one or more members; *ended says whether
 * the last member had its trailer (Z_STREAM_END at the end of the data).
 * Returns the bytes and their length. */
static inline uint8_t *inflate_all(const uint8_t *gz, size_t len, size_t *out_len,
			    bool *ended)
{
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream zs = {0};
	int zr, members = 0;

	assert_non_null(out);
	assert_int_equal(inflateInit2(&zs, 31), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)len;
	do {
		if (zs.total_out == cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		zr = inflate(&zs, Z_SYNC_FLUSH);
		assert_true(zr == Z_OK || zr == Z_STREAM_END ||
			    zr == Z_BUF_ERROR);
		if (zr == Z_STREAM_END && zs.avail_in) {
			size_t total = zs.total_out;

			members++;
			assert_int_equal(inflateReset(&zs), Z_OK);
			zs.total_out = total;
			zr = Z_OK;
		}
	} while (zr == Z_OK);
	*ended = zr == Z_STREAM_END;
	*out_len = zs.total_out;
	last_members = members + (zr == Z_STREAM_END);
	inflateEnd(&zs);
	return out;
}

/* Event i: instants and counters with arguments that compress poorly
 * (a xorshift sequence), so a small disk fills. */
static inline int emit(struct ftf_writer *w, int i)
{
	uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
	int rc;

	x ^= x >> 29;
	if (i % 3 == 0)
		return ftf_write_instant(w, FTF_ARG_TYPES_NONE, 1, 0, 0,
					 (uint64_t)i);
	rc = ftf_write_instant(w, FTF_ARG_TYPES(2, 1, 0, 0, 0, 0), 2, 0, 0,
			       (uint64_t)i * 1000);
	if (!rc)
		rc = ftf_arg_int64(w, 3, (int64_t)x);
	if (!rc)
		rc = ftf_arg_uint64(w, 4, x * 0xBF58476D1CE4E5B9ull);
	if (!rc)
		rc = ftf_arg_int32(w, 5, i);
	return rc;
}

/* The same events on a memory destination: the reference bytes. */
static inline void reference(struct ftf_dest_mem *ref,
		      const struct ftf_writer_options *o, int n)
{
	struct ftf_writer w;

	ftf_dest_mem_init(ref, 0);
	assert_int_equal(ftf_writer_init(&w, &ref->base, o), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(emit(&w, i), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
}

#endif
