// SPDX-License-Identifier: MIT
/*
 * Byte-exact tests of every record and argument type the writer emits.
 * Every expected word is written out here from the bit layouts in
 * ftf-format.md (header bits 0..3 type, 4..15 size in words, ...), never
 * taken from the writer.
 */
#include "helpers.h"

#define MAGIC 0x0016547846040010ull

static void header_with_provider_name(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ftf_writer_options o = {.num_temp_strs = -1,
				       .provider_name = "prov"};

	(void)state;
	f->time.now = 1;
	fake_clock_init(&f->clock, &f->time);
	o.clock = &f->clock;
	ftf_dest_mem_init(&f->mem, 0);
	assert_int_equal(ftf_writer_init(&f->w, &f->mem.base, &o), 0);
	EXPECT_WORDS(f, 0, MAGIC,
		     /* provider info: type 0, 2 words, mtype 1, id 0, len 4 */
		     (2ull << 4) | (1ull << 16) | (4ull << 52),
		     W8('p', 'r', 'o', 'v', 0, 0, 0, 0),
		     /* provider section: mtype 2, id 0 */
		     (1ull << 4) | (2ull << 16),
		     /* string 1 = "process" (7 bytes) */
		     2 | (2ull << 4) | (1ull << 16) | (7ull << 32),
		     W8('p', 'r', 'o', 'c', 'e', 's', 's', 0));
	fx_free(f);
}

static void header_default_provider(void **state)
{
	struct fixture *f = fx_new(1, 0);

	(void)state;
	EXPECT_WORDS(f, 0, MAGIC, (3ull << 4) | (1ull << 16) | (12ull << 52),
		     W8('j', 'a', 'n', 'e', '_', 't', 'r', 'a'),
		     W8('c', 'i', 'n', 'g', 0, 0, 0, 0),
		     (1ull << 4) | (2ull << 16),
		     2 | (2ull << 4) | (1ull << 16) | (7ull << 32),
		     W8('p', 'r', 'o', 'c', 'e', 's', 's', 0));
	/* After close every byte is in the destination. */
	assert_int_equal(ftf_writer_close(&f->w), 0);
	assert_int_equal(f->mem.len, 7 * 8);
	fx_free(f);
}

/* No options: default provider, 100 temp slots, the writer's own
 * calibrated clock. */
static void default_options(void **state)
{
	struct ftf_dest_mem m;
	struct ftf_writer w;
	uint64_t w3;

	(void)state;
	ftf_dest_mem_init(&m, 0);
	assert_int_equal(ftf_writer_init(&w, &m.base, NULL), 0);
	assert_ptr_equal(ftf_writer_clock(&w), &w.own_clock);
	assert_true(w.own_clock.ticks_per_second > 0);
	assert_true(w.refresh_buf_at_intervals);
	assert_int_equal(ftf_num_temp_strs(&w), 100);
	assert_int_equal(ftf_intern_string(&w, "x"), 120);
	assert_int_equal(ftf_writer_close(&w), 0);
	memcpy(&w3, m.data + 8, 8);
	assert_int_equal(w3, (3ull << 4) | (1ull << 16) | (12ull << 52));
	ftf_dest_mem_free(&m);
}

