// SPDX-License-Identifier: MIT
/*
 * ftf-merge's core on synthetic traces written with libftf: timestamps of
 * an input with another rate and base land where the arithmetic of the
 * two initialization records puts them; inputs of one clock keep their
 * ticks; string tables whose indexes collide read back as each input
 * wrote them; a thread named in one input is named in the output; a
 * 2-word initialization needs --offset; bad inputs give one line and no
 * output file. Outputs are decoded with libftf's stream reader.
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
#include <sys/stat.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/stream.h"
#include "ftf/writer.h"
#include "merge.h"
#include "merge_time.h"

static char dir[64];

static const char *path_in(const char *name)
{
	static char paths[8][128];
	static int n;
	char *p = paths[n++ % 8];

	snprintf(p, 128, "%s/%s", dir, name);
	return p;
}

/* A clock that stands at its reference tick: the trace's first
 * initialization record then says (tps, ref_ticks, ref_realtime_ns). */
static uint64_t at_ref(const struct ftf_clock *c)
{
	return c->ref_ticks;
}

static void clock_at(struct ftf_clock *c, uint64_t tps, uint64_t ref_ticks,
		     int64_t realtime_ns)
{
	memset(c, 0, sizeof(*c));
	c->source = FTF_CLOCK_MONO;
	c->ticks_per_second = tps;
	c->ref_ticks = ref_ticks;
	c->ref_mono_ns = 1;
	c->ref_realtime_ns = realtime_ns;
	c->now_fn = at_ref;
}

#define T0 1700000000000000000ll /* ns since the epoch */

struct input_spec {
	const char *provider;
	const char *name;     /* the event's name, interned */
	const char *arg_name; /* interned too: ids collide across inputs */
	int64_t arg;
	uint64_t ts, end;	 /* duration complete */
	const char *thread_name; /* "" for a nameless thread record */
};

/* magic, provider, process string, init (from the clock), two interned
 * strings, thread 7/77 with its kernel object, one duration complete. */
