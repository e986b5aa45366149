// SPDX-License-Identifier: MIT
/*
 * Every error path of the writer: the code, the message, and that the
 * failing call wrote nothing (all bytes so far compared before/after).
 */
#include "helpers.h"

#define NONE FTF_ARG_TYPES_NONE
#define T(i64, i32, b, fl, s, is) FTF_ARG_TYPES(i64, i32, b, fl, s, is)

static void template_create_limits(void **state)
{
	ftf_arg_types t = 12345;

	(void)state;
	assert_int_equal(ftf_arg_types_create(&t, 10, 6, 0, 0, 0, 0), -E2BIG);
	assert_int_equal(t, 12345);
	assert_int_equal(ftf_arg_types_create(&t, 0, 0, 0, 0, 0, 16), -E2BIG);
	assert_int_equal(ftf_arg_types_create(&t, -1, 0, 0, 0, 0, 0), -EINVAL);
	assert_int_equal(ftf_arg_types_create(&t, 15, 0, 0, 0, 0, 0), 0);
	t = T(0, 0, 0, 0, 0, 1);
	assert_int_equal(ftf_arg_types_add_inline_string(&t, 32000), -E2BIG);
	assert_int_equal(t, T(0, 0, 0, 0, 0, 1));
}

static void too_many_args_refused(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	/* no event pending at all */
	EXPECT_FAIL(f, ftf_arg_int32(&f->w, 1, 1), -EPROTO,
		    "too many args written for arg type signature");
	assert_int_equal(
		ftf_write_instant(&f->w, T(0, 1, 0, 0, 0, 0), 1, 0, 0, 1), 0);
	assert_int_equal(ftf_arg_int32(&f->w, 1, 1), 0);
	EXPECT_FAIL(f, ftf_arg_int32(&f->w, 1, 1), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_bool(&f->w, 1, 1), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_string(&f->w, 1, 2), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_uint32(&f->w, 1, 2), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_inline_string(&f->w, 1, "x", 1), -EPROTO,
		    "too many args");
	/* the record itself is complete and stays */
	assert_int_equal(ftf_flush(&f->w), 0);
	EXPECT_WORDS(f, 0, 4 | (3ull << 4) | (1ull << 20) | (1ull << 24), 1,
		     1 | (1ull << 4) | (1ull << 16) | (1ull << 32));
	fx_free(f);
}

/* A one-word slot cannot take a two-word argument. */
static void wrong_size_arg_refused(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(
		ftf_write_instant(&f->w, T(0, 1, 0, 0, 0, 0), 1, 0, 0, 1), 0);
	EXPECT_FAIL(f, ftf_arg_int64(&f->w, 1, 1), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_uint64(&f->w, 1, 1), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_pointer(&f->w, 1, 1), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_koid(&f->w, 1, 1), -EPROTO, "too many args");
	EXPECT_FAIL(f, ftf_arg_float(&f->w, 1, 1.0), -EPROTO, "too many args");
	/* an inline string bigger than declared */
	EXPECT_FAIL(f, ftf_arg_inline_string(&f->w, 1, "abcdefghi", 9), -EPROTO,
		    "too many args");
	assert_int_equal(ftf_arg_int32(&f->w, 1, 1), 0);
	fx_free(f);
}

/* Too few: reported by the next record / flush / close, and the
 * incomplete record is removed so the output stays a valid trace. */
static void too_few_args_next_record(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(ftf_write_instant(&f->w, NONE, 1, 0, 0, 1), 0);
	assert_int_equal(
		ftf_write_counter(&f->w, T(2, 0, 0, 0, 0, 0), 1, 0, 0, 2, 3),
		0);
	assert_int_equal(ftf_arg_int64(&f->w, 1, 5), 0);
	assert_int_equal(ftf_write_duration_begin(&f->w, NONE, 1, 0, 0, 9),
			 -EPROTO);
	assert_string_equal(ftf_writer_error(&f->w),
			    "not enough args written for arg type signature "
			    "(the incomplete record was removed)");
	/* only the instant is left, and the failed begin wrote nothing */
	EXPECT_WORDS(f, 0, 4 | (2ull << 4) | (1ull << 24), 1);
	/* the writer goes on */
	assert_int_equal(ftf_write_duration_begin(&f->w, NONE, 1, 0, 0, 9), 0);
	EXPECT_WORDS(f, 0, 4 | (2ull << 4) | (1ull << 24), 1,
		     4 | (2ull << 4) | (2ull << 16) | (1ull << 24), 9);
	fx_free(f);
}