static void strings(void **state)
{
	struct fixture *f = fx_new(0, 0);
	uint64_t w1 = 0x1122334455667788ull, w2 = 0x99aabbccddeeff00ull;

	(void)state;
	/* first interned id = 20 + 100 temp slots */
	assert_int_equal(ftf_intern_string(&f->w, "abc"), 120);
	assert_int_equal(ftf_intern_string(&f->w, "abcdefgh"), 121);
	assert_int_equal(ftf_intern_string(&f->w, ""), 122);
	assert_int_equal(ftf_intern_string_len(&f->w, "abcdefghi", 9), 123);
	assert_int_equal(ftf_set_temp_string_slot(&f->w, 3, "t"), 23);
	assert_int_equal(ftf_set_temp_string_slot_len(&f->w, 99, "xy", 1), 119);
	assert_int_equal(ftf_set_dyn_slot(&f->w, 0, "d"), 2);
	assert_int_equal(ftf_set_dyn_slot(&f->w, 17, "e"), 19);
	assert_int_equal(ftf_set_dyn_slot_2_int64s(&f->w, 5, w1, w2), 7);
	assert_int_equal(ftf_set_string_slot(&f->w, 500, "s"), 500);
	EXPECT_WORDS(f, 0, 2 | (2ull << 4) | (120ull << 16) | (3ull << 32),
		     W8('a', 'b', 'c', 0, 0, 0, 0, 0),
		     /* exactly 8 bytes: one word, no padding */
		     2 | (2ull << 4) | (121ull << 16) | (8ull << 32),
		     W8('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
		     2 | (1ull << 4) | (122ull << 16) | (0ull << 32),
		     2 | (3ull << 4) | (123ull << 16) | (9ull << 32),
		     W8('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
		     W8('i', 0, 0, 0, 0, 0, 0, 0),
		     2 | (2ull << 4) | (23ull << 16) | (1ull << 32), 't',
		     2 | (2ull << 4) | (119ull << 16) | (1ull << 32), 'x',
		     2 | (2ull << 4) | (2ull << 16) | (1ull << 32), 'd',
		     2 | (2ull << 4) | (19ull << 16) | (1ull << 32), 'e',
		     2 | (3ull << 4) | (7ull << 16) | (16ull << 32), w1, w2,
		     2 | (2ull << 4) | (500ull << 16) | (1ull << 32), 's');
	fx_free(f);
}

static void num_temp_strs_option(void **state)
{
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time t = {0};
	struct ftf_writer_options o = {.num_temp_strs = 3, .clock = &c};

	(void)state;
	fake_clock_init(&c, &t);
	ftf_dest_mem_init(&m, 0);
	assert_int_equal(ftf_writer_init_no_header(&w, &m.base, &o), 0);
	assert_int_equal(ftf_num_temp_strs(&w), 3);
	assert_int_equal(ftf_intern_string(&w, "a"), 23);
	assert_int_equal(ftf_set_temp_string_slot(&w, 2, "b"), 22);
	ftf_writer_close(&w);
	ftf_dest_mem_free(&m);
}

static void string_map(void **state)
{
	struct fixture *f = fx_new(0, 0);
	size_t len = 99;
	const char *s;
	int id;

	(void)state;
	id = ftf_intern_string(&f->w, "before");
	assert_null(ftf_string_of_string_id(&f->w, id, &len));
	assert_int_equal(ftf_set_string_map(&f->w, true), 0);
	id = ftf_intern_string(&f->w, "hello");
	s = ftf_string_of_string_id(&f->w, id, &len);
	assert_non_null(s);
	assert_int_equal(len, 5);
	assert_memory_equal(s, "hello", 5);
	assert_int_equal(ftf_set_dyn_slot_2_int64s(&f->w, 0,
						   0x4847464544434241ull,
						   0x5057565554535251ull),
			 2);
	s = ftf_string_of_string_id(&f->w, 2, &len);
	assert_int_equal(len, 16);
	assert_memory_equal(s, "ABCDEFGHQRSTUVWP", 16);
	assert_int_equal(ftf_set_temp_string_slot(&f->w, 0, "tmp"), 20);
	assert_string_equal(ftf_string_of_string_id(&f->w, 20, NULL), "tmp");
	assert_null(ftf_string_of_string_id(&f->w, 9999, NULL));
	assert_int_equal(ftf_set_string_map(&f->w, false), 0);
	assert_null(ftf_string_of_string_id(&f->w, id, NULL));
	fx_free(f);
}

static void threads_and_kernel_objects(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(ftf_set_thread_slot(&f->w, 0, 100, 101), 1);
	assert_int_equal(ftf_set_thread_slot(&f->w, 254, 7, 8), 255);
	assert_int_equal(ftf_set_process_name(&f->w, 100, 300), 0);
	assert_int_equal(ftf_set_thread_name(&f->w, 100, 101, 301), 0);
	EXPECT_WORDS(f, 0, 3 | (3ull << 4) | (1ull << 16), 100, 101,
		     3 | (3ull << 4) | (255ull << 16), 7, 8,
		     /* kernel object: type 7, 2 words, obj 1, name, 0 args */
		     7 | (2ull << 4) | (1ull << 16) | (300ull << 24), 100,
		     /* thread object: obj 2, 1 arg; koid arg "process" */
		     7 | (4ull << 4) | (2ull << 16) | (301ull << 24) |
			     (1ull << 40),
		     101, 8 | (2ull << 4) | (1ull << 16), 100);
	fx_free(f);
}

static void tick_initialization(void **state)
{
	struct fixture *f = fx_new(0, 0);
	struct ftf_tick_translation tt = {123456789, 42, -5};

	(void)state;
	assert_int_equal(ftf_write_tick_initialization(&f->w, &tt), 0);
	/* fake clock: 1000 ticks/s, ref ticks 5000 at 1.7e18 ns, now 6000:
	 * one second later. */
	f->time.now = 6000;
	assert_int_equal(ftf_make_and_write_tick_translation(&f->w), 0);
	EXPECT_WORDS(f, 0, 1 | (4ull << 4), 123456789, 42, (uint64_t)-5ll,
		     1 | (4ull << 4), 1000, 6000,
		     1700000000000000000ull + 1000000000ull);
	fx_free(f);
}

#define T(i64, i32, b, fl, s, is) FTF_ARG_TYPES(i64, i32, b, fl, s, is)

static void events_without_args(void **state)
{
	struct fixture *f = fx_new(0, 0);
	ftf_arg_types none = FTF_ARG_TYPES_NONE;

	(void)state;
	assert_int_equal(ftf_write_instant(&f->w, none, 1, 2, 3, 10), 0);
	assert_int_equal(ftf_write_counter(&f->w, none, 4, 5, 6, 11, 77), 0);
	assert_int_equal(ftf_write_duration_begin(&f->w, none, 7, 8, 9, 12), 0);
	assert_int_equal(ftf_write_duration_end(&f->w, none, 10, 11, 12, 13),
			 0);
	assert_int_equal(
		ftf_write_duration_complete(&f->w, none, 13, 14, 15, 14, 20),
		0);
	assert_int_equal(
		ftf_write_async_begin(&f->w, none, 16, 17, 18, 15, 1001), 0);
	assert_int_equal(
		ftf_write_async_instant(&f->w, none, 19, 20, 21, 16, 1002), 0);
	assert_int_equal(ftf_write_async_end(&f->w, none, 22, 23, 24, 17, 1003),
			 0);
	assert_int_equal(ftf_write_flow_begin(&f->w, 25, 18, 2001), 0);
	assert_int_equal(ftf_write_flow_step(&f->w, 26, 19, 2002), 0);
	assert_int_equal(ftf_write_flow_end(&f->w, 255, 20, 2003), 0);
	assert_int_equal(ftf_flush(&f->w), 0);
#define EV(type, words, th, cat, nm)                                           \
	(4 | ((uint64_t)(words) << 4) | ((uint64_t)(type) << 16) |             \
	 ((uint64_t)(th) << 24) | ((uint64_t)(cat) << 32) |                    \
	 ((uint64_t)(nm) << 48))
	EXPECT_WORDS(f, 0, EV(0, 2, 1, 2, 3), 10, EV(1, 3, 4, 5, 6), 11, 77,
		     EV(2, 2, 7, 8, 9), 12, EV(3, 2, 10, 11, 12), 13,
		     EV(4, 3, 13, 14, 15), 14, 20, EV(5, 3, 16, 17, 18), 15,
		     1001, EV(6, 3, 19, 20, 21), 16, 1002, EV(7, 3, 22, 23, 24),
		     17, 1003, EV(8, 3, 25, 0, 0), 18, 2001, EV(9, 3, 26, 0, 0),
		     19, 2002, EV(10, 3, 255, 0, 0), 20, 2003);
	fx_free(f);
}

/* The counter id (a pending word) comes after the arguments. */
static void counter_with_args_puts_id_last(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(ftf_write_counter(&f->w, T(1, 1, 0, 0, 0, 0), 3,
					   0x7fff, 0x7ffe, 99, 5),
			 0);
	assert_int_equal(ftf_arg_int64(&f->w, 40, -2), 0);
	assert_int_equal(ftf_arg_int32(&f->w, 41, -3), 0);
	assert_int_equal(
		ftf_write_instant(&f->w, FTF_ARG_TYPES_NONE, 1, 0, 0, 100), 0);
	EXPECT_WORDS(f, 0,
		     /* 2 hdr/ts + 1 id + 2 int64 + 1 int32 = 6 words, 2 args */
		     4 | (6ull << 4) | (2ull << 20) | (1ull << 16) |
			     (3ull << 24) | (0x7fffull << 32) |
			     (0x7ffeull << 48),
		     99, 3 | (2ull << 4) | (40ull << 16), (uint64_t)-2ll,
		     1 | (1ull << 4) | (41ull << 16) | (0xfffffffdull << 32), 5,
		     4 | (2ull << 4) | (1ull << 24), 100);
	fx_free(f);
}

static void every_argument_type(void **state)
{
	struct fixture *f = fx_new(0, 0);
	/* int64-sized: int64, uint64, pointer, koid (4); int32-sized:
	 * int32, uint32 (2); 1 bool, 1 float, 1 interned, 1 inline "hello" */
	ftf_arg_types t = T(4, 2, 1, 1, 1, 1);
	double d = 1.5;
	uint64_t dbits;

	(void)state;
	memcpy(&dbits, &d, 8);
	assert_int_equal(ftf_arg_types_add_inline_string(&t, 5), 0);
	assert_int_equal(ftf_write_instant(&f->w, t, 2, 20, 21, 500), 0);
	assert_int_equal(ftf_arg_int32(&f->w, 30, INT32_MIN), 0);
	assert_int_equal(ftf_arg_uint32(&f->w, 31, 0xfffffffeu), 0);
	assert_int_equal(ftf_arg_int64(&f->w, 32, INT64_MIN), 0);
	assert_int_equal(ftf_arg_uint64(&f->w, 33, UINT64_MAX), 0);
	assert_int_equal(ftf_arg_pointer(&f->w, 34, 0xdeadbeef), 0);
	assert_int_equal(ftf_arg_koid(&f->w, 35, 4242), 0);
	assert_int_equal(ftf_arg_float(&f->w, 36, 1.5), 0);
	assert_int_equal(ftf_arg_bool(&f->w, 37, true), 0);
	assert_int_equal(ftf_arg_string(&f->w, 38, 0x7fff), 0);
	assert_int_equal(ftf_arg_inline_string(&f->w, 39, "hello", 5), 0);
	assert_int_equal(ftf_flush(&f->w), 0);
	/* words: 2 + 4*2 + 2*1 + 1 + 2 + 1 + (1 + 1) = 18; 10 args */
	assert_int_equal(dbits, 0x3ff8000000000000ull);
	EXPECT_WORDS(f, 0,
		     4 | (18ull << 4) | (10ull << 20) | (0ull << 16) |
			     (2ull << 24) | (20ull << 32) | (21ull << 48),
		     500,
		     1 | (1ull << 4) | (30ull << 16) | (0x80000000ull << 32),
		     2 | (1ull << 4) | (31ull << 16) | (0xfffffffeull << 32),
		     3 | (2ull << 4) | (32ull << 16), 0x8000000000000000ull,
		     4 | (2ull << 4) | (33ull << 16), 0xffffffffffffffffull,
		     7 | (2ull << 4) | (34ull << 16), 0xdeadbeefull,
		     8 | (2ull << 4) | (35ull << 16), 4242,
		     5 | (2ull << 4) | (36ull << 16), 0x3ff8000000000000ull,
		     9 | (1ull << 4) | (37ull << 16) | (1ull << 32),
		     6 | (1ull << 4) | (38ull << 16) | (0x7fffull << 32),
		     6 | (2ull << 4) | (39ull << 16) | ((0x8000ull | 5) << 32),
		     W8('h', 'e', 'l', 'l', 'o', 0, 0, 0));
	fx_free(f);
}

static void bool_false_and_int32_positive(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(
		ftf_write_duration_end(&f->w, T(0, 1, 1, 0, 0, 0), 1, 0, 0, 1),
		0);
	assert_int_equal(ftf_arg_bool(&f->w, 5, false), 0);
	assert_int_equal(ftf_arg_int32(&f->w, 6, 0x12345678), 0);
	assert_int_equal(ftf_flush(&f->w), 0);
	EXPECT_WORDS(f, 0,
		     4 | (4ull << 4) | (2ull << 20) | (3ull << 16) |
			     (1ull << 24),
		     1, 9 | (1ull << 4) | (5ull << 16),
		     1 | (1ull << 4) | (6ull << 16) | (0x12345678ull << 32));
	fx_free(f);
}

static void scheduling_records(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(ftf_write_context_switch(&f->w, T(0, 2, 0, 0, 0, 0),
						  0xabcd, FTF_THREAD_BLOCKED,
						  1111, 2222, 900),
			 0);
	assert_int_equal(ftf_arg_int32(&f->w, 50, INT32_MIN), 0);
	assert_int_equal(ftf_arg_int32(&f->w, 51, 7), 0);
	assert_int_equal(ftf_write_context_switch(&f->w, FTF_ARG_TYPES_NONE, 1,
						  FTF_THREAD_DEAD, 3, 4, 901),
			 0);
	assert_int_equal(ftf_write_thread_wakeup(&f->w, T(1, 0, 0, 0, 0, 0), 3,
						 3333, 902),
			 0);
	assert_int_equal(ftf_arg_koid(&f->w, 52, 4444), 0);
	assert_int_equal(ftf_flush(&f->w), 0);
	EXPECT_WORDS(
		f, 0,
		/* type 8, 6 words, 2 args, cpu, state 3, subtype 1 */
		8 | (6ull << 4) | (2ull << 16) | (0xabcdull << 20) |
			(3ull << 36) | (1ull << 60),
		900, 1111, 2222,
		1 | (1ull << 4) | (50ull << 16) | (0x80000000ull << 32),
		1 | (1ull << 4) | (51ull << 16) | (7ull << 32),
		8 | (4ull << 4) | (1ull << 20) | (5ull << 36) | (1ull << 60),
		901, 3, 4,
		/* wakeup: 5 words, 1 arg, cpu 3, subtype 2 */
		8 | (5ull << 4) | (1ull << 16) | (3ull << 20) | (2ull << 60),
		902, 3333, 8 | (2ull << 4) | (52ull << 16), 4444);
	fx_free(f);
}

static void provider_event_and_log(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(ftf_write_provider_event_dropped(&f->w, 0xfedcba98u),
			 0);
	assert_int_equal(ftf_write_log(&f->w, 9, 1234, "log message", 11), 0);
	assert_int_equal(ftf_write_log(&f->w, 1, 5, "", 0), 0);
	EXPECT_WORDS(f, 0,
		     (1ull << 4) | (3ull << 16) | (0xfedcba98ull << 20) |
			     (0ull << 52),
		     9 | (4ull << 4) | (11ull << 16) | (9ull << 32), 1234,
		     W8('l', 'o', 'g', ' ', 'm', 'e', 's', 's'),
		     W8('a', 'g', 'e', 0, 0, 0, 0, 0),
		     9 | (2ull << 4) | (1ull << 32), 5);
	fx_free(f);
}

/* Blob record: header (type 5, size, name, payload size, blob type), the
 * payload zero-padded to a word; too large a payload writes nothing. */
static void blob_record(void **state)
{
	struct fixture *f = fx_new(0, 0);
	static uint8_t big[FTF_MAX_BLOB_LEN + 1];

	(void)state;
	assert_int_equal(ftf_write_blob(&f->w, 7, FTF_BLOB_PERFETTO,
					"\x0a\x02pb", 4), 0);
	assert_int_equal(ftf_write_blob(&f->w, 0, 3, big, FTF_MAX_BLOB_LEN + 1),
			 -E2BIG);
	assert_int_equal(ftf_write_blob(&f->w, 0, 256, "", 0), -EINVAL);
	assert_int_equal(ftf_write_blob(&f->w, 2, 1, "", 0), 0);
	EXPECT_WORDS(f, 0,
		     5 | (2ull << 4) | (7ull << 16) | (4ull << 32) | (3ull << 48),
		     W8(0x0a, 0x02, 'p', 'b', 0, 0, 0, 0),
		     5 | (1ull << 4) | (2ull << 16) | (1ull << 48));
	fx_free(f);
}

static void expert_fast_path(void **state)
{
	struct fixture *f = fx_new(0, 1);
	uint64_t h, got = 0;

	(void)state;
	h = ftf_precompute_header(FTF_EVENT_ASYNC_BEGIN, 1, T(1, 0, 0, 0, 0, 0),
				  5, 6, 7);
	assert_int_equal(h, 4 | (5ull << 4) | (1ull << 20) | (5ull << 16) |
				    (5ull << 24) | (6ull << 32) | (7ull << 48));
	assert_int_equal(ftf_header_set_name(h, 0x1234),
			 (h & 0xffffffffffffull) | (0x1234ull << 48));
	assert_int_equal(ftf_header_byte_size(h), 40);
	f->time.now = 6500; /* within the 1 s (1000 ticks) refresh interval */
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, &got), 0);
	assert_int_equal(got, 6500);
	ftf_arg_unchecked_int64(&f->w, 8, 64);
	ftf_write_async_id(&f->w, 99);
	/* the same header with an inline name "nm" (1 word more) */
	assert_int_equal(ftf_header_update_size_for_name(&h, 2), 0);
	assert_int_equal(h, 4 | (6ull << 4) | (1ull << 20) | (5ull << 16) |
				    (5ull << 24) | (6ull << 32) |
				    ((0x8000ull | 2) << 48));
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, NULL), 0);
	assert_int_equal(ftf_write_string_stream(&f->w, "nm", 2), 0);
	ftf_arg_unchecked_pointer(&f->w, 9, 0x1000);
	ftf_write_tsc(&f->w, 7777);
	EXPECT_WORDS(f, 0,
		     4 | (5ull << 4) | (1ull << 20) | (5ull << 16) |
			     (5ull << 24) | (6ull << 32) | (7ull << 48),
		     6500, 3 | (2ull << 4) | (8ull << 16), 64, 99,
		     4 | (6ull << 4) | (1ull << 20) | (5ull << 16) |
			     (5ull << 24) | (6ull << 32) |
			     ((0x8000ull | 2) << 48),
		     6500, W8('n', 'm', 0, 0, 0, 0, 0, 0),
		     7 | (2ull << 4) | (9ull << 16), 0x1000, 7777);
	fx_free(f);
}

