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

#include "unwind_maps.h"

/* The rows a binary's table may have: the builder's FTFB_UW_MAX_ROWS,
 * or fewer for the tests (FTFB_FAULT_UW_MAX_ROWS=N: a crafted library
 * over it, the system's under it, without millions of rows). */
uint32_t ftfb_uw_row_budget(void);
/* Fills s: path (as /proc/PID/maps names it: chosen by the traced
 * process's user, so made safe for a terminal), the build's result rc
 * (-E2BIG or -ETIMEDOUT) and the limit it went over. */
void ftfb_uw_skip_fill(struct ftfb_uw_skip *s, const char *path, int rc,
		       uint64_t limit, bool no_room);
/* The summary's lines about st->skipped: one per binary named, then
 * how many more there were. */
void ftfb_uw_print_skips(const struct ftfb_uw_stats *st, FILE *f);

#endif