static void too_few_args_flush_and_close(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(
		ftf_write_instant(&f->w, T(0, 0, 1, 0, 0, 0), 1, 0, 0, 1), 0);
	assert_int_equal(ftf_flush(&f->w), -EPROTO);
	assert_int_equal(fx_len(f), 0);
	assert_int_equal(ftf_write_context_switch(&f->w, T(0, 2, 0, 0, 0, 0), 0,
						  FTF_THREAD_RUNNING, 1, 2, 3),
			 0);
	assert_int_equal(ftf_arg_int32(&f->w, 1, 1), 0);
	assert_int_equal(ftf_writer_close(&f->w), -EPROTO);
	assert_non_null(strstr(ftf_writer_error(&f->w), "not enough args"));
	assert_int_equal(f->mem.len, 0); /* closed anyway, record removed */
	assert_true(f->w.closed);
	/* other record kinds check too */
	fx_free(f);
	f = fx_new(0, 0);
	assert_int_equal(
		ftf_write_thread_wakeup(&f->w, T(1, 0, 0, 0, 0, 0), 0, 1, 3),
		0);
	assert_int_equal(ftf_set_thread_slot(&f->w, 0, 1, 2), -EPROTO);
	assert_int_equal(fx_len(f), 0);
	fx_free(f);
}

static void intern_while_args_pending(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	assert_int_equal(
		ftf_write_instant(&f->w, T(0, 0, 0, 0, 1, 0), 1, 0, 0, 1), 0);
	EXPECT_FAIL(
		f, ftf_intern_string(&f->w, "x"), -EPROTO,
		"can't intern strings while you still need to write arguments");
	/* still pending: the argument can be written */
	assert_int_equal(ftf_arg_string(&f->w, 3, 4), 0);
	assert_int_equal(ftf_intern_string(&f->w, "x"), 120);
	fx_free(f);
}

static void out_of_string_ids(void **state)
{
	struct ftf_dest_mem m;
	struct fixture *f = calloc(1, sizeof(*f));
	struct ftf_writer_options o = {
		.num_temp_strs = FTF_MAX_TEMP_STRING_SLOTS - 1,
		.clock = &f->clock,
	};

	(void)state;
	(void)m;
	fake_clock_init(&f->clock, &f->time);
	ftf_dest_mem_init(&f->mem, 0);
	assert_int_equal(ftf_writer_init_no_header(&f->w, &f->mem.base, &o), 0);
	/* 20 + 32747 = 32767, the last id */
	assert_int_equal(ftf_intern_string(&f->w, "last"), 32767);
	EXPECT_FAIL(f, ftf_intern_string(&f->w, "one too many"), -ENOSPC,
		    "ran out of FTF string IDs");
	EXPECT_FAIL(f, ftf_intern_string(&f->w, "again"), -ENOSPC,
		    "ran out of FTF string IDs");
	fx_free(f);

	f = calloc(1, sizeof(*f));
	o.clock = &f->clock;
	o.num_temp_strs = FTF_MAX_TEMP_STRING_SLOTS;
	fake_clock_init(&f->clock, &f->time);
	ftf_dest_mem_init(&f->mem, 0);
	assert_int_equal(ftf_writer_init_no_header(&f->w, &f->mem.base, &o), 0);
	EXPECT_FAIL(f, ftf_intern_string(&f->w, "none left"), -ENOSPC,
		    "ran out of FTF string IDs");
	fx_free(f);
}

