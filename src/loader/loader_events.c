// SPDX-License-Identifier: MIT
/*
 * loader_events.c - what the --events sources share: each is one object,
 * opened by its own file (loader_blockio.c, ...) with its rodata set (the
 * common ones by SET_COMMON_RODATA), then loaded, attached and armed
 * here, and kept in the loader's table of sources, which stops and
 * closes them with the others.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_loader_priv.h"

bool ftfb_ld_source_started(const struct ftfb_loader *l, const char *name)
{
	for (int i = 0; i < l->nsrc; i++)
		if (!strcmp(l->src[i].name, name))
			return true;
	return false;
}

/* Keeps the source's object in l->src (closed with l from now on), loads
 * it (its shared maps the sched object's; through its skeleton, whose
 * .bss then maps the kernel's) and attaches every program. */
int ftfb_ld_start_source(struct ftfb_loader *l, const char *name,
			 struct bpf_object_skeleton *sk, void *skel,
			 char *errmsg, size_t errlen)
{
	struct bpf_object *obj = *sk->obj;
	struct bpf_program *prog;
	int err;

	if (l->nsrc == FTFB_LD_MAX_SOURCES) {
		bpf_object__destroy_skeleton(sk);
		free(skel);
		ftfb_ld_set_err(errmsg, errlen, "too many event sources");
		return -ENOSPC;
	}
	l->src[l->nsrc++] = (struct ftfb_ld_source){name, sk, skel, NULL};
	err = ftfb_ld_share_maps(l, obj);
	if (!err)
		err = bpf_object__load_skeleton(sk);
	if (err) {
		ftfb_ld_set_err(errmsg, errlen,
				"loading the %s programs failed: %s%s", name,
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
		return err;
	}
	bpf_object__for_each_program(prog, obj)
	{
		if (!bpf_program__autoload(prog))
			continue; /* an optional one this kernel lacks */
		err = ftfb_ld_keep_link(l, bpf_program__attach(prog));
		if (err) {
			ftfb_ld_set_err(errmsg, errlen,
					"attaching %s failed: %s%s "
					"(--events=%s needs this tracepoint)",
					bpf_program__section_name(prog),
					ftfb_ld_errstr(err),
					ftfb_ld_load_hint(err), name);
			return err;
		}
	}
	return 0;
}

/* The source records from now on (and stops with the others). */
int ftfb_ld_arm_source(struct ftfb_loader *l, volatile __u32 *armed)
{
	l->src[l->nsrc - 1].armed = armed;
	__atomic_store_n(armed, 1, __ATOMIC_RELEASE);
	return 0;
}

int ftfb_ld_open_failed(const char *what, char *errmsg, size_t errlen)
{
	int err = -errno;

	ftfb_ld_set_err(errmsg, errlen, "opening the %s programs failed: %s",
			what, ftfb_ld_errstr(err));
	return err;
}