static void write_input(const char *path, const struct ftf_clock *c,
			const struct input_spec *sp)
{
	struct ftf_writer_options o = {.provider_name = sp->provider,
				       .num_temp_strs = -1,
				       .no_refresh_buf_at_intervals = true,
				       .clock = c};
	struct ftf_dest_gzip g;
	struct ftf_dest_file f;
	struct ftf_writer w;
	bool gz = strstr(path, ".gz") != NULL;
	int name, arg, th, tname = 0;

	if (gz)
		assert_int_equal(ftf_dest_gzip_open(&g, path, 0, -1), 0);
	else
		assert_int_equal(ftf_dest_file_open(&f, path, 0), 0);
	assert_int_equal(ftf_writer_init(&w, gz ? &g.base : &f.base, &o), 0);
	assert_int_equal(ftf_make_and_write_tick_translation(&w), 0);
	name = ftf_intern_string(&w, sp->name);
	arg = ftf_intern_string(&w, sp->arg_name);
	if (*sp->thread_name)
		tname = ftf_intern_string(&w, sp->thread_name);
	assert_int_equal(name, 120); /* the same ids in every input */
	assert_int_equal(arg, 121);
	th = ftf_set_thread_slot(&w, 0, 7, 77);
	assert_int_equal(ftf_set_thread_name(&w, 7, 77, tname), 0);
	assert_int_equal(
		ftf_write_duration_complete(&w, FTF_ARG_TYPES(1, 0, 0, 0, 0, 0),
					    th, name, name, sp->ts, sp->end),
		0);
	assert_int_equal(ftf_arg_int64(&w, arg, sp->arg), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
}

struct seen {
	int events;
	char names[4][32];
	char arg_names[4][32];
	int64_t args[4];
	uint64_t ts[4], end[4];
	uint64_t tid[4];
	int named77, nameless77;
	int inits;
	uint64_t init_tps;
	char providers[4][32];
	int nproviders;
};

static void copy_str(char *dst, struct ftf_str s)
{
	snprintf(dst, 32, "%.*s", (int)s.len, s.ptr);
}

static void read_output(const char *path, struct seen *sn)
{
	struct ftf_stream s;
	struct ftf_record r;
	int ret;

	memset(sn, 0, sizeof(*sn));
	assert_int_equal(ftf_stream_open(&s, path), 0);
	while ((ret = ftf_stream_next(&s, &r)) > 0) {
		if (r.type == FTF_REC_EVENT && sn->events < 4) {
			int i = sn->events++;

			copy_str(sn->names[i], r.u.event.name);
			assert_int_equal(r.u.event.args.count, 1);
			copy_str(sn->arg_names[i], r.u.event.args.a[0].name);
			sn->args[i] = r.u.event.args.a[0].v.i64;
			sn->ts[i] = r.u.event.ts;
			sn->end[i] = r.u.event.extra;
			sn->tid[i] = r.u.event.pt.tid;
		} else if (r.type == FTF_REC_KERNEL_OBJECT &&
			   r.u.kobj.koid == 77) {
			if (r.u.kobj.name.len == 6 &&
			    !memcmp(r.u.kobj.name.ptr, "worker", 6))
				sn->named77++;
			else
				sn->nameless77++;
		} else if (r.type == FTF_REC_INIT) {
			sn->inits++;
			assert_true(!sn->init_tps ||
				    sn->init_tps == r.u.init.ticks_per_second);
			sn->init_tps = r.u.init.ticks_per_second;
		} else if (r.type == FTF_REC_METADATA &&
			   r.u.meta.meta_type == FTF_META_PROVIDER_INFO &&
			   sn->nproviders < 4) {
			copy_str(sn->providers[sn->nproviders++],
				 r.u.meta.provider_name);
		}
	}
	assert_int_equal(ret, 0);
	ftf_stream_close(&s);
}

static int merge2(const char *a, const char *b, const char *out, bool b_offset,
		  int64_t off, char *err)
{
	struct merge_input in[2] = {
		{.path = a},
		{.path = b, .has_offset = b_offset, .offset_ns = off}};
	struct merge_opts o = {.in = in, .n = 2, .output = out};
	struct merge_stats st;
	int r = merge_run(&o, &st, err, 512);

	if (r)
		printf("# merge: %s\n", err);
	return r;
}

static const struct input_spec app = {"app", "alpha", "beta",  11,
				      6000,  6250,    "worker"};

/* A: 1000 ticks/s, tick 5000 at T0. B: 1 MHz, tick 123456 at T0 + 2 s.
 * B's event at tick 623456 is T0 + 2.5 s: A's tick 5000 + 2500 = 7500;
 * its end 373456 ticks later (0.373456 s) is 7873.456 -> 7873. */
static void other_rate_and_base(void **state)
{
	static const struct input_spec kern = {"ftf-bpf", "gamma", "delta", -22,
					       623456,	  996912,  ""};
	struct ftf_clock ca, cb;
	struct seen sn;
	char err[512];

	(void)state;
	clock_at(&ca, 1000, 5000, T0);
	clock_at(&cb, 1000000, 123456, T0 + 2000000000ll);
	write_input(path_in("a.fxt"), &ca, &app);
	write_input(path_in("b.fxt"), &cb, &kern);
	assert_int_equal(merge2(path_in("a.fxt"), path_in("b.fxt"),
				path_in("ab.fxt"), false, 0, err),
			 0);
	read_output(path_in("ab.fxt"), &sn);
	assert_int_equal(sn.events, 2);
	assert_string_equal(sn.names[0], "alpha");
	assert_string_equal(sn.arg_names[0], "beta");
	assert_int_equal(sn.args[0], 11);
	assert_int_equal(sn.ts[0], 6000);
	assert_int_equal(sn.end[0], 6250);
	/* the second input's strings, at the same indexes, are its own */
	assert_string_equal(sn.names[1], "gamma");
	assert_string_equal(sn.arg_names[1], "delta");
	assert_int_equal(sn.args[1], -22);
	assert_int_equal(sn.ts[1], 7500);
	assert_int_equal(sn.end[1], 7873);
	assert_int_equal(sn.tid[0], 77);
	assert_int_equal(sn.tid[1], 77);
	/* every initialization record declares the output's rate */
	assert_true(sn.inits >= 2);
	assert_int_equal(sn.init_tps, 1000);
	/* both provider names are there */
	assert_int_equal(sn.nproviders, 2);
	assert_string_equal(sn.providers[0], "app");
	assert_string_equal(sn.providers[1], "ftf-bpf");
	/* thread 77 is nameless in the second input: named from the first */
	assert_int_equal(sn.named77, 2);
	assert_int_equal(sn.nameless77, 0);
}

/* Two calibrations of one counter: rates 60 ppb apart, bases 0.4 us
 * apart (the numbers): ticks are kept as written, gzip in and
 * out. */
static void same_clock_keeps_ticks(void **state)
{
	static const uint64_t tps_a = 2096011044ull, tps_b = 2096010918ull;
	const uint64_t base_a = 2400000000000000ull;
	const uint64_t base_b = base_a + 3 * tps_a; /* 3 s later */
	struct input_spec kern = {"ftf-bpf",	 "gamma",	"delta", 5,
				  base_b + 1000, base_b + 5000, "worker"};
	struct input_spec mine = app;
	struct ftf_clock ca, cb;
	struct seen sn;
	char err[512];

	(void)state;
	mine.ts = base_a + 777;
	mine.end = base_a + 999;
	clock_at(&ca, tps_a, base_a, T0);
	clock_at(&cb, tps_b, base_b, T0 + 3000000000ll + 400);
	write_input(path_in("sa.fxt.gz"), &ca, &mine);
	write_input(path_in("sb.fxt"), &cb, &kern);
	assert_int_equal(merge2(path_in("sa.fxt.gz"), path_in("sb.fxt"),
				path_in("sab.fxt.gz"), false, 0, err),
			 0);
	read_output(path_in("sab.fxt.gz"), &sn);
	assert_int_equal(sn.events, 2);
	assert_int_equal(sn.ts[0], base_a + 777);
	assert_int_equal(sn.ts[1], base_b + 1000);
	assert_int_equal(sn.end[1], base_b + 5000);
	assert_int_equal(sn.init_tps, tps_a);
	assert_string_equal(sn.names[1], "gamma");
}

/* A trace with the spec's 2-word initialization (1 MHz), made by hand:
 * magic, provider, section, init, string 1 "ev", instant at tick 3e6 on
 * an inline thread 5/6. */
static void write_two_word_trace(const char *path)
{
	const uint64_t words[] = {
		0x0016547846040010ull,
		0 | 2ull << 4 | 1ull << 16 | 9ull << 20 | 1ull << 52,
		'x',
		0 | 1ull << 4 | 2ull << 16 | 9ull << 20,
		1 | 2ull << 4,
		1000000,
		2 | 2ull << 4 | 1ull << 16 | 2ull << 32,
		'e' | 'v' << 8,
		4 | 4ull << 4 | 0ull << 16 | 0ull << 24 | 1ull << 48,
		3000000,
		5,
		6,
	};
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(words, sizeof(words), 1, f), 1);
	fclose(f);
}