static void num_temp_strs_too_large(void **state)
{
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time t = {0};
	struct ftf_writer_options o = {
		.num_temp_strs = FTF_MAX_TEMP_STRING_SLOTS + 1, .clock = &c};

	(void)state;
	fake_clock_init(&c, &t);
	ftf_dest_mem_init(&m, 0);
	assert_int_equal(ftf_writer_init(&w, &m.base, &o), -EINVAL);
	assert_non_null(
		strstr(ftf_writer_error(&w), "num_temp_strs too large"));
	assert_null(m.data); /* the destination was never asked */
	assert_int_equal(ftf_writer_init(&w, NULL, NULL), -EINVAL);
}

static void string_too_long(void **state)
{
	struct fixture *f = fx_new(0, 0);
	char *s = malloc(40000);

	(void)state;
	memset(s, 'a', 40000);
	EXPECT_FAIL(f, ftf_intern_string_len(&f->w, s, 32000), -E2BIG,
		    "string too long for FTF trace: 32000 is over the limit of "
		    "32kb");
	EXPECT_FAIL(f, ftf_set_temp_string_slot_len(&f->w, 0, s, 32000), -E2BIG,
		    "string too long");
	EXPECT_FAIL(f, ftf_write_string_stream(&f->w, s, 32000), -E2BIG,
		    "string too long");
	EXPECT_FAIL(f, ftf_write_log(&f->w, 1, 0, s, 32000), -E2BIG,
		    "string too long");
	/* the id was not used up */
	assert_int_equal(ftf_intern_string_len(&f->w, s, 31999), 120);
	assert_int_equal(fx_len(f), 8 + 4000 * 8);
	/* checked and unchecked inline-string args */
	assert_int_equal(
		ftf_write_instant(&f->w, T(0, 0, 0, 0, 0, 1), 1, 0, 0, 1), 0);
	EXPECT_FAIL(f, ftf_arg_inline_string(&f->w, 2, s, 32000), -E2BIG,
		    "string too long");
	EXPECT_FAIL(f, ftf_arg_unchecked_inline_string(&f->w, 2, s, 32000),
		    -E2BIG, "string too long");
	assert_int_equal(ftf_arg_inline_string(&f->w, 2, "", 0), 0);
	free(s);
	fx_free(f);
}

static void slots_out_of_range(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	EXPECT_FAIL(f, ftf_set_temp_string_slot(&f->w, 100, "x"), -EINVAL,
		    "temp string slot over the limit: 100 >= 100");
	EXPECT_FAIL(f, ftf_set_temp_string_slot(&f->w, -1, "x"), -EINVAL,
		    "temp string slot must not be negative: slot -1 < 0");
	EXPECT_FAIL(f, ftf_set_dyn_slot(&f->w, 18, "x"), -EINVAL,
		    "dynamic string slot over the limit: 18 >= 18");
	EXPECT_FAIL(f, ftf_set_dyn_slot_2_int64s(&f->w, -1, 1, 2), -EINVAL,
		    "dynamic string slot must not be negative");
	EXPECT_FAIL(f, ftf_set_string_slot(&f->w, 0, "x"), -EINVAL,
		    "string slot must be positive: slot 0 <= 0");
	EXPECT_FAIL(f, ftf_set_string_slot(&f->w, 32768, "x"), -EINVAL,
		    "string slot over the limit");
	EXPECT_FAIL(f, ftf_set_string_slot(&f->w, 1, "other"), -EINVAL,
		    "tried to overwrite the slot for the process string");
	/* "process" into slot 1 is accepted and writes nothing */
	fx_snap(f);
	assert_int_equal(ftf_set_string_slot(&f->w, 1, "process"), 1);
	fx_unchanged(f);
	EXPECT_FAIL(f, ftf_set_thread_slot(&f->w, 255, 1, 2), -EINVAL,
		    "thread slot outside of valid range [0,254]: 255");
	EXPECT_FAIL(f, ftf_set_thread_slot(&f->w, -1, 1, 2), -EINVAL,
		    "thread slot outside of valid range [0,254]: -1");
	EXPECT_FAIL(f, ftf_set_process_name(&f->w, 1, -1), -EINVAL,
		    "string id out of range");
	EXPECT_FAIL(f, ftf_set_thread_name(&f->w, 1, 2, 40000), -EINVAL,
		    "string id out of range");
	fx_free(f);
}

