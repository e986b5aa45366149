// SPDX-License-Identifier: MIT
/*
 * loader_usdt.c - -u usdt:...: the USDT object, loaded on the first attach;
 * one link per probe, armed with the uprobes (loader_uprobe.c).
 */
#include <errno.h>

#include "bpf_loader_priv.h"
#include "usdt.skel.h"

static int load_usdt(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct usdt_bpf *u = usdt_bpf__open();
	int err;

	if (!u) {
		err = -errno;
		ftfb_ld_set_err(errmsg, errlen,
				"opening the USDT program failed: %s",
				ftfb_ld_errstr(err));
		return err;
	}
	SET_COMMON_RODATA(l, u);
	err = ftfb_ld_share_maps(l, u->obj);
	if (!err)
		err = usdt_bpf__load(u);
	if (err) {
		ftfb_ld_set_err(errmsg, errlen,
				"loading the USDT program failed: %s%s",
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
		usdt_bpf__destroy(u);
		return err;
	}
	l->usdt = u;
	return 0;
}

int ftfb_loader_attach_usdt(struct ftfb_loader *l, const char *binary_path,
			    const char *provider, const char *name,
			    uint64_t cookie, int pid, char *errmsg,
			    size_t errlen)
{
	LIBBPF_OPTS(bpf_usdt_opts, uo, .usdt_cookie = cookie);
	struct bpf_link *link;
	int err;

	if (!l->usdt && (err = load_usdt(l, errmsg, errlen)))
		return err;
	err = ftfb_ld_start_flushers(l, errmsg, errlen);
	if (err)
		return err;
	link = bpf_program__attach_usdt(l->usdt->progs.ftfb_usdt, pid,
					binary_path, provider, name, &uo);
	if (!link) {
		err = -errno;
		ftfb_ld_set_err(errmsg, errlen,
				"attaching USDT probe %s:%s in %s failed: %s%s",
				provider, name, binary_path,
				ftfb_ld_errstr(err),
				err == -EPERM ? ftfb_ld_load_hint(err) : "");
		return err;
	}
	err = ftfb_ld_add_link(&l->ulinks, link);
	if (err) {
		bpf_link__destroy(link);
		ftfb_ld_set_err(errmsg, errlen, "out of memory");
	}
	return err;
}
