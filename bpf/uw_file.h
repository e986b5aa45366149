/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/uw_file.h - where a mapping of a file puts the rows of the file's
 * table (struct ftfb_uw_file, bpf/unwind.h): the one reading of it for
 * the BPF refresh of an ended image's entry (uw_refresh.bpf.h) and for
 * userspace, which resolves the tables of an ended image that were still
 * being built when it ended (src/stacks/native/stack_finish.c). The
 * loader works the same bias out from its own segments
 * (ftfb_uw_table_bias).
 */
#ifndef FTFB_UW_FILE_H
#define FTFB_UW_FILE_H

#include "unwind.h"

#ifndef __VMLINUX_H__
#include <stdbool.h>
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* The bias (ftfb_uw_map.bias) of a mapping of file f at start from file
 * offset pgoff; false if no executable segment of f holds pgoff. */
static __always_inline bool ftfb_uw_file_bias(const struct ftfb_uw_file *f,
					      __u64 start, __u64 pgoff,
					      __u64 *bias)
{
	for (__u32 i = 0; i < FTFB_UW_FILE_SEGS; i++) {
		const struct ftfb_uw_file_seg *s = &f->segs[i];

		if (i >= f->nsegs)
			break;
		/* the mapping starts on the page that holds the segment's
		 * first byte, or inside the segment */
		if (pgoff >= (s->offset & ~0xfffull) &&
		    pgoff < s->offset + s->filesz) {
			*bias = start - pgoff - (s->vaddr - s->offset) +
				f->base;
			return true;
		}
	}
	return false;
}

#endif
