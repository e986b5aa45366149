/* SPDX-License-Identifier: MIT */
/*
 * uw_row_index.h - a table's page index (bpf/uw_index.h), computed from
 * its rows when the loader installs them, for the BPF walker's search.
 */
#ifndef FTFB_UW_ROW_INDEX_H
#define FTFB_UW_ROW_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

/* The index of rows (sorted by pc, n >= 1): its entries (at most
 * n / FTFB_UW_IDX_ROWS + 1), and in *shift its pages' size. */
uint32_t ftfb_uw_idx_plan(const struct ftfb_uw_row *rows, size_t n,
			  uint32_t *shift);

/* Writes the `pages` entries of the index of rows (n >= 1) planned with
 * shift into out: the index in uw_rows (rows[0] being at `first`) of the
 * row covering each page's first address. One pass over the rows. */
void ftfb_uw_idx_fill(const struct ftfb_uw_row *rows, size_t n, uint32_t first,
		      uint32_t shift, uint32_t pages, uint32_t *out);

/* The index of table t (its first and n set; its rows already in
 * array[t->first ..]) written after its rows if it fits in the `room`
 * slots there, with t's idx_pages and idx_shift (0 if it does not: the
 * walker searches the whole table): the slots it takes. */
uint32_t ftfb_uw_idx_write(struct ftfb_uw_row *array, uint32_t room,
			   struct ftfb_uw_table *t);

#endif
