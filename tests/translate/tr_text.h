/* SPDX-License-Identifier: MIT */
/*
 * tests/translate/tr_text.h - expect-style checks of the translator: the
 * records it wrote, one line each as tools/record_text.c prints them
 * (Fuchsia's Record::ToString form), compared with the text the test
 * expects. The bookkeeping records (metadata, initialization, strings,
 * thread references) are left out: the reader resolves the names and
 * threads the others refer to, so each line reads whole.
 */
#ifndef TR_TEXT_H
#define TR_TEXT_H

#include "record_text.h"
#include "tr_harness.h"

/* Finishes the translator at end and writes the records' lines to out. */
static inline void tr_text(struct tr *h, uint64_t end, char *out, size_t cap)
{
	struct ftf_reader rd;
	struct ftf_record rec;
	size_t len = 0;
	int rc;

	assert_int_equal(ftfb_translator_finish(&h->t, end), 0);
	assert_int_equal(ftf_writer_close(&h->w), 0);
	out[0] = '\0';
	assert_int_equal(ftf_reader_init(&rd, h->mem.data, h->mem.len), 0);
	while ((rc = ftf_reader_next(&rd, &rec)) == 1) {
		if (rec.type == FTF_REC_METADATA || rec.type == FTF_REC_INIT ||
		    rec.type == FTF_REC_STRING || rec.type == FTF_REC_THREAD)
			continue;
		len += ftf_record_text(out + len, cap - len, &rec);
		assert_true(len + 1 < cap);
		out[len++] = '\n';
		out[len] = '\0';
	}
	if (rc != 0)
		fail_msg("reader: %s", ftf_reader_error(&rd));
	ftf_reader_free(&rd);
}

/* Fails, printing both texts, unless got is expected. */
static inline void tr_expect(const char *got, const char *expected)
{
	if (strcmp(got, expected))
		fail_msg("records differ\n--- expected\n%s--- got\n%s", expected,
			 got);
}

#endif
