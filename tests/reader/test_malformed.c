// SPDX-License-Identifier: MIT
/*
 * The reader on hand-built input: each kind of malformed record gives an
 * error with the record's offset (and never a read out of bounds: every
 * buffer is a malloc'ed copy of exactly its length, so ASan catches an
 * overread), unknown types are skipped by size, tables behave as the spec
 * says. Header words are built here from the spec's bit layouts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ftf/reader.h"

#define W(x) ((uint64_t)(x))

/* header: type, size in words, bits 16..63 */
static uint64_t hdr(unsigned type, unsigned size, uint64_t rest)
{
	return W(type) | W(size) << 4 | rest << 16;
}

static uint64_t event_hdr(unsigned etype, unsigned nargs, unsigned thread,
			  unsigned cat, unsigned name, unsigned size)
{
	return W(4) | W(size) << 4 | W(etype) << 16 | W(nargs) << 20 |
	       W(thread) << 24 | W(cat) << 32 | W(name) << 48;
}

static uint64_t arg_hdr(unsigned type, unsigned size, unsigned name,
			uint64_t value32)
{
	return W(type) | W(size) << 4 | W(name) << 16 | value32 << 32;
}

static uint64_t str_word(const char *s)
{
	uint64_t w = 0;

	memcpy(&w, s, strlen(s) < 8 ? strlen(s) : 8);
	return w;
}

/* Standard prologue: magic, string 1 "cat", string 2 "name", thread 1. */
static size_t prologue(uint64_t *w)
{
	size_t n = 0;

	w[n++] = FTF_MAGIC_WORD;
	w[n++] = hdr(2, 2, 1 | W(3) << 16);
	w[n++] = str_word("cat");
	w[n++] = hdr(2, 2, 2 | W(4) << 16);
	w[n++] = str_word("name");
	w[n++] = hdr(3, 3, 1);
	w[n++] = 100;
	w[n++] = 101;
	return n;
}

#define PROLOGUE_BYTES (8 * 8)

struct run {
	struct ftf_reader r;
	uint8_t *data;
	size_t len;
	size_t good;     /* records before the first error */
	int err;         /* first error, 0 if none */
	struct ftf_record last;
};

/* Reads `len` bytes of `w` from an exact-size copy until the first error
 * or the end. */
static void run_bytes(struct run *x, const void *w, size_t len)
{
	struct ftf_record rec;
	int ret;

	memset(x, 0, sizeof(*x));
	x->data = malloc(len ? len : 1);
	memcpy(x->data, w, len);
	x->len = len;
	assert_int_equal(ftf_reader_init(&x->r, x->data, len), 0);
	while ((ret = ftf_reader_next(&x->r, &rec)) == 1) {
		x->good++;
		x->last = rec;
	}
	x->err = ret;
}

static void run_words(struct run *x, const uint64_t *w, size_t n)
{
	run_bytes(x, w, n * 8);
}

static void done(struct run *x)
{
	ftf_reader_free(&x->r);
	free(x->data);
}

static void assert_error(struct run *x, size_t off, const char *needle)
{
	char want[32];

	assert_int_equal(x->err, -EBADMSG);
	assert_int_equal(x->r.err_offset, off);
	snprintf(want, sizeof(want), "offset %zu: ", off);
	if (strncmp(ftf_reader_error(&x->r), want, strlen(want)) != 0 ||
	    !strstr(ftf_reader_error(&x->r), needle))
		fail_msg("error \"%s\" lacks \"%s\" or \"%s\"",
			 ftf_reader_error(&x->r), want, needle);
}

static void empty_input_is_clean_end(void **state)
{
	struct run x;

	(void)state;
	run_bytes(&x, "", 0);
	assert_int_equal(x.err, 0);
	assert_int_equal(x.good, 0);
	assert_string_equal(ftf_reader_error(&x.r), "");
	done(&x);
}

static void zero_size(void **state)
{
	uint64_t w[16];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 1, 1, 2, 0);
	w[n++] = 5;
	run_words(&x, w, n);
	assert_int_equal(x.good, 4);
	assert_error(&x, PROLOGUE_BYTES, "size 0");
	assert_true(x.r.fatal);
	assert_int_equal(x.r.err_pos, PROLOGUE_BYTES + 8);
	/* sticky */
	assert_int_equal(ftf_reader_next(&x.r, &x.last), -EBADMSG);
	done(&x);
}

