// SPDX-License-Identifier: MIT
/*
 * loader_irq.c - --events=irq: the hard and soft interrupt object.
 */
#include "bpf_loader_priv.h"
#include "irq.skel.h"

int ftfb_loader_attach_irq(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct irq_bpf *s;
	int err;

	if (ftfb_ld_source_started(l, "irq"))
		return 0;
	if (!(s = irq_bpf__open()))
		return ftfb_ld_open_failed("irq", errmsg, errlen);
	SET_COMMON_RODATA(l, s);
	err = ftfb_ld_start_source(l, "irq", s->skeleton, s, errmsg, errlen);
	return err ? err : ftfb_ld_arm_source(l, &s->bss->armed);
}