/* A checked event's pending word is written before a fast-path record. */
static void fast_path_after_pending_word(void **state)
{
	struct fixture *f = fx_new(0, 0);
	uint64_t h = ftf_precompute_header(FTF_EVENT_INSTANT, 0,
					   FTF_ARG_TYPES_NONE, 2, 0, 0);

	(void)state;
	assert_int_equal(
		ftf_write_async_end(&f->w, FTF_ARG_TYPES_NONE, 1, 0, 0, 3, 99),
		0);
	f->time.now = 6001;
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, NULL), 0);
	EXPECT_WORDS(f, 0, 4 | (3ull << 4) | (7ull << 16) | (1ull << 24), 3, 99,
		     4 | (2ull << 4) | (2ull << 24), 6001);
	/* and a record missing its arguments is refused, then removed */
	assert_int_equal(ftf_write_instant(&f->w,
					   FTF_ARG_TYPES(0, 1, 0, 0, 0, 0), 1,
					   0, 0, 4),
			 0);
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, NULL),
			 -EPROTO);
	assert_int_equal(fx_len(f), 5 * 8);
	fx_free(f);
}

static void update_size_for_inline_string(void **state)
{
	uint64_t h = 4 | (2ull << 4) | (9ull << 48);

	(void)state;
	assert_int_equal(ftf_header_update_size_for_inline_string(&h, 9), 0);
	assert_int_equal(h, 4 | (4ull << 4) | (9ull << 48));
	assert_int_equal(ftf_header_update_size_for_inline_string(&h, 0), 0);
	assert_int_equal(h, 4 | (4ull << 4) | (9ull << 48));
}