static void size_past_end(void **state)
{
	uint64_t w[16];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 1, 1, 2, 3); /* 3 words, 2 present */
	w[n++] = 5;
	run_words(&x, w, n);
	assert_int_equal(x.good, 4);
	assert_error(&x, PROLOGUE_BYTES,
		     "record size 3 words runs past the end of the data (16 bytes left)");
	assert_true(x.r.fatal);
	assert_int_equal(x.r.err_pos, PROLOGUE_BYTES);
	done(&x);
}

static void large_record_size_past_end(void **state)
{
	uint64_t w[16];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	/* type 15, size bits 4..35 = 0xffffffff words */
	w[n++] = 15 | W(0xffffffff) << 4;
	w[n++] = 0;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "4294967295 words runs past the end");
	done(&x);
}

static void truncated_trailing_bytes(void **state)
{
	uint64_t w[16];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 1, 1, 2, 2);
	w[n++] = 5;
	run_bytes(&x, w, n * 8 - 3); /* the timestamp cut short */
	assert_error(&x, PROLOGUE_BYTES, "runs past the end of the data (13 bytes left)");
	done(&x);
	run_bytes(&x, w, PROLOGUE_BYTES + 5); /* not even a header word */
	assert_error(&x, PROLOGUE_BYTES, "5 trailing bytes are not a whole record");
	assert_true(x.r.fatal);
	done(&x);
}

static void argument_past_record(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	/* one int64 argument claiming 3 words in a record with 2 left */
	w[n++] = event_hdr(2, 1, 1, 1, 2, 4);
	w[n++] = 5;
	w[n++] = arg_hdr(3, 3, 1, 0);
	w[n++] = 7;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "argument 1 of 1: size 3 words runs past the end of the record");
	assert_false(x.r.fatal);
	assert_int_equal(x.r.err_pos, PROLOGUE_BYTES + 32);
	done(&x);
}

static void argument_size_zero(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 1, 1, 1, 2, 3);
	w[n++] = 5;
	w[n++] = arg_hdr(1, 0, 1, 9);
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "argument 1 of 1 has size 0");
	done(&x);
}

static void more_args_than_record(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	/* header says 3 args, only one fits */
	w[n++] = event_hdr(2, 3, 1, 1, 2, 3);
	w[n++] = 5;
	w[n++] = arg_hdr(1, 1, 1, 9);
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "argument 2 of 3: header runs past the end of the record");
	done(&x);
}

static void int64_value_past_argument(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	/* int64 argument of size 1: no room for its value word, although
	 * the record has a word after it */
	w[n++] = event_hdr(2, 1, 1, 1, 2, 4);
	w[n++] = 5;
	w[n++] = arg_hdr(3, 1, 1, 0);
	w[n++] = 7;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "value word runs past the end of the argument");
	done(&x);
}

static void blob_arg_past_argument(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 1, 1, 1, 2, 4);
	w[n++] = 5;
	w[n++] = arg_hdr(10, 2, 1, 9); /* 9 bytes need 2 words, has 1 */
	w[n++] = 0;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "blob of 9 bytes runs past the end of the argument");
	done(&x);
}

static void undefined_string_ref(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 1, 5, 2, 2);
	w[n++] = 5;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "category string ref 5 was never defined");
	done(&x);

	n = prologue(w);
	w[n++] = event_hdr(2, 1, 1, 1, 2, 3);
	w[n++] = 5;
	w[n++] = arg_hdr(6, 1, 1, 0x7fff); /* string value ref 32767 */
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "argument value string ref 32767 was never defined");
	done(&x);
}

static void undefined_thread_ref(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 255, 1, 2, 2);
	w[n++] = 5;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "thread ref 255 was never defined");
	done(&x);
}

static void inline_string_past_record(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	/* inline name of 20 bytes (3 words) with 1 word left */
	w[n++] = event_hdr(2, 0, 1, 1, 0x8000 | 20, 3);
	w[n++] = 5;
	w[n++] = str_word("abcdefgh");
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "inline name string of 20 bytes runs past the end of the record");
	done(&x);
}

static void inline_thread_past_record(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 0, 1, 2, 3); /* inline thread, 1 word */
	w[n++] = 5;
	w[n++] = 100;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "inline thread");
	done(&x);
}

