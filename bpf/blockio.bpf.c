// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/blockio.bpf.c - disk I/O (--events=io): each block request from
 * its making to its completion, one event per request (struct
 * ftfb_block_io), sent at completion.
 *
 * A request is attributed to the task that made it from its bios
 * (block_io_start runs in the submitter's context; block_rq_issue may run
 * in a kworker that dispatches the queue). Only requests of traced
 * processes enter `pending` (with -a every request; one made by the
 * kernel with no block_io_start, a flush, is taken at its issue), so the
 * completion of any other request costs one failed lookup.
 */
#include "common.bpf.h"
#include "blockio.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 self_tgid = 0; /* never the tracer's own */
/* set by the loader once the programs are attached, cleared at stop */
volatile __u32 armed = 0;

struct pending_rq {
	__u64 start_ns, insert_ns, issue_ns;
	__u32 tid, tgid;
	__u32 cmd_flags; /* as made: the flush machinery strips PREFLUSH */
	__u32 _pad;
};

/* requests in flight, by address; LRU: a request freed without a
 * completion (never seen) cannot fill it */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct pending_rq);
} pending SEC(".maps");

static __always_inline bool current_recorded(__u64 id)
{
	__u32 tgid = id >> 32;

	if (!armed || (self_tgid && tgid == self_tgid))
		return false;
	return !filter_tgids || ftfb_traced(tgid);
}

/* Starts tracking rq for current (if recorded) at now. */
static __always_inline struct pending_rq *track(struct request *rq, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid(), key = (__u64)rq;
	struct pending_rq p = {};

	if (!current_recorded(id))
		return NULL;
	p.start_ns = now;
	p.cmd_flags = rq->cmd_flags;
	/* (a kernel worker too: write-back and cache flushes are its
	 * requests, shown on it) */
	p.tid = (__u32)id;
	p.tgid = id >> 32;
	bpf_map_update_elem(&pending, &key, &p, BPF_ANY);
	return bpf_map_lookup_elem(&pending, &key);
}

SEC("tp_btf/block_io_start")
int BPF_PROG(ftfb_blk_start, struct request *rq)
{
	track(rq, bpf_ktime_get_ns());
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(ftfb_blk_insert, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct pending_rq *p = bpf_map_lookup_elem(&pending, &key);

	if (p)
		p->insert_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(ftfb_blk_issue, struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct pending_rq *p = bpf_map_lookup_elem(&pending, &key);

	if (!p)
		p = track(rq, now);
	if (p)
		p->issue_ns = now;
	return 0;
}

/* The request's flags as FTFB_BLK_* (the kernel's bit numbers are read
 * from its BTF). */
static __always_inline __u8 flags_of(__u32 cmd_flags)
{
	__u8 f = 0;

	if (cmd_flags &
	    (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		f |= FTFB_BLK_SYNC;
	if (cmd_flags &
	    (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		f |= FTFB_BLK_META;
	if (cmd_flags &
	    (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		f |= FTFB_BLK_FUA;
	if (cmd_flags &
	    (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)))
		f |= FTFB_BLK_PREFLUSH;
	return f;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(ftfb_blk_complete, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	__u32 cpu = bpf_get_smp_processor_id();
	struct pending_rq *p = bpf_map_lookup_elem(&pending, &key);
	struct ftfb_block_io *e;
	struct gendisk *disk;
	void *rb;

	if (!p)
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_BLOCK_IO, sizeof(*e), cpu);
	if (e) {
		__u32 cmd_flags = rq->cmd_flags | p->cmd_flags;

		e->hdr.ts = bpf_ktime_get_ns();
		e->hdr.tid = p->tid;
		e->hdr.tgid = p->tgid;
		e->start_ns = p->start_ns;
		e->insert_ns = p->insert_ns;
		e->issue_ns = p->issue_ns ? p->issue_ns : p->start_ns;
		e->sector = rq->__sector;
		e->bytes = nr_bytes;
		e->op = cmd_flags & 0xff; /* REQ_OP_MASK */
		e->flags = flags_of(cmd_flags);
		e->_pad = 0;
		e->error = error;
		disk = rq->q->disk;
		e->dev = disk ? ((__u32)disk->major << 20) | disk->first_minor
			      : 0;
		e->disk[0] = '\0';
		if (disk)
			bpf_probe_read_kernel_str(e->disk, sizeof(e->disk),
						  disk->disk_name);
		ftfb_submit(rb, e);
	}
	bpf_map_delete_elem(&pending, &key);
	return 0;
}
