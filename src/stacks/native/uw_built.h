/* SPDX-License-Identifier: MIT */
/*
 * uw_built.h - what a built unwind table is and a build's budget: the
 * types shared by the ELF side (unwind_table.h) and the rows' side
 * (cfi_table.h), below both so neither includes the other.
 */
#ifndef FTFB_UW_BUILT_H
#define FTFB_UW_BUILT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

#define FTFB_UW_MAX_SEGS 16

struct ftfb_uw_seg {
	uint64_t offset, vaddr, filesz;
};

struct ftfb_uw_table_built {
	struct ftfb_uw_row *rows; /* sorted by pc */
	size_t n;
	uint64_t base; /* the virtual address of row pc 0 */
	struct ftfb_uw_seg segs[FTFB_UW_MAX_SEGS]; /* PT_LOAD, executable */
	size_t nsegs;
};

/* A binary's budget: about 3 times the rows of the largest binaries
 * (Rust's libLLVM: 1.44 million, CUDA's libcublasLt: 0.78 million; 32
 * MiB of rows), and 5 seconds of CPU where those take 0.3 to 0.5. (A
 * caller with less room gives its own max_rows.) */
#define FTFB_UW_MAX_ROWS (4u << 20)
#define FTFB_UW_MAX_BUILD_NS (5ull * 1000000000)

/* How a build may be stopped; NULL or zeroed fields: the defaults. */
struct ftfb_uw_build_opts {
	/* polled every few thousand FDEs or instructions (and once before
	 * the first): true cancels the build (-ECANCELED) */
	bool (*cancelled)(void *arg);
	void *arg;
	size_t max_rows; /* 0: FTFB_UW_MAX_ROWS */
	uint64_t max_ns; /* 0: FTFB_UW_MAX_BUILD_NS (the thread's CPU time) */
};

#endif
