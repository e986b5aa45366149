// SPDX-License-Identifier: MIT
/*
 * loader_uprobe.c - -u SPEC: the uprobe object, loaded on the first attach
 * (with uprobe_multi programs where the kernel has them), its entry and
 * return links, armed together, and its programs' statistics.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_loader_priv.h"
#include "uprobe.skel.h"
#include "usdt.skel.h"

static int load_uprobe(struct ftfb_loader *l, bool multi)
{
	struct uprobe_bpf *u = uprobe_bpf__open();
	int err;

	if (!u)
		return -errno;
	SET_COMMON_RODATA(l, u);
	u->rodata->nargs = l->opts.uprobe_nargs;
	if ((err = ftfb_ld_share_maps(l, u->obj)))
		goto fail;
	if (!multi) {
		bpf_program__set_autoload(u->progs.ftfb_uentry_multi, false);
		bpf_program__set_autoload(u->progs.ftfb_uret_multi, false);
	}
	err = uprobe_bpf__load(u);
	if (err)
		goto fail;
	l->up = u;
	l->up_multi_loaded = multi;
	return 0;
fail:
	uprobe_bpf__destroy(u);
	return err;
}

/* Attach with two uprobe_multi links; 0 or -errno (links not kept). */
static int attach_multi(struct ftfb_loader *l, const char *path,
			const uint64_t *offs, const uint64_t *cookies, size_t n,
			int pid)
{
	struct bpf_link *entry, *ret;
	unsigned long *uoffs;
	int err;

	uoffs = malloc(n * sizeof(*uoffs));
	if (!uoffs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		uoffs[i] = offs[i];
	LIBBPF_OPTS(bpf_uprobe_multi_opts, eo, .offsets = uoffs,
		    .cookies = (const __u64 *)cookies, .cnt = n);
	LIBBPF_OPTS(bpf_uprobe_multi_opts, ro, .offsets = uoffs,
		    .cookies = (const __u64 *)cookies, .cnt = n,
		    .retprobe = true);
	/* The return link first and, in l->ulinks, before the entry link
	 * (links are destroyed last first): while only one of the two is
	 * there, calls show returns without entries (dropped, counted),
	 * never entries without returns (slices closed as unfinished). */
	ret = bpf_program__attach_uprobe_multi(l->up->progs.ftfb_uret_multi,
					       pid, path, NULL, &ro);
	if (!ret) {
		err = -errno;
		goto out;
	}
	entry = bpf_program__attach_uprobe_multi(l->up->progs.ftfb_uentry_multi,
						 pid, path, NULL, &eo);
	if (!entry) {
		err = -errno;
		bpf_link__destroy(ret);
		goto out;
	}
	err = ftfb_ld_add_link(&l->ulinks, ret);
	if (err) {
		bpf_link__destroy(entry);
		bpf_link__destroy(ret);
		goto out;
	}
	err = ftfb_ld_add_link(&l->ulinks, entry);
	if (err)
		bpf_link__destroy(entry); /* ret stays: closed with l */
out:
	free(uoffs);
	return err;
}

/* One link per function and kind; on failure the links made here are
 * destroyed. */
static int attach_single(struct ftfb_loader *l, const char *path,
			 const uint64_t *offs, const uint64_t *cookies,
			 size_t n, int pid, size_t *failed)
{
	size_t first = l->ulinks.n;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		/* return first, as in attach_multi */
		for (int r = 1; r >= 0 && !err; r--) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo,
				    .bpf_cookie = cookies[i], .retprobe = r);
			struct bpf_link *link = bpf_program__attach_uprobe_opts(
				r ? l->up->progs.ftfb_uret
				  : l->up->progs.ftfb_uentry,
				pid, path, offs[i], &uo);

			if (!link) {
				err = -errno;
				*failed = i;
			} else if ((err = ftfb_ld_add_link(&l->ulinks, link))) {
				bpf_link__destroy(link);
				*failed = i;
			}
		}
	}
	if (err) {
		while (l->ulinks.n > first)
			bpf_link__destroy(l->ulinks.v[--l->ulinks.n]);
	}
	return err;
}

void ftfb_loader_arm_uprobes(struct ftfb_loader *l, bool on)
{
	if (l->up)
		__atomic_store_n(&l->up->bss->armed, on ? 1 : 0,
				 __ATOMIC_RELEASE);
	if (l->usdt)
		__atomic_store_n(&l->usdt->bss->armed, on ? 1 : 0,
				 __ATOMIC_RELEASE);
}

int ftfb_loader_attach_uprobes(struct ftfb_loader *l, const char *binary_path,
			       const uint64_t *offs, const uint64_t *cookies,
			       size_t n, int pid, char *errmsg, size_t errlen)
{
	size_t failed = 0;
	int err, merr = 0;

	if (!n)
		return 0;
	if (!l->up) {
		err = -EOPNOTSUPP;
		if (!l->opts.uprobe_no_multi)
			err = load_uprobe(l, true);
		if (err) /* no uprobe_multi in this kernel? */
			err = load_uprobe(l, false);
		if (err) {
			ftfb_ld_set_err(
				errmsg, errlen,
				"loading the uprobe programs failed: %s%s",
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
			return err;
		}
	}
	err = ftfb_ld_start_flushers(l, errmsg, errlen);
	if (err)
		return err;
	if (l->up_multi_loaded) {
		merr = attach_multi(l, binary_path, offs, cookies, n, pid);
		if (!merr) {
			l->up_multi_used = true;
			return 0;
		}
		if (merr == -ENOMEM) {
			ftfb_ld_set_err(errmsg, errlen, "out of memory");
			return merr;
		}
	}
	err = attach_single(l, binary_path, offs, cookies, n, pid, &failed);
	if (err) {
		ftfb_ld_set_err(errmsg, errlen,
				"attaching uprobe to %s at offset 0x%llx "
				"failed: %s (error %d)%s%s%s%s",
				binary_path, (unsigned long long)offs[failed],
				ftfb_ld_errstr(err), -err,
				err == -EPERM ? ftfb_ld_load_hint(err) : "",
				merr ? "; uprobe_multi: " : "",
				merr ? ftfb_ld_errstr(merr) : "", "");
		return err;
	}
	return 0;
}

bool ftfb_loader_uprobe_multi(const struct ftfb_loader *l)
{
	return l->up_multi_used;
}

int ftfb_loader_uprobe_stats(struct ftfb_loader *l,
			     struct ftfb_prog_stats *entry,
			     struct ftfb_prog_stats *ret)
{
	int err;

	memset(entry, 0, sizeof(*entry));
	memset(ret, 0, sizeof(*ret));
	if (!l->up)
		return 0;
	if ((err = ftfb_ld_prog_stats(l->up->progs.ftfb_uentry_multi, entry)) ||
	    (err = ftfb_ld_prog_stats(l->up->progs.ftfb_uentry, entry)) ||
	    (err = ftfb_ld_prog_stats(l->up->progs.ftfb_uret_multi, ret)) ||
	    (err = ftfb_ld_prog_stats(l->up->progs.ftfb_uret, ret)))
		return err;
	return 0;
}
