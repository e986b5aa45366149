/* SPDX-License-Identifier: MIT */
/*
 * cfi_table.h - a binary's unwind rows from its .eh_frame_hdr search
 * table and its .eh_frame, both already in memory (unwind_table.c finds
 * them in the ELF file; the fuzz target gives them directly).
 */
#ifndef FTFB_CFI_TABLE_H
#define FTFB_CFI_TABLE_H

#include "eh_frame.h"
#include "uw_built.h"

/* The virtual address of .eh_frame, from .eh_frame_hdr: 0, or -ENODATA
 * when the header cannot be read. */
int ftfb_cfi_hdr_frame(const struct ftfb_ehf_buf *hdr, uint64_t *vaddr);

/* The rows of the FDEs hdr lists, read from ehf, into t (whose segs the
 * caller fills): 0, or a negative errno and one line in err, prefixed
 * with what (see ftfb_uw_table_from_file_opts). */
int ftfb_cfi_table(const struct ftfb_ehf_buf *hdr,
		   const struct ftfb_ehf_buf *ehf,
		   const struct ftfb_uw_build_opts *o,
		   struct ftfb_uw_table_built *t, char *err, size_t errlen,
		   const char *what);

#endif