static void two_word_init_needs_offset(void **state)
{
	struct ftf_clock ca;
	struct seen sn;
	struct stat st;
	char err[512];

	(void)state;
	clock_at(&ca, 1000, 5000, T0);
	write_input(path_in("a.fxt"), &ca, &app);
	write_two_word_trace(path_in("two.fxt"));
	unlink(path_in("a2.fxt"));
	assert_int_equal(merge2(path_in("a.fxt"), path_in("two.fxt"),
				path_in("a2.fxt"), false, 0, err),
			 -EINVAL);
	printf("# %s\n", err);
	assert_non_null(strstr(err, "two.fxt has no base time"));
	assert_non_null(strstr(err, "--offset"));
	assert_int_equal(stat(path_in("a2.fxt"), &st), -1);
	/* 3e6 ticks at 1 MHz = 3 s, + 1.5 s = 4.5 s = 4500 of A's ticks */
	assert_int_equal(merge2(path_in("a.fxt"), path_in("two.fxt"),
				path_in("a2.fxt"), true, 1500000000ll, err),
			 0);
	memset(&sn, 0, sizeof(sn));
	{
		struct ftf_stream s;
		struct ftf_record r;
		int n = 0;

		assert_int_equal(ftf_stream_open(&s, path_in("a2.fxt")), 0);
		while (ftf_stream_next(&s, &r) > 0)
			if (r.type == FTF_REC_EVENT && n++ == 1) {
				assert_int_equal(r.u.event.ts, 4500);
				assert_int_equal(r.u.event.name.len, 2);
				assert_memory_equal(r.u.event.name.ptr, "ev",
						    2);
				assert_int_equal(r.u.event.pt.tid, 6);
			}
		assert_int_equal(n, 2);
		assert_int_equal(s.r.errors, 0);
		ftf_stream_close(&s);
	}
}