static void bad_event_fields(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	EXPECT_FAIL(f, ftf_write_instant(&f->w, NONE, 0, 0, 0, 1), -EINVAL,
		    "thread ref outside of valid range [1,255]: 0");
	EXPECT_FAIL(f, ftf_write_counter(&f->w, NONE, 256, 0, 0, 1, 1), -EINVAL,
		    "thread ref outside of valid range [1,255]: 256");
	EXPECT_FAIL(f, ftf_write_flow_begin(&f->w, 0, 1, 1), -EINVAL,
		    "thread ref");
	EXPECT_FAIL(f, ftf_write_duration_begin(&f->w, NONE, 1, -1, 0, 1),
		    -EINVAL, "category string id out of range: -1");
	EXPECT_FAIL(f, ftf_write_async_begin(&f->w, NONE, 1, 0, 0x8000, 1, 1),
		    -EINVAL, "name string id out of range: 32768");
	/* 16 arguments do not fit the 4-bit count: not a valid template */
	EXPECT_FAIL(f,
		    ftf_write_instant(&f->w, T(0, 16, 0, 0, 0, 0), 1, 0, 0, 1),
		    -EINVAL, "invalid arg types");
	EXPECT_FAIL(f, ftf_write_duration_end(&f->w, -16, 1, 0, 0, 1), -EINVAL,
		    "invalid arg types");
	/* 4094 words of arguments + header + timestamp + id > 4095 */
	EXPECT_FAIL(f,
		    ftf_write_async_end(
			    &f->w,
			    ftf_arg_types_add_size(T(0, 0, 0, 0, 0, 1), 4093),
			    1, 0, 0, 1, 1),
		    -E2BIG, "record too large: 4097 words > 4095");
	EXPECT_FAIL(f, ftf_write_context_switch(&f->w, NONE, 0, 16, 1, 2, 3),
		    -EINVAL, "thread state out of range: 16");
	EXPECT_FAIL(f, ftf_write_log(&f->w, 0, 1, "x", 1), -EINVAL,
		    "thread ref outside of valid range");
	assert_int_equal(
		ftf_write_instant(&f->w, T(0, 2, 0, 0, 0, 0), 1, 0, 0, 1), 0);
	EXPECT_FAIL(f, ftf_arg_int32(&f->w, -1, 1), -EINVAL,
		    "arg name string id out of range: -1");
	EXPECT_FAIL(f, ftf_arg_string(&f->w, 1, 32768), -EINVAL,
		    "string arg value id out of range");
	fx_free(f);
}

static void duration_complete_end_before_start(void **state)
{
	struct fixture *f = fx_new(0, 0);

	(void)state;
	EXPECT_FAIL(f, ftf_write_duration_complete(&f->w, NONE, 1, 0, 0, 10, 9),
		    -EINVAL,
		    "duration_complete event must have end tick (9) >= start "
		    "tick (10)");
	assert_int_equal(
		ftf_write_duration_complete(&f->w, NONE, 1, 0, 0, 10, 10), 0);
	fx_free(f);
}

static void header_size_overflow(void **state)
{
	uint64_t h = 4 | (4000ull << 4) | (7ull << 48), before = h;

	(void)state;
	/* 4000 + 95 words = 4095: too big (must stay below 4096 words... the
	 * seed's limit is new size >= 4096) */
	assert_int_equal(ftf_header_update_size_for_inline_string(&h, 95 * 8),
			 0);
	assert_int_equal(h, 4 | (4095ull << 4) | (7ull << 48));
	h = before;
	assert_int_equal(ftf_header_update_size_for_inline_string(&h, 96 * 8),
			 -E2BIG);
	assert_int_equal(h, before);
	assert_int_equal(ftf_header_update_size_for_name(&h, 96 * 8), -E2BIG);
	assert_int_equal(h, before);
	/* precompute: invalid input gives 0 */
	assert_int_equal(
		ftf_precompute_header(FTF_EVENT_INSTANT, 0, -1, 1, 0, 0), 0);
	assert_int_equal(
		ftf_precompute_header(FTF_EVENT_INSTANT, 0, NONE, 256, 0, 0),
		0);
	assert_int_equal(
		ftf_precompute_header(FTF_EVENT_INSTANT, 4094, NONE, 1, 0, 0),
		0);
}

