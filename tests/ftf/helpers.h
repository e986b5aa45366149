/* SPDX-License-Identifier: MIT */
/* tests/ftf/helpers.h - shared set-up for the writer tests: a writer on a
 * growing memory destination with a fake clock, and byte comparisons. */
#ifndef TESTS_FTF_HELPERS_H
#define TESTS_FTF_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/destination.h"
#include "ftf/writer.h"

/* A string's bytes as little-endian words, the way a string stream
 * looks in the trace: "abc" -> 0x636261. Up to 8 bytes per word. */
#define W8(a, b, c, d, e, f, g, h)                                             \
	((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 |            \
	 (uint64_t)(d) << 24 | (uint64_t)(e) << 32 | (uint64_t)(f) << 40 |     \
	 (uint64_t)(g) << 48 | (uint64_t)(h) << 56)

struct fake_time {
	uint64_t now;
};

static uint64_t fake_now(const struct ftf_clock *c)
{
	return ((struct fake_time *)c->now_ctx)->now;
}

/* A clock of 1000 ticks per second whose "now" the test sets. */
static inline void fake_clock_init(struct ftf_clock *c, struct fake_time *t)
{
	memset(c, 0, sizeof(*c));
	c->source = FTF_CLOCK_MONO;
	c->ticks_per_second = 1000;
	c->ref_ticks = 5000;
	c->ref_mono_ns = 7000000000ull;
	c->ref_realtime_ns = 1700000000000000000ll;
	c->now_fn = fake_now;
	c->now_ctx = t;
}

struct fixture {
	struct ftf_dest_mem mem;
	struct ftf_writer w;
	struct ftf_clock clock;
	struct fake_time time;
	uint8_t *snap;
	size_t snap_len;
};

/* All bytes the writer has produced so far (committed + current). */
static inline size_t fx_len(struct fixture *f)
{
	if (f->w.closed)
		return f->mem.len;
	return (size_t)(f->w.buf - f->mem.data) + f->w.pos;
}

static inline uint64_t fx_word(struct fixture *f, size_t byte_off)
{
	uint64_t v;

	memcpy(&v, f->mem.data + byte_off, 8);
	return v;
}

static inline struct fixture *fx_new(int with_header, int refresh)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ftf_writer_options o = {.num_temp_strs = -1};

	assert_non_null(f);
	f->time.now = 6000;
	fake_clock_init(&f->clock, &f->time);
	o.clock = &f->clock;
	o.no_refresh_buf_at_intervals = !refresh;
	ftf_dest_mem_init(&f->mem, 4096);
	if (with_header)
		assert_int_equal(ftf_writer_init(&f->w, &f->mem.base, &o), 0);
	else
		assert_int_equal(
			ftf_writer_init_no_header(&f->w, &f->mem.base, &o), 0);
	return f;
}

static inline void fx_free(struct fixture *f)
{
	if (!f->w.closed)
		ftf_writer_close(&f->w);
	ftf_dest_mem_free(&f->mem);
	free(f->snap);
	free(f);
}

/* Checks the bytes from `from` to the end are exactly `exp`. */
static inline void fx_expect(struct fixture *f, size_t from,
			     const uint64_t *exp, size_t n)
{
	size_t len = fx_len(f);

	if (len != from + n * 8)
		fail_msg("expected %zu words after offset %zu, have %zu bytes",
			 n, from, len - from);
	for (size_t i = 0; i < n; i++) {
		uint64_t got = fx_word(f, from + i * 8);

		if (got != exp[i])
			fail_msg("word %zu: expected 0x%016llx, got 0x%016llx",
				 i, (unsigned long long)exp[i],
				 (unsigned long long)got);
	}
}

#define EXPECT_WORDS(f, from, ...)                                             \
	do {                                                                   \
		const uint64_t exp_[] = {__VA_ARGS__};                         \
		fx_expect(f, from, exp_, sizeof(exp_) / sizeof(exp_[0]));      \
	} while (0)

/* Snapshot of every byte written so far, for "nothing was written". */
static inline void fx_snap(struct fixture *f)
{
	free(f->snap);
	f->snap_len = fx_len(f);
	f->snap = malloc(f->snap_len + 1);
	assert_non_null(f->snap);
	memcpy(f->snap, f->mem.data, f->snap_len);
}

static inline void fx_unchanged(struct fixture *f)
{
	assert_int_equal(fx_len(f), f->snap_len);
	assert_memory_equal(f->mem.data, f->snap, f->snap_len);
}

/* rc and message of a failed call, and that it wrote nothing. */
#define EXPECT_FAIL(f, call, code, msg_part)                                   \
	do {                                                                   \
		fx_snap(f);                                                    \
		int rc_ = (call);                                              \
		assert_int_equal(rc_, (code));                                 \
		if (!strstr(ftf_writer_error(&(f)->w), (msg_part)))            \
			fail_msg("message '%s' lacks '%s'",                    \
				 ftf_writer_error(&(f)->w), (msg_part));       \
		assert_int_equal((f)->w.err, (code));                          \
		fx_unchanged(f);                                               \
	} while (0)

#endif