/* More than 1 s (1000 fake ticks) after the buffer began, the fast path
 * starts a new buffer with a fresh tick initialization. */
static void refresh_reemits_tick_initialization(void **state)
{
	struct fixture *f = fx_new(0, 1);
	uint64_t h = ftf_precompute_header(FTF_EVENT_INSTANT, 0,
					   FTF_ARG_TYPES_NONE, 1, 0, 0);
	size_t committed;

	(void)state;
	/* the writer started its buffer at now = 6000 */
	f->time.now = 7000; /* exactly 1 s: not yet stale */
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, NULL), 0);
	assert_int_equal(f->mem.len, 0);
	f->time.now = 7001;
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, NULL), 0);
	committed = f->mem.len;
	assert_int_equal(committed, 16); /* first buffer handed over */
	EXPECT_WORDS(f, 0, 4 | (2ull << 4) | (1ull << 24), 7000,
		     1 | (4ull << 4), 1000, 7001,
		     1700000000000000000ull + 2001000000ull,
		     4 | (2ull << 4) | (1ull << 24), 7001);
	/* the explicit form, with a time that is not stale */
	assert_int_equal(ftf_refresh_buf_if_stale(&f->w, 7500), 0);
	assert_int_equal(f->mem.len, committed);
	assert_int_equal(ftf_refresh_buf_if_stale(&f->w, 8002), 0);
	assert_int_equal(f->mem.len, 8 * 8);
	fx_free(f);
}

