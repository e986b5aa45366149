/* SPDX-License-Identifier: MIT */
/*
 * unwind_table.h - the unwind table of one ELF binary, for the BPF stack
 * walker (bpf/unwind.h has the row format).
 *
 * Built from the binary's .eh_frame: the FDEs are listed by its
 * .eh_frame_hdr search table (PT_GNU_EH_FRAME, which linkers always
 * write and `strip` keeps), and each FDE's CFI is run once, from its
 * start to its end (cfi_run.h), into rows: the rules that hold from each
 * row's address to the next one's. Addresses no FDE covers get a "no
 * CFI" row, so the walker stops there rather than guess. Consecutive
 * rows with the same rules are merged.
 *
 * The CFI is whatever the binary's owner wrote, and root reads it: the
 * time is linear in its size, and each build has a budget of rows and
 * CPU time (FTFB_UW_MAX_ROWS, FTFB_UW_MAX_BUILD_NS); a binary over budget
 * gets no table (its stacks stop at it, "CFI over budget") and an error.
 *
 * Rows are in the binary's ELF virtual addresses minus `base` (its lowest
 * covered address), so they fit 32 bits; the PT_LOAD segments are kept
 * to place a mapping (file offset) at its virtual address.
 */
#ifndef FTFB_UNWIND_TABLE_H
#define FTFB_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"
#include "uw_built.h"

/* The table of the ELF file at path (0), or a negative errno and one
 * line in err: -ENOENT etc. (cannot open), -ENOEXEC (not an x86-64 ELF
 * file), -ENODATA (no .eh_frame_hdr / .eh_frame: no CFI to build from),
 * -ENOMEM, -ERANGE (code over 4 GiB), -E2BIG (more rows than the
 * budget), -ETIMEDOUT (more time than the budget), -ECANCELED. */
int ftfb_uw_table_from_file_opts(const char *path,
				 const struct ftfb_uw_build_opts *o,
				 struct ftfb_uw_table_built *t, char *err,
				 size_t errlen);
/* The same with the default budget, never cancelled. */
int ftfb_uw_table_from_file(const char *path, struct ftfb_uw_table_built *t,
			    char *err, size_t errlen);
/* The same from fd, a regular file opened to read (not closed), named
 * path in err; o as for _from_file_opts (NULL: the default budget). */
int ftfb_uw_table_from_fd(int fd, const char *path,
			  const struct ftfb_uw_build_opts *o,
			  struct ftfb_uw_table_built *t, char *err,
			  size_t errlen);
/* The same from an ELF image in memory (the vDSO). */
int ftfb_uw_table_from_memory_opts(const void *image, size_t size,
				   const struct ftfb_uw_build_opts *o,
				   struct ftfb_uw_table_built *t, char *err,
				   size_t errlen);
int ftfb_uw_table_from_memory(const void *image, size_t size,
			      struct ftfb_uw_table_built *t, char *err,
			      size_t errlen);
void ftfb_uw_table_free(struct ftfb_uw_table_built *t);

/* The row that covers virtual address vaddr, NULL if it is below the
 * table (above it, the last row: "no CFI"). */
const struct ftfb_uw_row *
ftfb_uw_table_lookup(const struct ftfb_uw_table_built *t, uint64_t vaddr);

/* The bias of a mapping of file offset pgoff at address start: an
 * address pc of it is at virtual address pc - bias. 0, or -ENOENT when
 * no executable segment holds pgoff. */
int ftfb_uw_table_bias(const struct ftfb_uw_table_built *t, uint64_t start,
		       uint64_t pgoff, uint64_t *bias);

/* The table of this process's vDSO (the same image in every process). */
int ftfb_uw_table_from_vdso(struct ftfb_uw_table_built *t, char *err,
			    size_t errlen);

/* The name of a stop frame's address (FTFB_UW_STOP_IP: why a user
 * stack walk ended there), NULL if ip is not one. */
const char *ftfb_uw_stop_name(uint64_t ip);

#endif
