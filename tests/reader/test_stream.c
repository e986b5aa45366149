// SPDX-License-Identifier: MIT
/*
 * ftf_stream: a gzip trace several times the size of the stream's window
 * (strings interned at the start, used megabytes later; temporary slots
 * redefined along the way) reads record for record as the plain file of
 * the same bytes: same offsets, names, arguments and counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/stream.h"
#include "ftf/writer.h"

#define EVENTS 120000

static void write_trace(struct ftf_destination *d)
{
	struct ftf_writer_options o = {.num_temp_strs = -1,
				       .no_refresh_buf_at_intervals = true};
	struct ftf_writer w;
	int names[4], th;
	char buf[32];

	assert_int_equal(ftf_writer_init(&w, d, &o), 0);
	for (int i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "interned-%d", i);
		names[i] = ftf_intern_string(&w, buf);
		assert_true(names[i] > 0);
	}
	th = ftf_set_thread_slot(&w, 0, 10, 11);
	assert_true(th > 0);
	for (int i = 0; i < EVENTS; i++) {
		int temp;

		snprintf(buf, sizeof(buf), "temp-%d", i / 1000);
		temp = ftf_set_temp_string_slot(&w, i / 1000 % 50, buf);
		assert_true(temp > 0);
		assert_int_equal(
			ftf_write_instant(&w, FTF_ARG_TYPES(1, 0, 0, 0, 1, 0),
					  th, temp, names[i % 4], (uint64_t)i),
			0);
		assert_int_equal(ftf_arg_int64(&w, names[(i + 1) % 4], -i), 0);
		assert_int_equal(ftf_arg_string(&w, names[(i + 2) % 4], temp),
				 0);
	}
	assert_int_equal(ftf_writer_close(&w), 0);
}

static bool str_eq(struct ftf_str a, struct ftf_str b)
{
	return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len);
}

static void gzip_reads_as_plain(void **state)
{
	char dir[] = "/tmp/ftf-stream-XXXXXX", plain[64], gz[64];
	struct ftf_dest_file f;
	struct ftf_dest_gzip g;
	struct ftf_stream a, b;
	struct ftf_record ra, rb;
	size_t n = 0, events = 0;
	int ka, kb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(plain, sizeof(plain), "%s/t.fxt", dir);
	snprintf(gz, sizeof(gz), "%s/t.fxt.gz", dir);
	assert_int_equal(ftf_dest_file_open(&f, plain, 0), 0);
	write_trace(&f.base);
	assert_int_equal(ftf_dest_gzip_open(&g, gz, 0, -1), 0);
	write_trace(&g.base);

	assert_int_equal(ftf_stream_open(&a, plain), 0);
	assert_int_equal(ftf_stream_open(&b, gz), 0);
	assert_false(a.gzip);
	assert_true(b.gzip);
	do {
		ka = ftf_stream_next(&a, &ra);
		kb = ftf_stream_next(&b, &rb);
		assert_int_equal(ka, kb);
		if (ka <= 0)
			break;
		n++;
		assert_int_equal(ra.offset, rb.offset);
		assert_int_equal(ra.header, rb.header);
		if (ra.type != FTF_REC_EVENT)
			continue;
		events++;
		assert_int_equal(ra.u.event.ts, rb.u.event.ts);
		assert_true(str_eq(ra.u.event.name, rb.u.event.name));
		assert_true(str_eq(ra.u.event.category, rb.u.event.category));
		assert_int_equal(rb.u.event.args.count, 2);
		assert_true(str_eq(ra.u.event.args.a[0].name,
				   rb.u.event.args.a[0].name));
		assert_int_equal(ra.u.event.args.a[0].v.i64,
				 rb.u.event.args.a[0].v.i64);
		assert_true(str_eq(ra.u.event.args.a[1].v.str,
				   rb.u.event.args.a[1].v.str));
		assert_int_equal(rb.u.event.pt.tid, 11);
	} while (1);
	assert_int_equal(ka, 0);
	assert_int_equal(events, EVENTS);
	assert_int_equal(ftf_stream_bytes(&b), ftf_stream_bytes(&a));
	assert_true(ftf_stream_bytes(&b) > 3 * b.cap);
	assert_string_equal(ftf_stream_note(&b), "");
	printf("# %zu records, %zu bytes, gzip window %zu\n", n,
	       ftf_stream_bytes(&b), b.cap);
	ftf_stream_close(&a);
	ftf_stream_close(&b);
	unlink(plain);
	unlink(gz);
	rmdir(dir);
}

static void missing_file(void **state)
{
	struct ftf_stream s;

	(void)state;
	assert_int_equal(ftf_stream_open(&s, "/nonexistent/t.fxt.gz"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gzip_reads_as_plain),
		cmocka_unit_test(missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