static void string_record_past_record(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = hdr(2, 2, 7 | W(9) << 16); /* 9 bytes in 1 word */
	w[n++] = str_word("12345678");
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "string of 9 bytes runs past the end of the record");
	/* and index 7 stays undefined */
	assert_null(ftf_reader_string(&x.r, 7));
	done(&x);
}

static void event_missing_specific_word(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	w[n++] = event_hdr(1, 0, 1, 1, 2, 2); /* counter without its id */
	w[n++] = 5;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "too short for its counter id word");
	done(&x);
}

static void large_blob_size_word_huge(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct run x;

	(void)state;
	/* attachment (format 1), category 1, name 2, size 2^63 */
	w[n++] = 15 | W(4) << 4 | W(1) << 40;
	w[n++] = 1 | W(2) << 16;
	w[n++] = W(1) << 63;
	w[n++] = 0;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "large blob payload of 9223372036854775808 bytes runs past");
	done(&x);
}

static void content_error_then_next_record(void **state)
{
	uint64_t w[32];
	size_t n = prologue(w);
	struct ftf_record rec;
	struct run x;

	(void)state;
	w[n++] = event_hdr(2, 0, 9, 1, 2, 2); /* thread 9 undefined */
	w[n++] = 5;
	w[n++] = event_hdr(3, 0, 1, 1, 2, 2);
	w[n++] = 6;
	run_words(&x, w, n);
	assert_error(&x, PROLOGUE_BYTES, "thread ref 9");
	assert_false(x.r.fatal);
	assert_int_equal(ftf_reader_next(&x.r, &rec), 1);
	assert_int_equal(rec.offset, PROLOGUE_BYTES + 16);
	assert_int_equal(rec.u.event.event_type, 3);
	assert_int_equal(rec.u.event.ts, 6);
	assert_int_equal(ftf_reader_next(&x.r, &rec), 0);
	assert_int_equal(x.r.errors, 1);
	done(&x);
}

static void unknown_types_are_skipped(void **state)
{
	uint64_t w[64];
	size_t n = prologue(w);
	struct ftf_record rec;
	struct run x;

	(void)state;
	w[n++] = hdr(10, 3, 0xabc); /* record type 10 */
	w[n++] = 1;
	w[n++] = 2;
	w[n++] = event_hdr(12, 0, 1, 1, 2, 2); /* event type 12 */
	w[n++] = 5;
	w[n++] = hdr(0, 1, 9); /* metadata type 9 */
	w[n++] = hdr(8, 2, W(7) << 44); /* scheduling subtype 7 */
	w[n++] = 0;
	/* an instant with an unknown arg type 13 between two int32s */
	w[n++] = event_hdr(0, 3, 1, 1, 2, 6);
	w[n++] = 5;
	w[n++] = arg_hdr(1, 1, 1, 0xfffffffe);
	w[n++] = arg_hdr(13, 2, 2, 0);
	w[n++] = 0x1234;
	w[n++] = arg_hdr(2, 1, 2, 77);
	run_words(&x, w, n);
	assert_int_equal(x.err, 0);
	assert_int_equal(x.good, 4 + 5);
	assert_int_equal(x.r.skipped, 4);
	/* the last one decoded its known args around the unknown one */
	assert_false(x.last.unknown);
	assert_int_equal(x.last.u.event.args.count, 2);
	assert_int_equal(x.last.u.event.args.skipped, 1);
	assert_int_equal(x.last.u.event.args.a[0].v.i32, -2);
	assert_int_equal(x.last.u.event.args.a[1].type, FTF_ARG_UINT32);
	assert_int_equal(x.last.u.event.args.a[1].v.u32, 77);
	assert_false(x.last.u.event.has_extra); /* no scope word */
	done(&x);

	/* and the unknown record is reported with its type and size */
	n = 0;
	w[n++] = hdr(11, 2, 0);
	w[n++] = 0;
	run_words(&x, w, n);
	assert_int_equal(ftf_reader_reset(&x.r, x.data, x.len), 0);
	assert_int_equal(ftf_reader_next(&x.r, &rec), 1);
	assert_true(rec.unknown);
	assert_int_equal(rec.type, 11);
	assert_int_equal(rec.size_words, 2);
	done(&x);
}

