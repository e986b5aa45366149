/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/uw_index.h - a table's page index: where the walker's search for
 * the row of an address starts and ends, so that it reads a few rows
 * next to each other rather than halving the whole table (cc1's: 19
 * reads, each a cache and TLB miss on a busy machine).
 *
 * The table's row addresses (rows' pc, from 0) are cut into pages of
 * 1 << idx_shift; entry k is the index in uw_rows of the row covering
 * the first address of page k (the last row whose pc <= k << idx_shift;
 * the table's first row if none). The row covering rel, in page k, is
 * then among entries k .. k + 1 (inclusive; in the last page, from
 * entry k to the table's end). The entries are u32, two to a uw_rows
 * slot (8 bytes), right after the table's rows.
 *
 * A table's shift is the smallest (from FTFB_UW_IDX_MIN_SHIFT) that
 * gives it at most n / FTFB_UW_IDX_ROWS + 1 pages: the index costs at
 * most 1/16 of the rows' room and a slot, whatever the CFI says (a
 * crafted table's few rows spread over 4 GiB get large pages). Real
 * binaries have a row per ~40 bytes of code (libc, cc1, bash,
 * libstdc++, python3), so 512-byte pages, ~17 rows a page on average
 * (~26 weighted by rows): a search reads entries k and k + 1 (one
 * slot, or two side by side), then ~5 rows within ~200 bytes (3-4
 * cache lines of one page), not ~19 over the whole table (measured
 * beside a build: 4.5 steps a search, 18.8 before). 4 KiB pages would
 * make the index 8 times smaller (0.5% of the rows) but the search
 * ~150 rows wide: 8 steps (7.2 measured), ~6 cache lines; the time a
 * search took was the same within the noise of a shared VM (medians
 * 2.1 and 2.2 us, from 3.3 us without an index).
 *
 * Shared by the BPF walker (unwind.bpf.h), which reads the entries,
 * and the loader (src/stacks/native/uw_row_index.c), which writes them.
 */
#ifndef FTFB_UW_INDEX_H
#define FTFB_UW_INDEX_H

#include "unwind.h"

#ifndef __VMLINUX_H__
#include <stdbool.h>
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define FTFB_UW_IDX_ROWS 8	/* rows (at least) per entry */
#define FTFB_UW_IDX_MIN_SHIFT 4 /* pages of 16 bytes at the finest */
/* the uw_rows slots an index of `pages` entries takes */
#define FTFB_UW_IDX_SLOTS(pages) (((pages) + 1) / 2)
/* the uw_rows slot of table t's entry k, and which u32 of it */
#define FTFB_UW_IDX_SLOT(t, k) ((t)->first + (t)->n + ((k) >> 1))
#define FTFB_UW_IDX_HALF(k) ((k)&1)
/* the room the indexes of tables of `rows` rows in all can take, beside
 * those rows: n / 16 + 1 slots a table (FTFB_UW_IDX_ROWS), for up to
 * `tables` tables */
#define FTFB_UW_IDX_ROOM(rows, tables)                                         \
	((rows) / (2 * FTFB_UW_IDX_ROWS) + (tables))

/* The entry of table t (idx_pages > 0) for address rel: its page, or
 * the last page for an address beyond. */
static __always_inline __u32 ftfb_uw_idx_page(const struct ftfb_uw_table *t,
					      __u64 rel)
{
	__u64 k = rel >> (t->idx_shift & 63);

	return k < t->idx_pages ? (__u32)k : t->idx_pages - 1;
}

/* The rows of table t to search for an address in page k, [*lo, *hi),
 * from its entries k (at) and k + 1 (next; unused for the last page):
 * false, leaving them, if the entries are not of t (cannot happen: the
 * loader writes them; the whole table is searched then). */
static __always_inline bool ftfb_uw_idx_bounds(const struct ftfb_uw_table *t,
					       __u32 k, __u32 at, __u32 next,
					       __u32 *lo, __u32 *hi)
{
	__u32 end = t->first + t->n;
	__u32 h = k + 1 < t->idx_pages ? next + 1 : end;

	if (at < t->first || h > end || at >= h)
		return false;
	*lo = at;
	*hi = h;
	return true;
}

#endif