/* A failed set-up leaves the writer closed and nothing in the output. */
static void init_failures(void **state)
{
	uint8_t arr[40];
	char longname[300];
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time t = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};

	(void)state;
	fake_clock_init(&c, &t);
	/* the 56-byte header does not fit 40 bytes */
	ftf_dest_mem_init_fixed(&m, arr, sizeof(arr));
	assert_int_equal(ftf_writer_init(&w, &m.base, &o), -ENOBUFS);
	assert_string_equal(ftf_writer_error(&w),
			    "new buffer too small: 40 bytes < 56 requested");
	assert_int_equal(m.len, 0);
	assert_int_equal(ftf_write_instant(&w, 0, 1, 0, 0, 1), -EBADF);
	assert_int_equal(ftf_writer_close(&w), -EBADF);
	/* provider names are at most 255 bytes (8-bit length field) */
	memset(longname, 'p', 256);
	longname[256] = '\0';
	o.provider_name = longname;
	ftf_dest_mem_init(&m, 0);
	assert_int_equal(ftf_writer_init(&w, &m.base, &o), -E2BIG);
	assert_string_equal(ftf_writer_error(&w),
			    "provider name too long: 256 bytes > 255");
	assert_int_equal(m.len, 0);
	assert_int_equal(ftf_intern_string(&w, "x"), -EBADF);
	ftf_dest_mem_free(&m);
}

static void new_buffer_too_small(void **state)
{
	uint8_t arr[64];
	struct fixture *f = calloc(1, sizeof(*f));
	struct ftf_writer_options o = {.num_temp_strs = -1,
				       .no_refresh_buf_at_intervals = true,
				       .clock = &f->clock};

	(void)state;
	fake_clock_init(&f->clock, &f->time);
	ftf_dest_mem_init_fixed(&f->mem, arr, sizeof(arr));
	assert_int_equal(ftf_writer_init_no_header(&f->w, &f->mem.base, &o), 0);
	assert_int_equal(ftf_write_instant(&f->w, NONE, 1, 0, 0, 1), 0);
	assert_int_equal(ftf_write_instant(&f->w, NONE, 1, 0, 0, 2), 0);
	assert_int_equal(ftf_write_instant(&f->w, NONE, 1, 0, 0, 3), 0);
	/* 48 bytes used, 16 left: a 24-byte counter does not fit */
	EXPECT_FAIL(f, ftf_write_counter(&f->w, NONE, 1, 0, 0, 4, 5), -ENOBUFS,
		    "new buffer too small: 16 bytes < 24 requested");
	EXPECT_FAIL(f, ftf_write_counter(&f->w, NONE, 1, 0, 0, 4, 5), -ENOBUFS,
		    "new buffer too small: 16 bytes < 24 requested");
	assert_int_equal(f->mem.len, 64 - 16);
	/* what still fits is written */
	assert_int_equal(ftf_write_instant(&f->w, NONE, 1, 0, 0, 6), 0);
	EXPECT_FAIL(f, ftf_force_switch_buffers(&f->w), -ENOBUFS,
		    "new buffer too small: 0 bytes < 1 requested");
	assert_int_equal(f->mem.len, 64);
	fx_free(f);
}

