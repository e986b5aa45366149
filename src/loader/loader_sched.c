// SPDX-License-Identifier: MIT
/*
 * loader_sched.c - the sched object: the shared maps' owner, loaded with
 * the loader itself; its programs attached at open (all, or with
 * --no-sched only the buffer flushers, attached with the first source
 * that buffers per cpu).
 */
#include <errno.h>
#include <string.h>

#include "bpf_loader_priv.h"
#include "sched.skel.h"
#include "ubuf.h"

/* Attached with the uprobes even with --no-sched: switch, exit and exec
 * flush the uprobe buffers; exit, exec, fork and rename also keep the
 * process/thread names and the slices right (a thread that exits or
 * execs has its open calls closed). Only switch is silent then. */
static const char *const flusher_progs[] = {
	"ftfb_switch", "ftfb_exit", "ftfb_exec", "ftfb_fork", "ftfb_rename"};

bool ftfb_ld_is_flusher(const struct bpf_program *prog)
{
	for (size_t i = 0; i < sizeof(flusher_progs) / sizeof(*flusher_progs);
	     i++)
		if (!strcmp(bpf_program__name(prog), flusher_progs[i]))
			return true;
	return false;
}

/* Attach the sched programs (all, or only the buffer flushers). */
int ftfb_ld_attach_sched(struct ftfb_loader *l, bool flushers_only,
			 char *errmsg, size_t errlen)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, l->sched->obj)
	{
		struct bpf_link *link;

		if (prog == l->sched->progs.ftfb_prefault ||
		    (flushers_only && !ftfb_ld_is_flusher(prog)))
			continue;
		link = bpf_program__attach(prog);

		if (!link) {
			int err = -errno;

			ftfb_ld_set_err(
				errmsg, errlen, "attaching %s failed: %s%s",
				bpf_program__section_name(prog),
				ftfb_ld_errstr(err),
				err == -EPERM ? ftfb_ld_load_hint(err)
					      : ": tp_btf not supported by "
						"this kernel?");
			return err;
		}
		if (ftfb_ld_add_link(&l->links, link)) {
			bpf_link__destroy(link);
			ftfb_ld_set_err(errmsg, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* The sched object: opened, its knobs set (the maps sized: rings, one
 * uprobe buffer per CPU), only the buffer flushers with --no-sched,
 * loaded. */
int ftfb_ld_load_sched(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	const struct ftfb_loader_opts *opts = &l->opts;
	int err;

	l->sched = sched_bpf__open();
	if (!l->sched) {
		err = -errno;
		ftfb_ld_set_err(errmsg, errlen,
				"opening the BPF object failed: %s",
				ftfb_ld_errstr(err));
		return err;
	}
	l->sched->rodata->filter_tgids = opts->filter_tgids;
	l->sched->rodata->nr_rings = l->nr_rings;
	l->sched->rodata->wakeup_bytes = l->opts.ring_bytes / 4;
	l->sched->rodata->emit_sched = opts->sched;
	/* one pass through each ring, in records of one full buffer */
	l->sched->rodata->prefault_records =
		l->opts.ring_bytes /
			(sizeof(struct ftfb_batch) + FTFB_UBUF_BYTES + 8) +
		1;
	bpf_map__set_max_entries(l->sched->maps.rings, l->nr_rings);
	bpf_map__set_max_entries(l->sched->maps.ubufs, l->ncpus);
	if (!opts->sched) {
		struct bpf_program *prog;

		/* only the uprobe buffer flushers, attached with uprobes */
		bpf_object__for_each_program(
			prog, l->sched->obj) if (!ftfb_ld_is_flusher(prog) &&
						 prog != l->sched->progs
								 .ftfb_prefault)
			bpf_program__set_autoload(prog, false);
	}
	err = sched_bpf__load(l->sched);
	if (err) {
		ftfb_ld_set_err(errmsg, errlen, "BPF load failed: %s%s",
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
		return err;
	}
	return 0;
}

/* The sched programs flush the per-cpu buffers from now on (before the
 * first event can be buffered); with --no-sched, only the flushers are
 * attached, here. */
int ftfb_ld_start_flushers(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	int err;

	if (l->flushers)
		return 0;
	if (!l->opts.sched) {
		err = ftfb_ld_attach_sched(l, true, errmsg, errlen);
		if (err)
			return err;
	}
	l->sched->bss->ubuf_active = 1;
	l->flushers = true;
	return 0;
}
