// SPDX-License-Identifier: MIT
/*
 * unwind_skips.c - a binary's budget of unwind table rows, and the
 * binaries whose table a build's budget refused (see unwind_skips.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safe_name.h"
#include "unwind_skips.h"
#include "unwind_table.h"

uint32_t ftfb_uw_row_budget(void)
{
	const char *s = getenv("FTFB_FAULT_UW_MAX_ROWS");
	unsigned long n = s ? strtoul(s, NULL, 10) : 0;

	return n && n < FTFB_UW_MAX_ROWS ? (uint32_t)n : FTFB_UW_MAX_ROWS;
}

void ftfb_uw_skip_fill(struct ftfb_uw_skip *s, const char *path, int rc,
		       uint64_t limit, bool no_room)
{
	snprintf(s->path, sizeof(s->path), "%s", path);
	ftfb_safe_name(s->path, sizeof(s->path) - 1);
	s->limit = limit;
	s->no_room = no_room;
	s->rc = rc;
}

static void print_skip(const struct ftfb_uw_skip *s, FILE *f)
{
	fprintf(f, "  unwind tables: %s skipped: ", s->path);
	if (s->rc == -ETIMEDOUT)
		fprintf(f,
			"CFI over budget (more than %.1f s of CPU to read)\n",
			(double)s->limit / 1e9);
	else if (s->no_room)
		fprintf(f,
			"CFI over budget (more than the %llu rows left in the "
			"table space)\n",
			(unsigned long long)s->limit);
	else
		fprintf(f, "CFI over budget (more than %llu rows)\n",
			(unsigned long long)s->limit);
}

void ftfb_uw_print_skips(const struct ftfb_uw_skip *skipped,
			 uint64_t over_budget, FILE *f)
{
	uint64_t shown = 0;

	for (int i = 0; i < FTFB_UW_SKIPS_SHOWN && skipped[i].rc; i++) {
		print_skip(&skipped[i], f);
		shown++;
	}
	if (over_budget > shown)
		fprintf(f, "  unwind tables: and %llu more binaries skipped\n",
			(unsigned long long)(over_budget - shown));
}
