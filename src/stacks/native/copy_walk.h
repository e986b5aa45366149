/* SPDX-License-Identifier: MIT */
/*
 * copy_walk.h - the user stack walk of the BPF walker (bpf/unwind.bpf.h),
 * finished in userspace over a copy of the stack's bytes: for a sample
 * taken before its binary's unwind table was loaded (bpf/stackcopy.h).
 *
 * The same steps as the kernel's: the mapping of pc in the process's
 * entry, the row of pc (pc - 1 for a return address) in its table, the
 * CFA by that row (bpf/uw_rule.h, shared), the return address at CFA - 8
 * and the caller's rbp where the row says; code without CFI by frame
 * pointer. Memory is read only from the copy: a read outside it ends the
 * walk "stack not readable". What the kernel alone can see (a thread's
 * uprobe state) ends it "unsupported".
 *
 * Every input is the traced process's (its stack bytes, its registers):
 * the walk is bounded (FTFB_STACK_MAX_DEPTH frames, one binary search a
 * frame) and reads nothing outside the buffers it is given.
 */
#ifndef FTFB_COPY_WALK_H
#define FTFB_COPY_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind.h"

/* The tables: a process's entry as the walker's map holds it, and its
 * binaries' rows. table() gives uw_tables[id] (0, or -1: none). */
struct ftfb_cw_tables {
	const struct ftfb_uw_proc *proc;
	const struct ftfb_uw_row *rows;
	uint32_t nrows;
	int (*table)(void *ctx, uint32_t id, struct ftfb_uw_table *out);
	void *ctx;
};

/* Where the walk resumes: the registers of the frame the kernel's walk
 * stopped at (its pc already recorded), and the stack copied from sp. */
struct ftfb_cw_start {
	uint64_t pc, sp, bp;
	bool bp_known;
	bool retaddr; /* pc is a return address (its row: pc - 1) */
	const uint8_t *bytes;
	uint32_t nbytes;
};

/* Walks from s: the callers of s->pc go to out (at most max), outermost
 * last; returns how many, and in *reason how it ended (FTFB_UW_*:
 * FTFB_UW_COMPLETE at the outermost frame). */
uint32_t ftfb_cw_walk(const struct ftfb_cw_tables *t,
		      const struct ftfb_cw_start *s, uint64_t *out,
		      uint32_t max, uint32_t *reason);

/* The mapping of pc in p, or NULL. */
const struct ftfb_uw_map *ftfb_cw_find_map(const struct ftfb_uw_proc *p,
					   uint64_t pc);

#endif
