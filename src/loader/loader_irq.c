// SPDX-License-Identifier: MIT
/*
 * loader_irq.c - --events=irq: the hard and soft interrupt object, with
 * the system vectors' tracepoints (irq_vectors) where the kernel has them.
 */
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "bpf_loader_priv.h"
#include "irq.skel.h"

/* Loads obj's optional programs ("?tp_btf/NAME") whose tracepoint this
 * kernel has (its BTF names btf_trace_NAME: x86's irq_vectors, say). */
static void load_present_tracepoints(struct bpf_object *obj)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_program *prog;
	char type[128];

	bpf_object__for_each_program(prog, obj)
	{
		const char *sec = bpf_program__section_name(prog);

		/* (libbpf gives the name without its "?", autoload off) */
		if (bpf_program__autoload(prog) || strncmp(sec, "tp_btf/", 7))
			continue;
		snprintf(type, sizeof(type), "btf_trace_%s", sec + 7);
		bpf_program__set_autoload(
			prog, vmlinux && btf__find_by_name_kind(
						 vmlinux, type,
						 BTF_KIND_TYPEDEF) > 0);
	}
	btf__free(vmlinux);
}

ftfb_loader_attach_fn ftfb_loader_attach_irq; /* (its type checked) */

int ftfb_loader_attach_irq(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct irq_bpf *s;
	int err;

	if (ftfb_ld_source_started(l, "irq"))
		return 0;
	if (!(s = irq_bpf__open()))
		return ftfb_ld_open_failed("irq", errmsg, errlen);
	SET_COMMON_RODATA(l, s);
	load_present_tracepoints(s->obj);
	err = ftfb_ld_start_source(l, "irq", s->skeleton, s, errmsg, errlen);
	return err ? err : ftfb_ld_arm_source(l, &s->bss->armed);
}