static void bad_inputs(void **state)
{
	struct stat st;
	char err[512];
	FILE *f;

	(void)state;
	f = fopen(path_in("text.fxt"), "w");
	assert_non_null(f);
	fputs("not a trace\n", f);
	fclose(f);
	unlink(path_in("bad.fxt"));
	assert_int_equal(merge2(path_in("a.fxt"), path_in("missing.fxt"),
				path_in("bad.fxt"), false, 0, err),
			 -ENOENT);
	assert_non_null(strstr(err, "cannot read"));
	assert_non_null(strstr(err, "missing.fxt"));
	assert_int_equal(merge2(path_in("text.fxt"), path_in("a.fxt"),
				path_in("bad.fxt"), false, 0, err),
			 -EINVAL);
	assert_non_null(strstr(err, "text.fxt is not an FTF trace"));
	assert_int_equal(merge2(path_in("a.fxt"), path_in("a.fxt"),
				path_in("a.fxt"), false, 0, err),
			 -EINVAL);
	assert_non_null(strstr(err, "is the input"));
	assert_int_equal(stat(path_in("bad.fxt"), &st), -1);
}

/* An input declaring a clock faster than any (2e12 ticks per second):
 * refused in one line, before its times could overflow the mapping. */
static void implausible_rate_refused(void **state)
{
	struct ftf_clock ca, cb;
	struct stat st;
	char err[512];

	(void)state;
	clock_at(&ca, 1000, 5000, T0);
	write_input(path_in("a.fxt"), &ca, &app);
	clock_at(&cb, 2000000000000ull, 5000, T0);
	write_input(path_in("fast.fxt"), &cb, &app);
	unlink(path_in("fast-out.fxt"));
	assert_int_equal(merge2(path_in("a.fxt"), path_in("fast.fxt"),
				path_in("fast-out.fxt"), false, 0, err),
			 -ERANGE);
	assert_non_null(strstr(err, "fast.fxt declares 2000000000000 ticks "
				    "per second"));
	assert_int_equal(stat(path_in("fast-out.fxt"), &st), -1);
}

/* Kernel objects of type 0 (none of the spec's process or thread) with
 * inline names: copied as they are, and not kept in the names table,
 * whose empty slots are type 0 (they leaked there, and grew it). */
static void type0_objects_copied(void **state)
{
	enum { N = 2000 };
	const uint64_t head[] = {
		0x0016547846040010ull,
		0 | 2ull << 4 | 1ull << 16 | 9ull << 20 | 1ull << 52,
		'x',
		0 | 1ull << 4 | 2ull << 16 | 9ull << 20,
		1 | 2ull << 4,
		1000000,
	};
	/* kernel object: type 7, 3 words, object type 0, inline name "obj" */
	const uint64_t obj = 7 | 3ull << 4 | 0ull << 16 | (0x8000ull | 3) << 24;
	struct ftf_clock ca;
	struct ftf_stream s;
	struct ftf_record r;
	char err[512];
	int objects = 0;
	FILE *f;

	(void)state;
	clock_at(&ca, 1000, 5000, T0);
	write_input(path_in("a.fxt"), &ca, &app);
	f = fopen(path_in("obj0.fxt"), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(head, sizeof(head), 1, f), 1);
	for (uint64_t koid = 1; koid <= N; koid++) {
		const uint64_t rec[3] = {obj, koid, 'o' | 'b' << 8 | 'j' << 16};

		assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
	}
	fclose(f);
	assert_int_equal(merge2(path_in("a.fxt"), path_in("obj0.fxt"),
				path_in("obj0-out.fxt"), true, 0, err),
			 0);
	assert_int_equal(ftf_stream_open(&s, path_in("obj0-out.fxt")), 0);
	while (ftf_stream_next(&s, &r) > 0)
		if (r.type == FTF_REC_KERNEL_OBJECT && r.u.kobj.obj_type == 0 &&
		    r.u.kobj.name.len == 3 &&
		    !memcmp(r.u.kobj.name.ptr, "obj", 3))
			objects++;
	assert_int_equal(s.r.errors, 0);
	ftf_stream_close(&s);
	assert_int_equal(objects, N);
}

