/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/ubuf.h - the per-CPU buffer of uprobe events (map `ubufs`, see
 * common.bpf.h), shared by the BPF programs and the loader, which reads
 * the buffers' tails at stop through an mmap of the map.
 */
#ifndef FTFB_UBUF_H
#define FTFB_UBUF_H

#include "events.h"

#define FTFB_UBUF_BYTES 4000

/* busy values (0: free) */
#define FTFB_UBUF_APPENDING 1 /* a uprobe program appends */
#define FTFB_UBUF_FLUSHING 2  /* a sched program or the loader flushes */

struct ftfb_ubuf {
	__u64 busy;    /* 64 bits: clang 14 has no 32-bit BPF cmpxchg */
	__u32 n_entry; /* events of each kind in data[] */
	__u32 n_ret;
	/* Events appended to this buffer since load, by kind: part of the
	 * `fired` counts (kept here, in the cache line the append touches
	 * anyway, rather than in the `fired` map: measured cheaper). */
	__u64 fired_entry;
	__u64 fired_ret;
	struct ftfb_batch batch; /* batch.len: bytes used in data[] */
	__u8 data[FTFB_UBUF_BYTES];
};

#endif
