// SPDX-License-Identifier: MIT
/*
 * loader_blockio.c - --events=io: the block request object.
 */
#include "bpf_loader_priv.h"
#include "blockio.skel.h"

ftfb_loader_attach_fn ftfb_loader_attach_blockio; /* (its type checked) */

int ftfb_loader_attach_blockio(struct ftfb_loader *l, char *errmsg,
			       size_t errlen)
{
	struct blockio_bpf *s;
	int err;

	if (ftfb_ld_source_started(l, "io"))
		return 0;
	if (!(s = blockio_bpf__open()))
		return ftfb_ld_open_failed("io", errmsg, errlen);
	SET_COMMON_RODATA(l, s);
	err = ftfb_ld_start_source(l, "io", s->skeleton, s, errmsg, errlen);
	return err ? err : ftfb_ld_arm_source(l, &s->bss->armed);
}
