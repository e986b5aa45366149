// SPDX-License-Identifier: MIT
/*
 * loader_syscalls.c - --syscalls: the raw_syscalls object, its list of
 * wanted calls and the one process to record set before its load.
 */
#include <errno.h>
#include <string.h>

#include "bpf_loader_priv.h"
#include "syscalls.skel.h"

int ftfb_loader_attach_syscalls(struct ftfb_loader *l, const uint8_t *wanted,
				uint32_t only_tgid, char *errmsg, size_t errlen)
{
	struct syscalls_bpf *s;
	int err;

	if (l->sys)
		return 0;
	s = syscalls_bpf__open();
	if (!s) {
		err = -errno;
		ftfb_ld_set_err(errmsg, errlen,
				"opening the system call programs failed: %s",
				ftfb_ld_errstr(err));
		return err;
	}
	SET_COMMON_RODATA(l, s);
	s->rodata->nargs = l->opts.uprobe_nargs;
	s->rodata->use_list = wanted != NULL;
	s->rodata->only_tgid = only_tgid;
	if (wanted)
		memcpy((void *)s->rodata->wanted, wanted, FTFB_NR_SYSCALLS);
	err = ftfb_ld_share_maps(l, s->obj);
	if (!err)
		err = syscalls_bpf__load(s);
	if (err) {
		ftfb_ld_set_err(errmsg, errlen,
				"loading the system call programs failed: %s%s",
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
		syscalls_bpf__destroy(s);
		return err;
	}
	l->sys = s;
	err = ftfb_ld_start_flushers(l, errmsg, errlen);
	for (int i = 0; !err && i < 2; i++) {
		struct bpf_program *p =
			i ? s->progs.ftfb_sys_exit : s->progs.ftfb_sys_enter;
		struct bpf_link *link = bpf_program__attach(p);

		if (!link) {
			err = -errno;
			ftfb_ld_set_err(
				errmsg, errlen, "attaching %s failed: %s%s",
				bpf_program__section_name(p),
				ftfb_ld_errstr(err),
				err == -EPERM ? ftfb_ld_load_hint(err) : "");
		} else if ((err = ftfb_ld_add_link(&l->links, link))) {
			bpf_link__destroy(link);
			ftfb_ld_set_err(errmsg, errlen, "out of memory");
		}
	}
	if (!err) /* both there: entries and exits start together */
		__atomic_store_n(&s->bss->armed, 1, __ATOMIC_RELEASE);
	return err;
}
