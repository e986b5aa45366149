// SPDX-License-Identifier: MIT
/*
 * uw_row_index.c - a table's page index (see uw_row_index.h and
 * bpf/uw_index.h for why its pages are the size they are).
 */
#include "uw_row_index.h"
#include "uw_index.h"

uint32_t ftfb_uw_idx_plan(const struct ftfb_uw_row *rows, size_t n,
			  uint32_t *shift)
{
	uint64_t last = rows[n - 1].pc; /* (below 2^32: one page at 32) */
	uint64_t most = n / FTFB_UW_IDX_ROWS + 1;
	uint32_t s = FTFB_UW_IDX_MIN_SHIFT;

	while ((last >> s) + 1 > most)
		s++;
	*shift = s;
	return (uint32_t)(last >> s) + 1;
}

void ftfb_uw_idx_fill(const struct ftfb_uw_row *rows, size_t n, uint32_t first,
		      uint32_t shift, uint32_t pages, uint32_t *out)
{
	size_t j = 0;

	for (uint32_t k = 0; k < pages; k++) {
		uint64_t start = (uint64_t)k << shift;

		while (j + 1 < n && rows[j + 1].pc <= start)
			j++;
		out[k] = first + (uint32_t)j;
	}
}

uint32_t ftfb_uw_idx_write(struct ftfb_uw_row *array, uint32_t room,
			   struct ftfb_uw_table *t)
{
	const struct ftfb_uw_row *rows = array + t->first;
	uint32_t slots;

	t->idx_pages = t->idx_shift = 0;
	if (!t->n)
		return 0;
	t->idx_pages = ftfb_uw_idx_plan(rows, t->n, &t->idx_shift);
	slots = FTFB_UW_IDX_SLOTS(t->idx_pages);
	if (slots > room) {
		t->idx_pages = t->idx_shift = 0;
		return 0;
	}
	/* (u32 entries in 8-byte slots: aligned) */
	ftfb_uw_idx_fill(rows, t->n, t->first, t->idx_shift, t->idx_pages,
			 (uint32_t *)(array + t->first + t->n));
	return slots;
}
