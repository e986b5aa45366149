/* SPDX-License-Identifier: MIT */
/*
 * unwind_skips.h - a binary's budget of unwind table rows, and the
 * binaries whose table a build's budget refused (unwind_maps.h),
 * recorded for the summary, one line each.
 */
#ifndef FTFB_UNWIND_SKIPS_H
#define FTFB_UNWIND_SKIPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A binary whose table its build's budget refused: its stacks stop at
 * it ("CFI over budget"); the summary names the first few. */
#define FTFB_UW_SKIPS_SHOWN 4
struct ftfb_uw_skip {
	char path[200];	 /* made safe for a terminal (safe_name.h) */
	uint64_t limit;	 /* rows (-E2BIG) or ns of CPU (-ETIMEDOUT) */
	int32_t rc;	 /* -E2BIG, -ETIMEDOUT; 0: no entry */
	int32_t no_room; /* the rows limit was the room left in uw_rows */
};

/* The rows a binary's table may have: the builder's FTFB_UW_MAX_ROWS,
 * or fewer for the tests (FTFB_FAULT_UW_MAX_ROWS=N: a crafted library
 * over it, the system's under it, without millions of rows). */
uint32_t ftfb_uw_row_budget(void);
/* Fills s: path (as /proc/PID/maps names it: chosen by the traced
 * process's user, so made safe for a terminal), the build's result rc
 * (-E2BIG or -ETIMEDOUT) and the limit it went over. */
void ftfb_uw_skip_fill(struct ftfb_uw_skip *s, const char *path, int rc,
		       uint64_t limit, bool no_room);
/* The summary's lines about skipped (FTFB_UW_SKIPS_SHOWN entries, the
 * first with rc 0 ending them): one per binary named, then how many more
 * of the over_budget there were. */
void ftfb_uw_print_skips(const struct ftfb_uw_skip *skipped,
			 uint64_t over_budget, FILE *f);

#endif