/* A large blob of 1.5 MiB (more than half a destination buffer: it was
 * refused, "unfinished record ... does not fit"), merged to plain and to
 * gzip: there whole, its payload intact. The input: magic, provider,
 * 2-word init, strings 1 "cat" and 2 "name", thread 1 = 10/11, the blob
 * (format 0: category, name, thread, no args; ts; size; payload). */
static void a_large_blob_is_copied_whole(void **state)
{
	enum { PAYLOAD = 3 << 19 };
	const uint64_t head[] = {
		0x0016547846040010ull,
		0 | 2ull << 4 | 1ull << 16 | 9ull << 20 | 1ull << 52,
		'x',
		1 | 2ull << 4,
		1000000000,
		2 | 2ull << 4 | 1ull << 16 | 3ull << 32,
		'c' | 'a' << 8 | 't' << 16,
		2 | 2ull << 4 | 2ull << 16 | 4ull << 32,
		'n' | 'a' << 8 | 'm' << 16 | (uint64_t)'e' << 24,
		3 | 3ull << 4 | 1ull << 16,
		10,
		11,
		15 | (4ull + PAYLOAD / 8) << 4 | 0ull << 36 | 0ull << 40,
		1 | 2ull << 16 | 1ull << 36,
		5000,
		PAYLOAD,
	};
	static uint8_t payload[PAYLOAD];
	const char *outs[] = {"big-out.fxt", "big-out.fxt.gz"};
	struct ftf_clock ca;
	char err[512];
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	clock_at(&ca, 1000, 5000, T0);
	write_input(path_in("a.fxt"), &ca, &app);
	f = fopen(path_in("big.fxt"), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(head, sizeof(head), 1, f), 1);
	assert_int_equal(fwrite(payload, sizeof(payload), 1, f), 1);
	fclose(f);
	for (int o = 0; o < 2; o++) {
		struct ftf_stream st;
		struct ftf_record r;
		int blobs = 0;

		assert_int_equal(merge2(path_in("a.fxt"), path_in("big.fxt"),
					path_in(outs[o]), true, 0, err),
				 0);
		assert_int_equal(ftf_stream_open(&st, path_in(outs[o])), 0);
		while (ftf_stream_next(&st, &r) > 0)
			if (r.type == FTF_REC_LARGE && r.u.large.format == 0) {
				blobs++;
				assert_int_equal(r.u.large.size, PAYLOAD);
				assert_memory_equal(r.u.large.payload, payload,
						    PAYLOAD);
			}
		assert_int_equal(st.r.errors, 0);
		ftf_stream_close(&st);
		assert_int_equal(blobs, 1);
	}
}

static void offsets_parse(void **state)
{
	int64_t ns;

	(void)state;
	assert_int_equal(merge_parse_offset("1.5ms", &ns), 0);
	assert_int_equal(ns, 1500000);
	assert_int_equal(merge_parse_offset("-200us", &ns), 0);
	assert_int_equal(ns, -200000);
	assert_int_equal(merge_parse_offset("3", &ns), 0);
	assert_int_equal(ns, 3000000000ll);
	assert_int_equal(merge_parse_offset("10ns", &ns), 0);
	assert_int_equal(ns, 10);
	assert_int_equal(merge_parse_offset("5 min", &ns), -EINVAL);
	assert_int_equal(merge_parse_offset("", &ns), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ftf-merge-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (getenv("FTF_MERGE_TEST_KEEP")) { /* to look at the outputs */
		printf("# outputs kept in %s\n", dir);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(other_rate_and_base),
		cmocka_unit_test(same_clock_keeps_ticks),
		cmocka_unit_test(two_word_init_needs_offset),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(implausible_rate_refused),
		cmocka_unit_test(type0_objects_copied),
		cmocka_unit_test(a_large_blob_is_copied_whole),
		cmocka_unit_test(offsets_parse),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
