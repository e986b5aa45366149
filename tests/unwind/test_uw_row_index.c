// SPDX-License-Identifier: MIT
/*
 * test_uw_row_index - a table's page index (bpf/uw_index.h,
 * uw_row_index.h): its pages' size and entries for rows worked out by
 * hand (rows across pages, pages where no row starts, addresses before
 * the first row and past the last, one row), the whole-table search when
 * the index has no room, and, for every row address +-1 of real tables
 * (libc, ld.so, the vDSO, this program), the row the walker's search over
 * an index range finds is the one a search of the whole table finds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "unwind_table.h"
#include "uw_index.h"
#include "uw_row_index.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

/* The entries read as unwind.bpf.h's uw_idx_entry reads them. */
static uint32_t entry(const struct ftfb_uw_row *array,
		      const struct ftfb_uw_table *t, uint32_t k)
{
	return ((const uint32_t
			 *)&array[FTFB_UW_IDX_SLOT(t, k)])[FTFB_UW_IDX_HALF(k)];
}

/* The row of table t covering rel, as uw_find_row finds it (without its
 * cache; the range as uw_idx_narrow gives it): its index in the table,
 * or -1; *width: the rows searched. */
static long find(const struct ftfb_uw_row *array, const struct ftfb_uw_table *t,
		 uint64_t rel, uint32_t *width)
{
	uint32_t lo = t->first, hi = t->first + t->n, k, from;

	if (t->idx_pages) {
		k = ftfb_uw_idx_page(t, rel);
		ftfb_uw_idx_bounds(t, k, entry(array, t, k),
				   k + 1 < t->idx_pages ? entry(array, t, k + 1)
							: 0,
				   &lo, &hi);
	}
	from = lo;
	*width = hi - lo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (array[mid].pc <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > from ? (long)(lo - 1 - t->first) : -1;
}

static void rows_at(struct ftfb_uw_row *r, const uint32_t *pcs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].pc = pcs[i];
		r[i].type = FTFB_UW_CFA_RSP;
		r[i].cfa_off = (int16_t)(8 + i);
	}
}

static void test_plan(void **state)
{
	static const struct {
		uint32_t n, last, shift, pages;
	} c[] = {
		/* 8 rows to 0xe00: 2 entries at most (8 / 8 + 1), so
		 * 0xe00 >> shift <= 1: 2 KiB pages */
		{8, 0xe00, 11, 2},
		/* one row at 0: the finest pages, one of them */
		{1, 0, 4, 1},
		/* one row at 0x12345: one page, 0x12345 < 1 << 17 */
		{1, 0x12345, 17, 1},
		/* two rows 4 GiB apart (crafted): one page of 4 GiB */
		{2, 0xffffffff, 32, 1},
		/* 160 rows to 0x9f: up to 21 entries, 16-byte pages: 10 */
		{160, 0x9f, 4, 10},
		/* a row per 40 bytes (as libc, cc1): 512-byte pages */
		{25600, 25599 * 40, 9, 25599 * 40 / 512 + 1},
	};
	uint32_t shift;

	(void)state;
	for (size_t i = 0; i < NROWS(c); i++) {
		struct ftfb_uw_row *r = calloc(c[i].n, sizeof(*r));

		assert_non_null(r);
		/* rows evenly spread from 0 (any spread: only the last
		 * row's address and their number count) */
		for (uint32_t j = 0; j < c[i].n; j++)
			r[j].pc = (uint32_t)((uint64_t)c[i].last * j /
					     (c[i].n > 1 ? c[i].n - 1 : 1));
		r[c[i].n - 1].pc = c[i].last;
		assert_int_equal(ftfb_uw_idx_plan(r, c[i].n, &shift),
				 c[i].pages);
		assert_int_equal(shift, c[i].shift);
		assert_true(c[i].pages <= c[i].n / FTFB_UW_IDX_ROWS + 1);
		free(r);
	}
}

/* Rows at 0x08, 0x0c, 0x30, 0x31, 0x52 in 16-byte pages (shift 4), the
 * table's first row at 100 of the array. */
static const uint32_t hand_pcs[] = {0x08, 0x0c, 0x30, 0x31, 0x52};
#define HAND_FIRST 100

static void hand_table(struct ftfb_uw_row *array, struct ftfb_uw_table *t)
{
	rows_at(array + HAND_FIRST, hand_pcs, NROWS(hand_pcs));
	t->first = HAND_FIRST;
	t->n = NROWS(hand_pcs);
	t->idx_shift = 4;
	t->idx_pages = 6; /* the pages 0x00 .. 0x50 */
	ftfb_uw_idx_fill(array + HAND_FIRST, t->n, HAND_FIRST, 4, 6,
			 (uint32_t *)(array + HAND_FIRST + t->n));
}

static void test_fill_by_hand(void **state)
{
	/* the row covering each page's first address: 0x00 before the
	 * first row (the first, then), 0x10 and 0x20 in row 0x0c's (no
	 * row starts in 0x20's page), 0x30 a row's own, 0x40 and 0x50 in
	 * 0x31's (0x52 is past 0x50) */
	static const uint32_t want[6] = {100, 101, 101, 102, 103, 103};
	struct ftfb_uw_row array[HAND_FIRST + 16];
	struct ftfb_uw_table t;

	(void)state;
	hand_table(array, &t);
	for (uint32_t k = 0; k < 6; k++)
		assert_int_equal(entry(array, &t, k), want[k]);
}