static void closed_writer(void **state)
{
	struct fixture *f = fx_new(1, 0);
	uint64_t h = ftf_precompute_header(FTF_EVENT_INSTANT, 0, NONE, 1, 0, 0);
	size_t len;

	(void)state;
	assert_int_equal(ftf_writer_close(&f->w), 0);
	len = f->mem.len;
	EXPECT_FAIL(f, ftf_writer_close(&f->w), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_write_instant(&f->w, NONE, 1, 0, 0, 1), -EBADF,
		    "closed");
	EXPECT_FAIL(f, ftf_write_flow_end(&f->w, 1, 1, 1), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_intern_string(&f->w, "x"), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_set_thread_slot(&f->w, 0, 1, 1), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_arg_int32(&f->w, 1, 1), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_write_bytes(&f->w, "12345678", 8), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_flush(&f->w), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_force_switch_buffers(&f->w), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_set_destination(&f->w, &f->mem.base), -EBADF,
		    "closed");
	EXPECT_FAIL(f, ftf_write_string_stream(&f->w, "x", 1), -EBADF,
		    "closed");
	EXPECT_FAIL(f, ftf_write_context_switch(&f->w, NONE, 0, 0, 1, 2, 3),
		    -EBADF, "closed");
	EXPECT_FAIL(f, ftf_write_log(&f->w, 1, 1, "m", 1), -EBADF, "closed");
	EXPECT_FAIL(f, ftf_write_provider_event_dropped(&f->w, 1), -EBADF,
		    "closed");
	EXPECT_FAIL(f, ftf_make_and_write_tick_translation(&f->w), -EBADF,
		    "closed");
	EXPECT_FAIL(f, ftf_write_from_header_and_get_tsc(&f->w, h, NULL),
		    -EBADF, "closed");
	f->time.now = 1000000;
	EXPECT_FAIL(f, ftf_refresh_buf_if_stale(&f->w, 1000000), -EBADF,
		    "closed");
	assert_int_equal(f->mem.len, len);
	fx_free(f);
}

/* A destination that fails: the error and its message come back. */
static int failing_next_buf(struct ftf_destination *d, size_t used,
			    size_t ensure, uint8_t **buf, size_t *len)
{
	static uint8_t first[32];
	int *calls = (int *)(d + 1);

	(void)used;
	(void)ensure;
	if ((*calls)++ == 0) {
		*buf = first;
		*len = sizeof(first);
		return 0;
	}
	return -EIO;
}

static int noop_close(struct ftf_destination *d, size_t used)
{
	(void)d;
	(void)used;
	return -ENOSPC;
}

static const char *failing_msg(struct ftf_destination *d)
{
	(void)d;
	return "the disk caught fire";
}

static void destination_errors(void **state)
{
	struct {
		struct ftf_destination d;
		int calls;
	} dest = {{failing_next_buf, noop_close, failing_msg}, 0};
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time t = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};

	(void)state;
	fake_clock_init(&c, &t);
	assert_int_equal(ftf_writer_init_no_header(&w, &dest.d, &o), 0);
	assert_int_equal(ftf_write_instant(&w, NONE, 1, 0, 0, 1), 0);
	assert_int_equal(ftf_write_instant(&w, NONE, 1, 0, 0, 2), 0);
	assert_int_equal(w.pos, 32);
	assert_int_equal(ftf_write_instant(&w, NONE, 1, 0, 0, 3), -EIO);
	assert_string_equal(ftf_writer_error(&w),
			    "destination failed: the disk caught fire");
	assert_int_equal(w.pos, 32);
	assert_int_equal(ftf_writer_close(&w), -ENOSPC);
	assert_string_equal(ftf_writer_error(&w),
			    "destination close failed: the disk caught fire");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(template_create_limits),
		cmocka_unit_test(too_many_args_refused),
		cmocka_unit_test(wrong_size_arg_refused),
		cmocka_unit_test(too_few_args_next_record),
		cmocka_unit_test(too_few_args_flush_and_close),
		cmocka_unit_test(intern_while_args_pending),
		cmocka_unit_test(out_of_string_ids),
		cmocka_unit_test(num_temp_strs_too_large),
		cmocka_unit_test(string_too_long),
		cmocka_unit_test(slots_out_of_range),
		cmocka_unit_test(bad_event_fields),
		cmocka_unit_test(duration_complete_end_before_start),
		cmocka_unit_test(header_size_overflow),
		cmocka_unit_test(init_failures),
		cmocka_unit_test(new_buffer_too_small),
		cmocka_unit_test(closed_writer),
		cmocka_unit_test(destination_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
