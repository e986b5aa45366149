// SPDX-License-Identifier: MIT
/*
 * tests/stacks/test_stackprof.c - the protobuf encoder against the wire
 * format's documented examples, and the stack sample writer: samples in
 * blob records of type 3, each stack's entries interned once, a stack
 * named by a hash never sent counted, names longer than the cap cut.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ftf/destination.h"
#include "ftf/reader.h"
#include "ftf/writer.h"
#include "idtab.h"
#include "pbwrite.h"
#include "perfetto_bytes.h"
#include "stackprof.h"
#include "translate.h"

/* protobuf.dev/programming-guides/encoding: field 1 = 150 is 08 96 01,
 * field 2 = "testing" is 12 07 74 65 73 74 69 6e 67. */
static void pb_documented_examples(void **state)
{
	static const uint8_t want[] = {0x08, 0x96, 0x01, 0x12, 0x07, 't',
				       'e',  's',  't',	 'i',  'n',  'g'};
	uint8_t buf[64];
	struct ftfb_pb pb;

	(void)state;
	ftfb_pb_init(&pb, buf, sizeof(buf));
	ftfb_pb_varint(&pb, 1, 150);
	ftfb_pb_string(&pb, 2, "testing");
	assert_false(pb.overflow);
	assert_int_equal(pb.len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

/* A nested message: tag, its length as a 4-byte varint (3 = 83 80 80
 * 00), its fields; a large field number and a 64-bit value. */
static void pb_nested_and_wide(void **state)
{
	static const uint8_t want[] = {0x1a, 0x83, 0x80, 0x80, 0x00, 0x08, 0x96,
				       0x01, 0x90, 0x04, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	uint8_t buf[64];
	struct ftfb_pb pb;
	size_t m;

	(void)state;
	ftfb_pb_init(&pb, buf, sizeof(buf));
	m = ftfb_pb_begin(&pb, 3);
	ftfb_pb_varint(&pb, 1, 150);
	ftfb_pb_end(&pb, m);
	ftfb_pb_varint(&pb, 66, UINT64_MAX);
	assert_false(pb.overflow);
	assert_int_equal(pb.len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

/* Short lengths: a 3-byte message inside a 130-byte one (a 2-byte
 * length, 82 01), then a 1-byte one; each length in as few bytes as it
 * takes, the bytes after it moved back. */
static void pb_short_lengths(void **state)
{
	uint8_t buf[256], want[256];
	struct ftfb_pb pb;
	size_t outer, inner, n = 0;
	char big[124];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ftfb_pb_init(&pb, buf, sizeof(buf));
	outer = ftfb_pb_begin(&pb, 1);
	inner = ftfb_pb_begin(&pb, 2);
	ftfb_pb_varint(&pb, 1, 150);
	ftfb_pb_end_short(&pb, inner);
	ftfb_pb_string(&pb, 3, big);
	ftfb_pb_end_short(&pb, outer);
	inner = ftfb_pb_begin(&pb, 4);
	ftfb_pb_end_short(&pb, inner);
	/* outer: 0a 82 01 | 12 03 08 96 01 | 1a 7b x*123 ; 22 00 */
	want[n++] = 0x0a;
	want[n++] = 0x82;
	want[n++] = 0x01;
	want[n++] = 0x12;
	want[n++] = 0x03;
	want[n++] = 0x08;
	want[n++] = 0x96;
	want[n++] = 0x01;
	want[n++] = 0x1a;
	want[n++] = 123;
	memset(want + n, 'x', 123);
	n += 123;
	want[n++] = 0x22;
	want[n++] = 0x00;
	assert_false(pb.overflow);
	assert_int_equal(pb.len, n);
	assert_memory_equal(buf, want, n);
}

static void pb_overflow_stops(void **state)
{
	uint8_t buf[4];
	struct ftfb_pb pb;

	(void)state;
	ftfb_pb_init(&pb, buf, sizeof(buf));
	ftfb_pb_string(&pb, 2, "testing");
	assert_true(pb.overflow);
	assert_true(pb.len <= sizeof(buf));
}

/* ---- the interning table ---- */

/* 100,000 keys (0 among them) through many doublings: each keeps its
 * value, absent keys read 0, an update replaces. */
static void idtab_keeps_every_key(void **state)
{
	struct ftfb_idtab t = {0};

	(void)state;
	assert_int_equal(ftfb_idtab_get(&t, 42), 0);
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(ftfb_idtab_put(&t, (uint64_t)i * 7919, i + 1),
				 0);
	assert_int_equal(t.n, 100000);
	for (uint32_t i = 0; i < 100000; i++)
		assert_int_equal(ftfb_idtab_get(&t, (uint64_t)i * 7919), i + 1);
	assert_int_equal(ftfb_idtab_get(&t, 7919ull * 100000), 0);
	assert_int_equal(ftfb_idtab_put(&t, 7919, 5), 0);
	assert_int_equal(ftfb_idtab_get(&t, 7919), 5);
	assert_int_equal(t.n, 100000);
	ftfb_idtab_free(&t);
	assert_int_equal(ftfb_idtab_get(&t, 0), 0);
}

/* The stack store: a hash's ips kept once, the first ones win. */
static void stackstore_keeps_first_ips(void **state)
{
	struct ftfb_stackstore *st;
	uint64_t a[3] = {1, 2, 3}, b[1] = {9};
	const uint64_t *got;
	uint32_t n;

	(void)state;
	assert_int_equal(ftfb_stackstore_new(&st), 0);
	assert_null(ftfb_stackstore_get(st, 77, &n));
	assert_int_equal(n, 0);
	for (uint64_t h = 1; h <= 5000; h++) /* the pool moves as it grows */
		assert_int_equal(ftfb_stackstore_add(st, h, a, 3), 0);
	assert_int_equal(ftfb_stackstore_add(st, 5001, b, 1), 0);
	assert_int_equal(ftfb_stackstore_add(st, 5001, a, 3), 0);
	got = ftfb_stackstore_get(st, 5001, &n);
	assert_int_equal(n, 1);
	assert_int_equal(got[0], 9);
	got = ftfb_stackstore_get(st, 1, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(got, a, sizeof(a));
	ftfb_stackstore_free(st);
}

/* ---- stackprof ---- */

static int symbolized;

static void fake_sym(void *ctx, uint32_t tgid, uint64_t ip, bool kernel,
		     bool leaf, struct ftfb_frame_sym *out)
{
	static char longname[600];

	(void)ctx;
	(void)tgid;
	(void)leaf;
	symbolized++;
	memset(out, 0, sizeof(*out));
	if (kernel) {
		out->function = "__schedule";
		out->path = "[kernel.kallsyms]";
		out->rel_pc = ip;
		return;
	}
	memset(longname, 'x', sizeof(longname) - 1);
	out->function = ip == 0x1300   ? longname
			: ip == 0x1200 ? "leaf_fn"
				       : "main";
	out->path = "/bin/app";
	out->start = 0x1000;
	out->end = 0x2000;
	out->rel_pc = ip - 0x1000;
}

/* A memory trace on a mono clock and a stack profiler writing into it
 * (fake symbols, at 99 Hz), with `forget` if not NULL. */
static void prof_open(struct ftf_dest_mem *m, struct ftf_writer *w,
		      struct ftf_clock *c, struct ftfb_stackprof **sp,
		      void (*forget)(void *, uint32_t, uint64_t))
{
	struct ftf_writer_options wo = {0};
	struct ftfb_stackprof_opts o = {0};

	memset(c, 0, sizeof(*c));
	c->source = FTF_CLOCK_MONO;
	c->ticks_per_second = 1000000000ull;
	ftf_dest_mem_init(m, 0);
	wo.clock = c;
	wo.no_refresh_buf_at_intervals = true;
	assert_int_equal(ftf_writer_init(w, &m->base, &wo), 0);
	o.w = w;
	o.symbolize = fake_sym;
	o.forget = forget;
	o.freq_hz = 99;
	assert_int_equal(ftfb_stackprof_new(sp, &o), 0);
}

static void samples_intern_once(void **state)
{
	static uint8_t out[1 << 16];
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c = {0};
	struct ftfb_stackprof *sp;
	uint64_t u[2] = {0x1200, 0x1100}, k[1] = {0xffffffff81000000ull};
	struct ftfb_stack_sample s = {0};
	const char *names[4];
	uint64_t wt[4];
	size_t n;

	(void)state;
	prof_open(&m, &w, &c, &sp, NULL);

	s.kind = FTFB_STACK_ON_CPU;
	s.ts_ns = 1000;
	s.tid = 11;
	s.tgid = 10;
	s.weight = 1;
	s.uhash = 0xabc;
	s.uips = u;
	s.nu = 2;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	/* the same stack again, by hash only: nothing symbolized again */
	s.uips = NULL;
	s.ts_ns = 2000;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(symbolized, 2);
	/* off CPU: the user stack and a kernel one, on its own sequence */
	s.kind = FTFB_STACK_OFF_CPU;
	s.weight = 5000000;
	s.khash = 0xdef;
	s.kips = k;
	s.nk = 1;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	/* a hash never sent: counted, written without that stack */
	s.uhash = 0x999;
	s.kips = NULL;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(ftfb_stackprof_stats(sp)->unknown_stacks, 1);
	/* a name over the cap is cut */
	u[0] = 0x1300;
	s.kind = FTFB_STACK_ON_CPU;
	s.weight = 1;
	s.uhash = 0x777;
	s.uips = u;
	s.khash = 0;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(ftfb_stackprof_flush(sp), 0);
	assert_int_equal(ftf_writer_close(&w), 0);

	assert_int_equal(ftfb_stackprof_stats(sp)->samples[0], 3);
	assert_int_equal(ftfb_stackprof_stats(sp)->samples[1], 2);
	assert_int_equal(ftfb_stackprof_stats(sp)->weight[1], 10000000);
	n = perfetto_bytes(&m, out, sizeof(out));
	assert_int_equal(n, ftfb_stackprof_stats(sp)->bytes);
	/* per sequence, each name once: on CPU and off CPU */
	assert_int_equal(count_bytes(out, n, "leaf_fn"), 2);
	assert_int_equal(count_bytes(out, n, "/bin/app"), 2);
	assert_int_equal(count_bytes(out, n, "__schedule"), 1);
	assert_int_equal(count_bytes(out, n, "on-CPU samples"), 1);
	assert_int_equal(count_bytes(out, n, "off-CPU time (ns)"), 1);
	{
		char cut[257];

		memset(cut, 'x', 256);
		cut[256] = '\0';
		assert_int_equal(count_bytes(out, n, cut), 0);
		cut[255] = '\0';
		assert_int_equal(count_bytes(out, n, cut), 1);
	}
	/* the summary's tops: the innermost user frame, by weight */
	assert_int_equal(
		ftfb_stackprof_top(sp, FTFB_STACK_ON_CPU, names, wt, 4), 2);
	assert_string_equal(names[0], "leaf_fn");
	assert_int_equal(wt[0], 2);
	/* off CPU: the sample whose user stack never came counts under
	 * its kernel leaf */
	assert_int_equal(
		ftfb_stackprof_top(sp, FTFB_STACK_OFF_CPU, names, wt, 4), 2);
	assert_int_equal(wt[0], 5000000);
	assert_int_equal(wt[1], 5000000);
	assert_true(!strcmp(names[0], "leaf_fn") ||
		    !strcmp(names[1], "leaf_fn"));
	assert_true(!strcmp(names[0], "__schedule") ||
		    !strcmp(names[1], "__schedule"));
	ftfb_stackprof_free(sp);
	ftf_dest_mem_free(&m);
}

static int forgotten;

static void fake_forget(void *ctx, uint32_t tgid, uint64_t ts_ns)
{
	(void)ctx;
	assert_int_equal(ts_ns, 1);
	assert_int_equal(tgid, 10);
	forgotten++;
}

/* After an exec (or exit) of the process, its addresses are symbolized
 * and interned anew; other processes' are not. */
static void forget_symbolizes_again(void **state)
{
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c = {0};
	struct ftfb_stackprof *sp;
	uint64_t u[1] = {0x1200};
	struct ftfb_stack_sample s = {0};

	(void)state;
	prof_open(&m, &w, &c, &sp, fake_forget);
	s.kind = FTFB_STACK_ON_CPU;
	s.tid = 11;
	s.tgid = 10;
	s.weight = 1;
	s.uhash = 0x42;
	s.uips = u;
	s.nu = 1;
	symbolized = 0;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	s.uips = NULL;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(symbolized, 1);
	ftfb_stackprof_forget(sp, 10, 1);
	assert_int_equal(forgotten, 1);
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(symbolized, 2);
	assert_int_equal(ftfb_stackprof_stats(sp)->samples[0], 3);
	assert_int_equal(ftf_writer_close(&w), 0);
	ftfb_stackprof_free(sp);
	ftf_dest_mem_free(&m);
}

/* A sample of more frames than a callstack holds (300 user, 300 kernel:
 * not from our BPF program, which sends at most 127 a kind, but the
 * function takes what it is given): written, its frames cut, nothing read
 * out of bounds (ASan: this read past a 256-entry array). */
static void overlong_stack_is_cut(void **state)
{
	static uint64_t u[300], k[300];
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c = {0};
	struct ftfb_stackprof *sp;
	struct ftfb_stack_sample s = {0};

	(void)state;
	for (int i = 0; i < 300; i++) {
		u[i] = 0x1000 + 0x10 * (uint64_t)i;
		k[i] = 0xffffffff81000000ull + 0x10 * (uint64_t)i;
	}
	prof_open(&m, &w, &c, &sp, NULL);
	s.kind = FTFB_STACK_ON_CPU;
	s.ts_ns = 1000;
	s.tid = 11;
	s.tgid = 10;
	s.weight = 1;
	s.uhash = 0x300;
	s.uips = u;
	s.nu = 300;
	s.khash = 0x301;
	s.kips = k;
	s.nk = 300;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(ftfb_stackprof_flush(sp), 0);
	ftfb_stackprof_free(sp);
	ftf_dest_mem_free(&m);
}

/* Sample times as Perfetto converts FTF ticks, worked by hand: ticks =
 * 2^40 + 5 at 3 GHz: 256 * floor(2^32 * 1e9 / 3e9) = 256 * 1431655765 =
 * 366503875840, plus floor(5 * 1e9 / 3e9) = 1: 366503875841, 84 ns
 * before the exact 366503875925.3; at 1e9 ticks per second, exact. */
static void sample_times_as_perfetto_reads(void **state)
{
	(void)state;
	assert_int_equal(ftfb_ticks_to_ns_as_perfetto((1ull << 40) + 5,
						      3000000000ull),
			 366503875841ull);
	assert_int_equal(ftfb_ticks_to_ns_as_perfetto(123456789012345ull,
						      1000000000ull),
			 123456789012345ull);
	assert_int_equal(ftfb_ticks_to_ns_as_perfetto(42, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pb_documented_examples),
		cmocka_unit_test(pb_nested_and_wide),
		cmocka_unit_test(pb_short_lengths),
		cmocka_unit_test(pb_overflow_stops),
		cmocka_unit_test(idtab_keeps_every_key),
		cmocka_unit_test(stackstore_keeps_first_ips),
		cmocka_unit_test(samples_intern_once),
		cmocka_unit_test(forget_symbolizes_again),
		cmocka_unit_test(sample_times_as_perfetto_reads),
		cmocka_unit_test(overlong_stack_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