static void test_find_by_hand(void **state)
{
	static const struct {
		uint64_t rel;
		long row;     /* -1: none */
		uint32_t max; /* rows searched at most */
	} c[] = {
		{0x00, -1, 2},	    {0x07, -1, 2}, {0x08, 0, 2},
		{0x0b, 0, 2},	    {0x0c, 1, 2},  {0x0f, 1, 2},
		{0x10, 1, 1},	    {0x1f, 1, 1}, /* row 1 across pages */
		{0x20, 1, 2},	    {0x2f, 1, 2},  {0x30, 2, 2},
		{0x31, 3, 2},	    {0x40, 3, 1},  {0x4f, 3, 1},
		{0x50, 3, 2},	    {0x51, 3, 2}, /* the last page */
		{0x52, 4, 2},	    {0x5f, 4, 2},  {0x60, 4, 2},
		{0x12345, 4, 2}, /* beyond: the last */
		{1ull << 40, 4, 2},
	};
	struct ftfb_uw_row array[HAND_FIRST + 16];
	struct ftfb_uw_table t;
	uint32_t width;

	(void)state;
	hand_table(array, &t);
	for (size_t i = 0; i < NROWS(c); i++) {
		assert_int_equal(find(array, &t, c[i].rel, &width), c[i].row);
		assert_true(width <= c[i].max);
	}
}

/* 160 rows 2 bytes apart (1 .. 319): up to 21 entries, so 16-byte
 * pages, 20 of them in 10 slots, written only when they fit; the rows
 * found are the same either way. */
static void test_room(void **state)
{
	struct ftfb_uw_row array[3 + 160 + 10];
	struct ftfb_uw_table t = {.first = 3, .n = 160};
	uint32_t pcs[160], width;

	(void)state;
	for (uint32_t i = 0; i < 160; i++)
		pcs[i] = 2 * i + 1;
	rows_at(array + 3, pcs, 160);
	for (uint32_t room = 0; room <= 10; room++) {
		uint32_t slots = ftfb_uw_idx_write(array, room, &t);

		assert_int_equal(slots, room < 10 ? 0 : 10);
		assert_int_equal(t.idx_pages, room < 10 ? 0 : 20);
		for (uint64_t rel = 0; rel < 400; rel++)
			assert_int_equal(find(array, &t, rel, &width),
					 rel ? (long)((rel - 1) / 2 < 160
							      ? (rel - 1) / 2
							      : 159)
					     : -1);
	}
	t.n = 0; /* (an empty table: no index) */
	assert_int_equal(ftfb_uw_idx_write(array, 10, &t), 0);
	assert_int_equal(t.idx_pages, 0);
}

/* Table b placed in an array at `first` with its index: for each row's
 * pc -1, pc and pc +1, and past the last, the walker's search finds the
 * row ftfb_uw_table_lookup finds over the whole table. */
static void check_real(const struct ftfb_uw_table_built *b, const char *name)
{
	const uint32_t first = 7;
	struct ftfb_uw_table t = {.first = first, .n = (uint32_t)b->n};
	struct ftfb_uw_row *array;
	uint64_t widths = 0, queries = 0;
	uint32_t slots, width, shift;

	assert_true(b->n >= 2 * FTFB_UW_IDX_ROWS); /* (more than a page) */
	slots = FTFB_UW_IDX_SLOTS(ftfb_uw_idx_plan(b->rows, b->n, &shift));
	array = calloc(first + b->n + slots, sizeof(*array));
	assert_non_null(array);
	memcpy(array + first, b->rows, b->n * sizeof(*b->rows));
	assert_int_equal(ftfb_uw_idx_write(array, slots, &t), slots);
	assert_true(t.idx_pages > 1);
	assert_true(t.idx_pages <= b->n / FTFB_UW_IDX_ROWS + 1);
	for (size_t i = 0; i <= b->n; i++) {
		uint64_t pc = i < b->n ? b->rows[i].pc
				       : b->rows[b->n - 1].pc + 0x10000;

		for (uint64_t rel = pc ? pc - 1 : 0; rel <= pc + 1; rel++) {
			const struct ftfb_uw_row *want =
				ftfb_uw_table_lookup(b, b->base + rel);
			long got = find(array, &t, rel, &width);

			assert_int_equal(got, want ? want - b->rows : -1);
			widths += width;
			queries++;
		}
	}
	/* the point of it: a few rows searched, not the whole table */
	printf("%s: %zu rows, %u pages of %u bytes, %.1f rows searched on "
	       "average\n",
	       name, b->n, t.idx_pages, 1u << t.idx_shift,
	       (double)widths / (double)queries);
	assert_true(widths / queries < 64);
	free(array);
}

static void test_real_tables(void **state)
{
	static const char *const files[] = {
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/proc/self/exe",
	};
	struct ftfb_uw_table_built b;
	char err[256];

	(void)state;
	for (size_t i = 0; i < NROWS(files); i++) {
		if (ftfb_uw_table_from_file(files[i], &b, err, sizeof(err)))
			fail_msg("%s", err);
		check_real(&b, files[i]);
		ftfb_uw_table_free(&b);
	}
	if (ftfb_uw_table_from_vdso(&b, err, sizeof(err)))
		fail_msg("%s", err);
	check_real(&b, "[vdso]");
	ftfb_uw_table_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_fill_by_hand),
		cmocka_unit_test(test_find_by_hand),
		cmocka_unit_test(test_room),
		cmocka_unit_test(test_real_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