static void no_refresh_when_disabled(void **state)
{
	struct fixture *f = fx_new(0, 0);
	uint64_t h = ftf_precompute_header(FTF_EVENT_INSTANT, 0,
					   FTF_ARG_TYPES_NONE, 1, 0, 0);

	(void)state;
	f->time.now = 1000000;
	assert_int_equal(ftf_write_from_header_and_get_tsc(&f->w, h, NULL), 0);
	EXPECT_WORDS(f, 0, 4 | (2ull << 4) | (1ull << 24), 1000000);
	fx_free(f);
}

static void write_bytes_and_switching(void **state)
{
	struct fixture *f = fx_new(0, 0);
	uint8_t big[10000];

	(void)state;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	/* 4096-byte chunks over 4096-byte buffers */
	assert_int_equal(ftf_write_bytes(&f->w, big, sizeof(big)), 0);
	assert_int_equal(fx_len(f), sizeof(big));
	assert_memory_equal(f->mem.data, big, sizeof(big));
	assert_int_equal(ftf_force_switch_buffers(&f->w), 0);
	assert_int_equal(f->mem.len, sizeof(big));
	assert_int_equal(ftf_write_string_stream(&f->w, "abcdefghij", 10), 0);
	EXPECT_WORDS(f, sizeof(big), W8('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
		     W8('i', 'j', 0, 0, 0, 0, 0, 0));
	fx_free(f);
}

static void set_destination_moves_output(void **state)
{
	struct fixture *f = fx_new(0, 0);
	struct ftf_dest_mem m2;

	(void)state;
	ftf_dest_mem_init(&m2, 0);
	assert_int_equal(
		ftf_write_counter(&f->w, FTF_ARG_TYPES_NONE, 1, 0, 0, 1, 2), 0);
	assert_int_equal(ftf_set_destination(&f->w, &m2.base), 0);
	/* the old destination got the whole record, pending word included */
	assert_int_equal(f->mem.len, 24);
	assert_int_equal(fx_word(f, 0),
			 4 | (3ull << 4) | (1ull << 16) | (1ull << 24));
	assert_int_equal(fx_word(f, 8), 1);
	assert_int_equal(fx_word(f, 16), 2);
	assert_int_equal(f->mem.base.close(&f->mem.base, 0), 0);
	assert_int_equal(
		ftf_write_instant(&f->w, FTF_ARG_TYPES_NONE, 2, 0, 0, 3), 0);
	assert_int_equal(ftf_writer_close(&f->w), 0);
	assert_int_equal(m2.len, 16);
	assert_int_equal(((uint64_t *)m2.data)[0],
			 4 | (2ull << 4) | (2ull << 24));
	assert_int_equal(((uint64_t *)m2.data)[1], 3);
	assert_int_equal(f->mem.len, 24);
	ftf_dest_mem_free(&m2);
	fx_free(f);
}

static void template_arithmetic(void **state)
{
	ftf_arg_types t;
	const char *why = NULL;

	(void)state;
	assert_int_equal(ftf_arg_types_create(&t, 1, 2, 3, 4, 5, 0), 0);
	/* words 2+2*4... : 2*1 + 2 + 3 + 2*4 + 5 = 20; count 15 */
	assert_int_equal(t, (20 << 4) | (15 << 20));
	assert_int_equal(ftf_arg_types_byte_size(t), 160);
	assert_int_equal(ftf_arg_types_add_size(t, 2), (22 << 4) | (15 << 20));
	t = ftf_arg_types_remove_args(t, 1, 2, 3, 4, 5, 0);
	assert_int_equal(t, 0);
	assert_int_equal(ftf_arg_types_check_none(t, &why), 0);
	assert_int_equal(ftf_arg_types_check_none((1 << 4) | (1 << 20), &why),
			 -EPROTO);
	assert_string_equal(why,
			    "not enough args written for arg type signature");
	assert_int_equal(ftf_arg_types_check_none(-16, &why), -EPROTO);
	assert_string_equal(why,
			    "too many args written for arg type signature");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_with_provider_name),
		cmocka_unit_test(header_default_provider),
		cmocka_unit_test(default_options),
		cmocka_unit_test(strings),
		cmocka_unit_test(num_temp_strs_option),
		cmocka_unit_test(string_map),
		cmocka_unit_test(threads_and_kernel_objects),
		cmocka_unit_test(tick_initialization),
		cmocka_unit_test(events_without_args),
		cmocka_unit_test(counter_with_args_puts_id_last),
		cmocka_unit_test(every_argument_type),
		cmocka_unit_test(bool_false_and_int32_positive),
		cmocka_unit_test(scheduling_records),
		cmocka_unit_test(provider_event_and_log),
		cmocka_unit_test(blob_record),
		cmocka_unit_test(expert_fast_path),
		cmocka_unit_test(fast_path_after_pending_word),
		cmocka_unit_test(update_size_for_inline_string),
		cmocka_unit_test(refresh_reemits_tick_initialization),
		cmocka_unit_test(no_refresh_when_disabled),
		cmocka_unit_test(write_bytes_and_switching),
		cmocka_unit_test(set_destination_moves_output),
		cmocka_unit_test(template_arithmetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
