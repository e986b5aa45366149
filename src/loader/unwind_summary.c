// SPDX-License-Identifier: MIT
/*
 * unwind_summary.c - the summary's lines about the user stacks walked and
 * the unwind tables loaded (see unwind_maps.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include "unwind_maps.h"

void ftfb_uw_print_summary(const struct ftfb_uw_stats *st, FILE *f)
{
	static const char *const why[FTFB_UW_NREASONS] = {
		"complete",
		"tables not loaded yet",
		"address in no mapping",
		"no CFI",
		"unsupported CFI rule",
		"stack not readable",
		"depth limit",
		"bad frame",
		"signal frame",
		"CFI over budget",
	};
	bool first = true;
	uint64_t ks = st->kstacks_found + st->kstacks_unwound;
	uint64_t us = st->ustacks_found + st->ustacks_walked;

	if (ks || us)
		fprintf(f,
			"  stacks of threads blocking found again from chains "
			"seen before (checked against the stack): kernel %llu "
			"of %llu (%.1f%%), user %llu of %llu (%.1f%%)\n",
			(unsigned long long)st->kstacks_found,
			(unsigned long long)ks,
			ks ? 100.0 * (double)st->kstacks_found / (double)ks
			   : 0.0,
			(unsigned long long)st->ustacks_found,
			(unsigned long long)us,
			us ? 100.0 * (double)st->ustacks_found / (double)us
			   : 0.0);
	if (!st->stacks)
		return;
	if (st->tails_found || st->tails_refused)
		fprintf(f,
			"  user stacks ended with frames of their thread's last "
			"walk (checked against the stack): %llu (%.1f%% of those "
			"walked); %llu refused (the stack had changed)\n",
			(unsigned long long)st->tails_found,
			100.0 * (double)st->tails_found / (double)st->stacks,
			(unsigned long long)st->tails_refused);
	fprintf(f,
		"  user stacks: %llu walked:", (unsigned long long)st->stacks);
	for (int i = 0; i < FTFB_UW_NREASONS; i++) {
		if (!st->ended[i])
			continue;
		fprintf(f, "%s %llu %s (%.1f%%)", first ? "" : ",",
			(unsigned long long)st->ended[i],
			i ? why[i] : "complete",
			100.0 * (double)st->ended[i] / (double)st->stacks);
		first = false;
	}
	fprintf(f,
		"\n  unwind tables: %llu binaries, %llu of %llu rows, %llu "
		"process entries written; %.0f ms building",
		(unsigned long long)st->binaries, (unsigned long long)st->rows,
		(unsigned long long)st->max_rows,
		(unsigned long long)st->processes, (double)st->build_ns / 1e6);
	if (st->no_cfi_files)
		fprintf(f, "; %llu files without usable CFI",
			(unsigned long long)st->no_cfi_files);
	if (st->table_space_full)
		fprintf(f, "; %llu binaries left out (table space full)",
			(unsigned long long)st->table_space_full);
	if (st->left_busy)
		fprintf(f, "; the stop did not wait for a build under way");
	/* (lost: a library mapped then is walked only from the reads of
	 * /proc/PID/maps) */
	if (st->mmaps_lost)
		fprintf(f, "; %llu of the kernel's mmap records lost",
			(unsigned long long)st->mmaps_lost);
	fputc('\n', f);
	if (st->cache_read || st->cache_written || st->cache_refused)
		fprintf(f,
			"  unwind cache: %llu tables read, %llu written, %llu "
			"files refused\n",
			(unsigned long long)st->cache_read,
			(unsigned long long)st->cache_written,
			(unsigned long long)st->cache_refused);
	if (st->cache_msg[0])
		fprintf(f, "  %s\n", st->cache_msg);
	ftfb_uw_print_skips(st->skipped, st->over_budget, f);
}
