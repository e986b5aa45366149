/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/common.bpf.h - maps and helpers shared by sched.bpf.c and
 * uprobe.bpf.c.
 *
 * Both objects declare the same maps; the loader creates them with the
 * sched object and hands their fds to the uprobe object
 * (bpf_map__reuse_fd), so userspace reads a single event stream and a
 * single set of counters.
 */
#ifndef FTFB_COMMON_BPF_H
#define FTFB_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "events.h"

/* Set by the loader before load (.rodata, so the verifier prunes the
 * branches that are off). */
const volatile bool filter_tgids = false; /* only traced_tgids (-p/--) */
const volatile __u32 nr_rings = 1;        /* entries used in `rings` */
const volatile __u64 wakeup_bytes = 0;    /* wake the reader past this */

/* Template of the ring buffers held by `rings`: the loader creates the
 * real ones (of its chosen size) and stores their fds in `rings`. */
struct ftfb_ringbuf {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

/* N ring buffers, event goes to rings[cpu % nr_rings]. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* set to nr_rings by the loader */
	__type(key, __u32);
	__array(values, struct ftfb_ringbuf);
} rings SEC(".maps");

/* tgids traced when filter_tgids is on; follows fork, cleared at exit. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} traced_tgids SEC(".maps");

/* Per-CPU counters indexed by FTFB_EV_*: events the programs tried to
 * emit, and those lost because the ring buffer was full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FTFB_EV_KIND_MAX);
	__type(key, __u32);
	__type(value, __u64);
} fired SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FTFB_EV_KIND_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline bool ftfb_traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
}

static __always_inline void ftfb_count(void *map, __u32 kind)
{
	__u64 *c = bpf_map_lookup_elem(map, &kind);

	if (c)
		*c += 1;
}

/* Reserve `size` bytes for an event of `kind` in this CPU's ring and fill
 * the header's kind and cpu. Counts the attempt in `fired`, a failure in
 * `drops`. *rbp receives the ring to submit to. */
static __always_inline void *ftfb_reserve(void **rbp, __u32 kind, __u32 size,
					  __u32 cpu)
{
	struct ftfb_hdr *h;
	__u32 idx = 0;
	void *rb;

	ftfb_count(&fired, kind);
	if (nr_rings > 1)
		idx = cpu % nr_rings;
	rb = bpf_map_lookup_elem(&rings, &idx);
	if (!rb) {
		ftfb_count(&drops, kind);
		return NULL;
	}
	h = bpf_ringbuf_reserve(rb, size, 0);
	if (!h) {
		ftfb_count(&drops, kind);
		return NULL;
	}
	h->kind = kind;
	h->cpu = cpu;
	h->_pad = 0;
	*rbp = rb;
	return h;
}

/* Submit without waking the reader until the ring holds wakeup_bytes:
 * the reader's epoll timeout picks up smaller amounts. */
static __always_inline void ftfb_submit(void *rb, void *ev)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(ev, flags);
}

#endif
