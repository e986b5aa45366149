// SPDX-License-Identifier: MIT
/*
 * The reader against traces it did not write: the fixtures in
 * tests/data/fixtures, written by an independent writer and decoded by
 * Fuchsia's own trace-reader (*.decoded.txt, *.reader.txt).
 *
 * The good files must decode to exactly Fuchsia's records (same text, one
 * line per record, plus field checks worked out from the bytes by hand);
 * each bad file must fail at the byte offset Fuchsia's reader reported.
 * The fixtures directory comes from FTF_FIXTURES_DIR.
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

#include "ftf/reader.h"
#include "record_text.h"

static const char *fixtures_dir(void)
{
	const char *d = getenv("FTF_FIXTURES_DIR");

	if (!d)
		fail_msg("FTF_FIXTURES_DIR is not set");
	return d;
}

static void load(const char *name, uint8_t **data, size_t *len)
{
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir(), name);
	err = ftf_read_file(path, data, len);
	if (err)
		fail_msg("cannot read %s: %s", path, strerror(-err));
}

/* Reads a text file into an array of lines (the array and text malloc'ed). */
static size_t load_lines(const char *name, char ***lines_out, char **text_out)
{
	uint8_t *text;
	size_t len, n = 0;
	char **lines;

	load(name, &text, &len);
	text = realloc(text, len + 1);
	text[len] = '\0';
	lines = calloc(len + 1, sizeof(*lines));
	for (char *p = (char *)text; *p;) {
		char *nl = strchr(p, '\n');

		lines[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	*lines_out = lines;
	*text_out = (char *)text;
	return n;
}

/* Our text for every record of `fxt` equals Fuchsia's, line by line; the
 * last line "fxt-dump: NAME: B bytes, N records, 0 errors" gives the
 * counts. */
static void compare_with_fuchsia(const char *fxt, const char *decoded)
{
	struct ftf_reader r;
	struct ftf_record rec;
	char **lines, *text, buf[8192], want_tail[512];
	size_t nlines, i = 0;
	uint8_t *data;
	size_t len;
	int ret;

	load(fxt, &data, &len);
	nlines = load_lines(decoded, &lines, &text);
	assert_true(nlines >= 2);
	assert_int_equal(ftf_reader_init(&r, data, len), 0);
	while ((ret = ftf_reader_next(&r, &rec)) == 1) {
		if (i + 1 >= nlines)
			fail_msg("%s: more records than Fuchsia's %zu", fxt,
				 nlines - 1);
		ftf_record_text(buf, sizeof(buf), &rec);
		if (strcmp(buf, lines[i]) != 0)
			fail_msg("%s record %zu (offset %zu):\n  ours:    %s\n  fuchsia: %s",
				 fxt, i, rec.offset, buf, lines[i]);
		i++;
	}
	if (ret < 0)
		fail_msg("%s: %s", fxt, ftf_reader_error(&r));
	assert_int_equal(i, nlines - 1);
	snprintf(want_tail, sizeof(want_tail),
		 "fxt-dump: %s: %zu bytes, %zu records, 0 errors", fxt, len,
		 r.records);
	assert_string_equal(lines[nlines - 1], want_tail);
	assert_int_equal(r.errors, 0);
	ftf_reader_free(&r);
	free(lines);
	free(text);
	free(data);
}

static void minimal_matches_fuchsia_text(void **state)
{
	(void)state;
	compare_with_fuchsia("minimal.fxt", "minimal.decoded.txt");
}

static void full_matches_fuchsia_text(void **state)
{
	(void)state;
	compare_with_fuchsia("full.fxt", "full.decoded.txt");
}

static int next_at(struct ftf_reader *r, struct ftf_record *rec, size_t off)
{
	int ret;

	while ((ret = ftf_reader_next(r, rec)) == 1)
		if (rec->offset == off)
			return 1;
	fail_msg("no record at offset %zu (%s)", off, ftf_reader_error(r));
	return ret;
}

static void assert_str(struct ftf_str s, const char *want)
{
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.ptr, want, s.len);
}

/* Field values worked out by hand from full.fxt's words. */
static void full_fields_by_hand(void **state)
{
	struct ftf_reader r;
	struct ftf_record rec;
	uint8_t *data;
	size_t len;

	(void)state;
	load("full.fxt", &data, &len);
	assert_int_equal(len, 1424);
	assert_int_equal(ftf_reader_init(&r, data, len), 0);

	/* 0x0016547846040010: metadata, trace info, magic 0x16547846 */
	assert_int_equal(ftf_reader_next(&r, &rec), 1);
	assert_int_equal(rec.type, FTF_REC_METADATA);
	assert_int_equal(rec.u.meta.meta_type, FTF_META_TRACE_INFO);
	assert_int_equal(rec.u.meta.magic, 0x16547846);
	/* 0x00d0000000110030: provider info, id 1, name of 13 bytes */
	assert_int_equal(ftf_reader_next(&r, &rec), 1);
	assert_int_equal(rec.size_words, 3);
	assert_int_equal(rec.u.meta.provider_id, 1);
	assert_str(rec.u.meta.provider_name, "test_provider");

	/* @40: init, 2 words, ticks per second 0x3b9aca00 */
	next_at(&r, &rec, 40);
	assert_int_equal(rec.type, FTF_REC_INIT);
	assert_int_equal(rec.u.init.ticks_per_second, 1000000000);
	assert_false(rec.u.init.has_base);
	assert_int_equal(r.ticks_per_second, 1000000000);

	/* @504: 0x0002000101c20174: event, 23 words, duration begin,
	 * 12 args, thread 1, category 1, name 2 */
	next_at(&r, &rec, 504);
	assert_int_equal(rec.type, FTF_REC_EVENT);
	assert_int_equal(rec.size_words, 23);
	assert_int_equal(rec.u.event.event_type, 2);
	assert_int_equal(rec.u.event.ts, 100);
	assert_int_equal(rec.u.event.thread_ref, 1);
	assert_int_equal(rec.u.event.pt.pid, 1000);
	assert_int_equal(rec.u.event.pt.tid, 1001);
	assert_str(rec.u.event.category, "test_cat");
	assert_str(rec.u.event.name, "duration");
	assert_int_equal(rec.u.event.args.count, 12);
	/* 0xffffffd600070011: int32, name 7 "i32", -42 */
	assert_int_equal(rec.u.event.args.a[0].type, FTF_ARG_INT32);
	assert_str(rec.u.event.args.a[0].name, "i32");
	assert_int_equal(rec.u.event.args.a[0].v.i32, -42);
	/* 0x0000000000130024 + 0xfedcba9876543210: uint64 "u64" */
	assert_int_equal(rec.u.event.args.a[3].type, FTF_ARG_UINT64);
	assert_true(rec.u.event.args.a[3].v.u64 == 0xfedcba9876543210ull);
	/* 0x400a000000000000 is 3.25 */
	assert_int_equal(rec.u.event.args.a[4].type, FTF_ARG_DOUBLE);
	assert_true(rec.u.event.args.a[4].v.d == 3.25);
	/* 0x0000800c80070046: string, inline name of 7, inline value of 12 */
	assert_int_equal(rec.u.event.args.a[6].type, FTF_ARG_STRING);
	assert_str(rec.u.event.args.a[6].name, "inl_str");
	assert_str(rec.u.event.args.a[6].v.str, "inline value");
	assert_int_equal(rec.u.event.args.a[8].type, FTF_ARG_BOOL);
	assert_false(rec.u.event.args.a[8].v.b);
	assert_int_equal(rec.u.event.args.a[9].type, FTF_ARG_POINTER);
	assert_true(rec.u.event.args.a[9].v.u64 == 0xdeadbeef);
	assert_int_equal(rec.u.event.args.a[10].type, FTF_ARG_KOID);
	assert_int_equal(rec.u.event.args.a[10].v.u64, 1001);
	assert_int_equal(rec.u.event.args.a[11].type, FTF_ARG_NULL);
	assert_str(rec.u.event.args.a[11].name, "nul");

	/* @848: 0x80048008000a0074: flow end (type 0xa) with an inline
	 * thread and inline category/name; ts 0xaa, flow id 0x37 */
	next_at(&r, &rec, 848);
	assert_int_equal(rec.u.event.event_type, 10);
	assert_int_equal(rec.u.event.ts, 170);
	assert_int_equal(rec.u.event.thread_ref, 0);
	assert_int_equal(rec.u.event.pt.pid, 1000);
	assert_int_equal(rec.u.event.pt.tid, 1001);
	assert_str(rec.u.event.category, "test_cat");
	assert_str(rec.u.event.name, "flow");
	assert_true(rec.u.event.has_extra);
	assert_int_equal(rec.u.event.extra, 55);

	/* @960: 0x10000030003200a8: context switch, 2 args, cpu 3, blocked */
	next_at(&r, &rec, 960);
	assert_int_equal(rec.type, FTF_REC_SCHED);
	assert_int_equal(rec.u.sched.sched_type, FTF_SCHED_CONTEXT_SWITCH);
	assert_int_equal(rec.u.sched.cpu, 3);
	assert_int_equal(rec.u.sched.out_state, 3);
	assert_int_equal(rec.u.sched.ts, 210);
	assert_int_equal(rec.u.sched.out_koid, 1001);
	assert_int_equal(rec.u.sched.in_koid, 1002);
	assert_int_equal(rec.u.sched.args.count, 2);
	assert_str(rec.u.sched.args.a[0].name, "incoming_weight");
	assert_int_equal(rec.u.sched.args.a[0].v.i32, 10);
	assert_int_equal(rec.u.sched.args.a[1].v.i32, 20);

	/* @1040: instant with scope word 2 (global) */
	next_at(&r, &rec, 1040);
	assert_int_equal(rec.u.event.event_type, 0);
	assert_true(rec.u.event.has_extra);
	assert_int_equal(rec.u.event.extra, 2);
	assert_str(rec.u.event.category, "inline_cat");

	/* @1152: 0x2000000000210058: wakeup, 1 arg, cpu 2 */
	next_at(&r, &rec, 1152);
	assert_int_equal(rec.u.sched.sched_type, FTF_SCHED_WAKEUP);
	assert_int_equal(rec.u.sched.cpu, 2);
	assert_int_equal(rec.u.sched.ts, 250);
	assert_int_equal(rec.u.sched.in_koid, 1001);
	assert_int_equal(rec.u.sched.args.a[0].v.i32, 5);

	/* @1192: 0x0101400011010048: legacy switch, cpu 1, running, out
	 * ref 1, in inline 1000/1002, prios 20 and 16 */
	next_at(&r, &rec, 1192);
	assert_int_equal(rec.u.sched.sched_type, FTF_SCHED_LEGACY_SWITCH);
	assert_int_equal(rec.u.sched.cpu, 1);
	assert_int_equal(rec.u.sched.out_state, 1);
	assert_int_equal(rec.u.sched.out_pt.tid, 1001);
	assert_int_equal(rec.u.sched.in_pt.pid, 1000);
	assert_int_equal(rec.u.sched.in_pt.tid, 1002);
	assert_int_equal(rec.u.sched.out_prio, 20);
	assert_int_equal(rec.u.sched.in_prio, 16);

	/* @1224: log, message of 13 bytes on thread 1 */
	next_at(&r, &rec, 1224);
	assert_int_equal(rec.type, FTF_REC_LOG);
	assert_int_equal(rec.u.log.ts, 270);
	assert_str(rec.u.log.message, "a log message");

	/* @1256: 0x0001001400160045: blob, name 22, 20 bytes, type 1 */
	next_at(&r, &rec, 1256);
	assert_int_equal(rec.type, FTF_REC_BLOB);
	assert_str(rec.u.blob.name, "log_blob");
	assert_int_equal(rec.u.blob.size, 20);
	assert_int_equal(rec.u.blob.blob_type, 1);
	assert_int_equal(rec.u.blob.payload[19], 0x13);

	/* @1288: large blob, attachment (format 1), 15 bytes */
	next_at(&r, &rec, 1288);
	assert_int_equal(rec.type, FTF_REC_LARGE);
	assert_int_equal(rec.size_words, 7);
	assert_int_equal(rec.u.large.format, 1);
	assert_str(rec.u.large.name, "attachment");
	assert_int_equal(rec.u.large.size, 15);
	assert_memory_equal(rec.u.large.payload, "attach-data-123", 15);

	/* @1344: large blob event (format 0), ts 0x118, 1 arg, 40 bytes */
	next_at(&r, &rec, 1344);
	assert_int_equal(rec.u.large.format, 0);
	assert_int_equal(rec.u.large.ts, 280);
	assert_int_equal(rec.u.large.pt.tid, 1001);
	assert_int_equal(rec.u.large.args.count, 1);
	assert_int_equal(rec.u.large.size, 40);
	assert_int_equal(rec.u.large.payload[39], 39);

	assert_int_equal(ftf_reader_next(&r, &rec), 0);
	assert_int_equal(r.records, 47);
	ftf_reader_free(&r);
	free(data);
}

/* Reads a bad fixture to the end (going on after content errors as
 * Fuchsia's reader does) and compares the first error position and the
 * record count with Fuchsia's *.reader.txt. */
static void bad_fixture(const char *name, bool want_fatal)
{
	char txt[256], **lines, *text, want_first[64], want_count[64];
	struct ftf_reader r;
	struct ftf_record rec;
	size_t n, first_pos = 0, nerr = 0;
	bool fatal = false;
	uint8_t *data;
	size_t len;
	unsigned fpos = 0, frecs = 0;
	int ret;

	snprintf(txt, sizeof(txt), "%s.reader.txt", name);
	n = load_lines(txt, &lines, &text);
	assert_true(n >= 2);
	assert_int_equal(sscanf(lines[0], "ERROR @%u:", &fpos), 1);
	assert_non_null(strstr(lines[n - 1], " records, "));
	assert_int_equal(sscanf(strstr(lines[n - 1], " bytes, ") + 8,
				"%u records", &frecs), 1);

	load(name, &data, &len);
	assert_int_equal(ftf_reader_init(&r, data, len), 0);
	while ((ret = ftf_reader_next(&r, &rec)) != 0) {
		if (ret > 0)
			continue;
		assert_int_equal(ret, -EBADMSG);
		if (nerr++ == 0)
			first_pos = r.err_pos;
		assert_non_null(strstr(ftf_reader_error(&r), "offset "));
		if (r.fatal) {
			fatal = true;
			/* sticky */
			assert_int_equal(ftf_reader_next(&r, &rec), -EBADMSG);
			break;
		}
	}
	snprintf(want_first, sizeof(want_first), "%u", fpos);
	snprintf(want_count, sizeof(want_count), "%zu", first_pos);
	assert_string_equal(want_count, want_first);
	assert_int_equal(nerr, 1);
	assert_int_equal(fatal, want_fatal);
	assert_int_equal(r.records, frecs);
	/* the faulty record is the event at 504 in every bad fixture */
	assert_int_equal(r.err_offset, 504);
	ftf_reader_free(&r);
	free(data);
	free(lines);
	free(text);
}

static void bad_truncated(void **state)
{
	(void)state;
	bad_fixture("bad-truncated.fxt", true);
}

static void bad_zero_size(void **state)
{
	(void)state;
	bad_fixture("bad-zero-size.fxt", true);
}

static void bad_size_past_end(void **state)
{
	(void)state;
	bad_fixture("bad-size-past-end.fxt", true);
}

static void bad_undefined_string(void **state)
{
	(void)state;
	bad_fixture("bad-undefined-string.fxt", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_matches_fuchsia_text),
		cmocka_unit_test(full_matches_fuchsia_text),
		cmocka_unit_test(full_fields_by_hand),
		cmocka_unit_test(bad_truncated),
		cmocka_unit_test(bad_zero_size),
		cmocka_unit_test(bad_size_past_end),
		cmocka_unit_test(bad_undefined_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
