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
#include "ubuf.h"

/* Set by the loader before load (.rodata, so the verifier prunes the
 * branches that are off). */
const volatile bool filter_tgids = false; /* only traced_tgids (-p/--) */
const volatile __u32 nr_rings = 1;        /* entries used in `rings` */
const volatile __u64 wakeup_bytes = 0;    /* wake the reader past this */
/* false (--no-sched): no switch and wakeup events; the switch program
 * only flushes uprobe buffers, the lifecycle programs still report */
const volatile bool emit_sched = true;

/* Set by the loader (.bss) before it attaches uprobes: from then on the
 * sched programs flush the threads' uprobe buffers. */
__u32 ubuf_active = 0;

/* Template of the ring buffers held by `rings`: the loader creates the
 * real ones (of its chosen size) and stores their fds in `rings`. */
struct ftfb_ringbuf {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};

/* N ring buffers: switches and wakeups go to rings[cpu % nr_rings], the
 * rest to rings[0] (see ftfb_ring_of). */
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

/* Per-CPU buffers of uprobe events (see struct ftfb_batch). A uprobe
 * program appends its event to its CPU's buffer instead of doing a ring
 * buffer operation (the costly part); the buffer goes to the ring in one
 * record when full, at every context switch of its CPU, at exec and exit,
 * and at stop the loader takes what is left (mmap).
 *
 * Per-thread order holds because a buffer only ever holds the events of
 * one thread, the one that ran last on that CPU: it is flushed whenever
 * that thread is switched out, before the switch event, unless `busy`.
 * busy (claimed with cmpxchg, so preempted appends cannot interleave): 1
 * while a uprobe program appends (it may be preempted there, but not
 * migrated: then other threads of that CPU write their events directly
 * to the ring and the holder's next switch flushes), 2 while a flusher
 * (sched program, the loader at stop) holds it.
 *
 * An ARRAY indexed by cpu rather than a PERCPU_ARRAY so the loader can
 * mmap it and claim buffers at stop; a task storage map per thread was
 * measured 3x the cost of this lookup (Linux 6.18). */
#define ftfb_barrier() asm volatile("" ::: "memory")

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set to the number of cpus by the loader */
	__type(key, __u32);
	__type(value, struct ftfb_ubuf);
} ubufs SEC(".maps");

static __always_inline bool ftfb_traced(__u32 tgid)
{
	return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
}

/* Whether the task `id` (pid_tgid) is recorded by a probe program: only
 * while `armed` (the program's own flag), never the tracer (`self`), and
 * with -p/-- only the traced processes. */
static __always_inline bool ftfb_probe_recorded(__u64 id, __u32 armed_now,
						__u32 self)
{
	__u32 tgid = id >> 32;

	if (!armed_now)
		return false;
	if (self && tgid == self)
		return false;
	return !filter_tgids || ftfb_traced(tgid);
}

static __always_inline void ftfb_add(void *map, __u32 kind, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(map, &kind);

	if (c)
		*c += n;
}

static __always_inline void ftfb_count(void *map, __u32 kind)
{
	ftfb_add(map, kind, 1);
}

/*
 * The ring an event of `kind` goes to. The reader takes the rings one
 * after the other, so only events of one ring keep their order. Switches
 * and wakeups, nearly all of the sched events, spread by cpu: a cpu's
 * switches stay in order, which its CPU track needs (and the task names
 * sent just before a switch go with it). A thread's calls
 * and life (uprobe batches and records, fork, exec, exit, rename) all go
 * to ring 0 whatever cpu it runs on, so its calls never overtake each
 * other (a batch flushed on one cpu, the next on another) nor its exit or
 * rename. With one ring, all of it is ring 0.
 */
static __always_inline void *ftfb_ring_of(__u32 kind, __u32 cpu)
{
	__u32 idx = 0;

	if (nr_rings > 1 &&
	    (kind == FTFB_EV_SWITCH || kind == FTFB_EV_WAKEUP ||
	     kind == FTFB_EV_WAKEUP_NEW || kind == FTFB_EV_TASKNAME))
		idx = cpu % nr_rings;
	return bpf_map_lookup_elem(&rings, &idx);
}

/* Flags of a ring buffer write: wake the reader only past wakeup_bytes
 * (its epoll timeout picks up smaller amounts). */
static __always_inline __u64 ftfb_wake_flags(void *rb)
{
	if (bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

/* Write b's events to their ring as one FTFB_EV_BATCH record and
 * empty b. A failed write counts its events in `drops` (they were
 * counted in `fired` when appended). The caller owns b (busy). */
static __always_inline void ftfb_ubuf_flush(struct ftfb_ubuf *b, __u32 cpu)
{
	const struct ftfb_ucompact *first = (const void *)b->data;
	__u32 len = b->batch.len;
	void *rb;

	if (!len)
		return;
	if (len > FTFB_UBUF_BYTES)
		len = FTFB_UBUF_BYTES;
	/* tid, tgid, cpu: set by the first append */
	b->batch.hdr.ts = first->ts;
	b->batch.hdr.kind = FTFB_EV_BATCH;
	b->batch.hdr._pad = 0;
	b->batch._pad = 0;
	rb = ftfb_ring_of(FTFB_EV_BATCH, cpu);
	if (!rb || bpf_ringbuf_output(rb, &b->batch, sizeof(b->batch) + len,
				      ftfb_wake_flags(rb))) {
		ftfb_add(&drops, FTFB_EV_UENTRY, b->n[FTFB_UBUF_ENTRY]);
		ftfb_add(&drops, FTFB_EV_URET, b->n[FTFB_UBUF_RET]);
		ftfb_add(&drops, FTFB_EV_SENTER, b->n[FTFB_UBUF_SENTER]);
		ftfb_add(&drops, FTFB_EV_SEXIT, b->n[FTFB_UBUF_SEXIT]);
		ftfb_add(&drops, FTFB_EV_USDT, b->n[FTFB_UBUF_USDT]);
	}
	b->batch.len = 0;
	__builtin_memset(b->n, 0, sizeof(b->n));
}

/* Flush this cpu's buffer from a sched program (switch: prev's events;
 * exit, exec: current's), unless someone holds it; and forget the task
 * remembered there (see ftfb_running_id). */
static __always_inline void ftfb_ubuf_flush_cpu(__u32 cpu)
{
	struct ftfb_ubuf *b;

	if (!ubuf_active)
		return;
	b = bpf_map_lookup_elem(&ubufs, &cpu);
	if (!b)
		return;
	/* the remembered task (ftfb_running_id) may be dying, or taking its
	 * leader's tid (exec): its stack and registers' address can go to
	 * another task */
	b->id_regs = 0;
	if (!b->batch.len)
		return;
	if (__sync_val_compare_and_swap(&b->busy, 0, FTFB_UBUF_FLUSHING) != 0)
		return;
	ftfb_ubuf_flush(b, cpu);
	/* release with a full barrier: the loader reads it from another
	 * cpu at stop */
	__sync_lock_test_and_set(&b->busy, 0);
}

/* Reserve `size` bytes for an event of `kind` in its ring and fill
 * the header's kind and cpu. Counts the attempt in `fired`, a failure in
 * `drops`. *rbp receives the ring to submit to. */
static __always_inline void *ftfb_reserve(void **rbp, __u32 kind, __u32 size,
					  __u32 cpu)
{
	struct ftfb_hdr *h;
	void *rb;

	ftfb_count(&fired, kind);
	rb = ftfb_ring_of(kind, cpu);
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
	bpf_ringbuf_submit(ev, ftfb_wake_flags(rb));
}

#endif
