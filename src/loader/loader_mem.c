// SPDX-License-Identifier: MIT
/*
 * loader_mem.c - --events=mem: the resident memory and page fault object.
 */
#include "bpf_loader_priv.h"
#include "mem.skel.h"

ftfb_loader_attach_fn ftfb_loader_attach_mem; /* (its type checked) */

int ftfb_loader_attach_mem(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct mem_bpf *s;
	int err;

	if (ftfb_ld_source_started(l, "mem"))
		return 0;
	if (!(s = mem_bpf__open()))
		return ftfb_ld_open_failed("mem", errmsg, errlen);
	SET_COMMON_RODATA(l, s);
	s->rodata->nr_cpus = (__u32)l->ncpus;
	err = ftfb_ld_start_source(l, "mem", s->skeleton, s, errmsg, errlen);
	return err ? err : ftfb_ld_arm_source(l, &s->bss->armed);
}