static void redefinitions_overwrite(void **state)
{
	uint64_t w[64];
	size_t n = 0;
	struct ftf_record rec;
	struct run x;

	(void)state;
	w[n++] = hdr(2, 2, 1 | W(1) << 16);
	w[n++] = str_word("a");
	w[n++] = hdr(3, 3, 4);
	w[n++] = 10;
	w[n++] = 11;
	w[n++] = event_hdr(0, 0, 4, 1, 1, 2);
	w[n++] = 1;
	w[n++] = hdr(2, 3, 1 | W(9) << 16);
	w[n++] = str_word("bbbbbbbb");
	w[n++] = str_word("b");
	w[n++] = hdr(3, 3, 4);
	w[n++] = 20;
	w[n++] = 21;
	w[n++] = event_hdr(0, 0, 4, 1, 1, 2);
	w[n++] = 2;
	run_words(&x, w, n);
	assert_int_equal(x.err, 0);
	assert_int_equal(ftf_reader_reset(&x.r, x.data, x.len), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ftf_reader_next(&x.r, &rec), 1);
	assert_int_equal(rec.u.event.pt.pid, 10);
	assert_int_equal(rec.u.event.name.len, 1);
	assert_memory_equal(rec.u.event.name.ptr, "a", 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ftf_reader_next(&x.r, &rec), 1);
	assert_int_equal(rec.u.event.pt.pid, 20);
	assert_int_equal(rec.u.event.pt.tid, 21);
	assert_int_equal(rec.u.event.name.len, 9);
	assert_memory_equal(rec.u.event.name.ptr, "bbbbbbbbb", 9);
	done(&x);
}

static void init_with_base(void **state)
{
	uint64_t w[] = { hdr(1, 4, 0), 2400000000ull, 12345, 1700000000000000000ull };
	struct run x;

	(void)state;
	run_words(&x, w, 4);
	assert_int_equal(x.err, 0);
	assert_true(x.last.u.init.has_base);
	assert_int_equal(x.last.u.init.ticks_per_second, 2400000000ull);
	assert_int_equal(x.last.u.init.base_ticks, 12345);
	assert_int_equal(x.last.u.init.base_time, 1700000000000000000ull);
	assert_int_equal(x.r.ticks_per_second, 2400000000ull);
	done(&x);
}

static void index_zero_and_zero_ticks(void **state)
{
	uint64_t w[] = { hdr(2, 1, 0) };
	uint64_t t[] = { hdr(3, 3, 0), 1, 2 };
	uint64_t i[] = { hdr(1, 2, 0), 0 };
	struct run x;

	(void)state;
	run_words(&x, w, 1);
	assert_error(&x, 0, "string record with index 0");
	done(&x);
	run_words(&x, t, 3);
	assert_error(&x, 0, "thread record with index 0");
	done(&x);
	run_words(&x, i, 2);
	assert_error(&x, 0, "0 ticks per second");
	done(&x);
}

static void read_file_errors(void **state)
{
	uint8_t *data = (uint8_t *)"x";
	size_t len = 7;

	(void)state;
	assert_int_equal(ftf_read_file("/nonexistent/ftf.fxt", &data, &len),
			 -ENOENT);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_int_equal(ftf_read_file("/", &data, &len), -EISDIR);
	assert_int_equal(ftf_read_file("/proc/self/stat", &data, &len), 0);
	assert_true(len > 10); /* a file whose st_size is 0 */
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_input_is_clean_end),
		cmocka_unit_test(zero_size),
		cmocka_unit_test(size_past_end),
		cmocka_unit_test(large_record_size_past_end),
		cmocka_unit_test(truncated_trailing_bytes),
		cmocka_unit_test(argument_past_record),
		cmocka_unit_test(argument_size_zero),
		cmocka_unit_test(more_args_than_record),
		cmocka_unit_test(int64_value_past_argument),
		cmocka_unit_test(blob_arg_past_argument),
		cmocka_unit_test(undefined_string_ref),
		cmocka_unit_test(undefined_thread_ref),
		cmocka_unit_test(inline_string_past_record),
		cmocka_unit_test(inline_thread_past_record),
		cmocka_unit_test(string_record_past_record),
		cmocka_unit_test(event_missing_specific_word),
		cmocka_unit_test(large_blob_size_word_huge),
		cmocka_unit_test(content_error_then_next_record),
		cmocka_unit_test(unknown_types_are_skipped),
		cmocka_unit_test(redefinitions_overwrite),
		cmocka_unit_test(init_with_base),
		cmocka_unit_test(index_zero_and_zero_ticks),
		cmocka_unit_test(read_file_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
