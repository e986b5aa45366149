// SPDX-License-Identifier: MIT
/*
 * unwind_mmaps.c - the kernel's record of each executable file mapped
 * (mmap_watch.h), put to the loader's use: the mapping logged for the
 * stacks finished from a copy (mapped_log.h) and named for the
 * symbolizer (maps_memo.h), and the file's table built for a process
 * the walker has asked about, whether or not a read of its maps ever
 * shows it (a library dlopen'd and dlclose'd between two reads).
 */
#include <pthread.h>

#include "mapped_log.h"
#include "maps_memo.h"
#include "mmap_watch.h"
#include "unwind_maps_priv.h"

void ftfb_uwl_watch_mmaps(struct ftfb_uw_loader *u)
{
	/* (without perf events, the reads of /proc/PID/maps are all) */
	if (ftfb_mmap_watch_open(&u->mmaps, u->ncpus))
		u->mmaps = NULL;
	ftfb_mapped_watching(u->mmaps != NULL);
}

static void on_mmap(void *ctx, const struct ftfb_mmap_rec *r)
{
	struct ftfb_uw_loader *u = ctx;
	struct ftfb_uw_vma v = {r->start, r->end, r->pgoff, r->dev, r->ino};
	struct ftfb_memo_map m = {r->start, r->end, r->pgoff,
				  r->dev,   r->ino, (char *)r->path};
	struct binary *b;

	if (!r->path) {
		ftfb_mapped_exec(r->pid, r->ns);
		return;
	}
	u->st.mmaps_seen++;
	ftfb_mapped_put(r->pid, &v, r->ns);
	ftfb_maps_memo_put_mapped(r->pid, &m, ftfb_mapped_exec_ns(r->pid),
				  r->ns);
	/* (only for a process whose samples the walker took: with -p, or
	 * system-wide, not every file any process maps) */
	if (!ftfb_idtab_get(&u->rereads, r->pid))
		return;
	ftfb_uwl_mapped_since(u, r->pid);
	b = ftfb_uwl_binary_built(u, r->dev, r->ino);
	if (!b || b->table == FTFB_UW_TABLE_PENDING)
		ftfb_uwl_queue_build(u, r->path, r->dev, r->ino, r->pid,
				     r->start, r->end);
}

/* (a record is written a few microseconds after its time is taken: one
 * of a time this close to the drain's start may not be in the ring yet) */
#define DRAIN_MARGIN_NS 1000000ull

void ftfb_uwl_take_mmaps(struct ftfb_uw_loader *u)
{
	uint64_t from = ftfb_uwl_mono_ns();

	if (!u->mmaps)
		return;
	ftfb_mmap_watch_drain(u->mmaps, on_mmap, u);
	u->st.mmaps_lost = ftfb_mmap_watch_lost(u->mmaps);
	ftfb_mapped_drained(from - DRAIN_MARGIN_NS);
}
