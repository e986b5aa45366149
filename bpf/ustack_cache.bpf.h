/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/ustack_cache.bpf.h - the user stacks of threads blocking, found
 * again without walking them: a thread blocks again and again where it
 * blocked before (a server's epoll_wait, a worker's futex, a pipe's
 * read), with the same registers and the same frames above them, and a
 * walk of 14 frames costs 13 us on this VM (bench/HISTORY.md).
 *
 * The walk (unwind.bpf.h) is a function of the registers it starts from
 * (pc, sp, rax, and rbp where a step used it before any was read from
 * the stack: code built without frame pointers keeps anything in rbp),
 * of the process's image and mappings, and of the stack words it reads:
 * a walk that ended whole, read at most UW_REC_WORDS words within
 * UW_REC_SPAN bytes of its sp and nothing else (no signal frame, no
 * uprobe state), is cached with those words, keyed by its registers,
 * process (its pid and start time) and image (exec starts another).
 * Found again, the entry is used only if the stack holds those words
 * again, each checked: then the walk would give these frames again.
 *
 * Used at sched_switch only (a sample on CPU is rarely where the last
 * one was). Included by stacks.bpf.c after unwind.bpf.h.
 */
#ifndef FTFB_USTACK_CACHE_BPF_H
#define FTFB_USTACK_CACHE_BPF_H

#define UC_MAX 64 /* frames of a chain kept (deeper: walked each time) */
/* chains a key holds: a thread blocking in turn under two callers of a
 * blocking function (the same pc and sp: a pipe's read and a socket's
 * through one wrapper) keeps both, not one replacing the other */
#define UC_WAYS 2

struct uc_key {
	__u32 tgid, image;
	__u64 born; /* the process's start time: a pid used again is another */
	__u64 pc, sp, ax;
	__u32 way; /* 0 .. UC_WAYS - 1 */
	__u32 _pad;
};

struct uc_chain {
	struct uc_key k; /* (checked again after the copy: see uc_get) */
	__u32 n;	 /* ips */
	__u32 nrec;	 /* words read */
	__u32 span;	 /* the bytes above sp they lie in */
	__u32 bp_used;	 /* the walk used the registers' bp: this one */
	__u64 bp;
	__u64 hash;
	/* when last found again, or made, in jiffies (bpf_ktime_get_ns
	 * costs half a microsecond on this VM's kvm-clock) */
	__u64 used;
	__u32 rec_off[UW_REC_WORDS];
	__u64 rec_val[UW_REC_WORDS];
	__u64 ips[UC_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096); /* 5 MB */
	__type(key, struct uc_key);
	__type(value, struct uc_chain);
} ustack_chains SEC(".maps");

/* a chain copied out of the map (another cpu may rewrite the entry
 * meanwhile) or being made, and the stack words it is checked against */
struct uc_buf {
	struct uc_chain c;
	struct uc_key k; /* the key looked up (here: the BPF stack is full) */
	__u64 used;	 /* uc_try's answer */
	__u8 stack[UW_REC_SPAN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_buf);
} uc_bufs SEC(".maps");

static __always_inline bool uc_same_key(const struct uc_key *a,
					const struct uc_key *b)
{
	return a->tgid == b->tgid && a->image == b->image &&
	       a->born == b->born && a->pc == b->pc && a->sp == b->sp &&
	       a->ax == b->ax && a->way == b->way;
}

/* The chain of key k if the stack holds its words (and rbp is bp, if
 * the walk used it): its ips copied to out (room for UC_MAX), its hash
 * in *hash, their number returned; 0: an entry, not this stack's (its
 * last use in *used); -1: no entry. */
static __noinline int uc_try(const struct uc_key *k, __u64 bp, __u64 *out,
			     __u64 *hash, __u64 *used)
{
	__u32 zero = 0, n, nrec, span, off;
	struct uc_buf *b = bpf_map_lookup_elem(&uc_bufs, &zero);
	struct uc_chain *e = bpf_map_lookup_elem(&ustack_chains, k);

	if (!e)
		return -1;
	if (!b || bpf_probe_read_kernel(&b->c, sizeof(b->c), e) ||
	    !uc_same_key(&b->c.k, k))
		return 0;
	*used = b->c.used;
	n = b->c.n;
	nrec = b->c.nrec;
	if (!n || n > UC_MAX || !nrec || nrec > UW_REC_WORDS ||
	    (b->c.bp_used && b->c.bp != bp))
		return 0;
	span = b->c.span;
	asm volatile("" : "+r"(span));
	span &= 2 * UW_REC_SPAN - 1;
	if (!span || span > UW_REC_SPAN ||
	    bpf_probe_read_user(b->stack, span, (const void *)k->sp))
		return 0;
	for (__u32 i = 0; i < UW_REC_WORDS; i++) {
		if (i >= nrec)
			break;
		off = b->c.rec_off[i];
		if (off > UW_REC_SPAN - 8 ||
		    *(const __u64 *)&b->stack[off & (UW_REC_SPAN - 8)] !=
			    b->c.rec_val[i])
			return 0;
	}
	if (bpf_probe_read_kernel(out, sizeof(b->c.ips), b->c.ips))
		return 0;
	*hash = b->c.hash;
	e->used = bpf_jiffies64(); /* (a race: only the choice of
				    * which way is replaced) */
	return (int)n;
}

/* Caches the walk just made (uw_bufs: its ips and words read; its hash
 * as the walk gave it) for key k, if it ended whole and its reads were
 * all recorded. */
static __always_inline void uc_put(const struct uc_key *k, __u64 bp, __u64 hash)
{
	__u32 zero = 0, n, nrec;
	struct uc_buf *c = bpf_map_lookup_elem(&uc_bufs, &zero);
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);

	if (!b || !c || b->w.reason != FTFB_UW_COMPLETE || !b->rec_on)
		return;
	n = b->w.n;
	nrec = b->rec_n;
	if (!n || n > UC_MAX || !nrec || nrec > UW_REC_WORDS)
		return;
	c->c.k = *k;
	c->c.n = n;
	c->c.nrec = nrec;
	c->c.span = b->rec_span;
	c->c.bp_used = b->w.bp_used;
	c->c.bp = bp;
	c->c.hash = hash;
	c->c.used = bpf_jiffies64();
	__builtin_memcpy(c->c.rec_off, b->rec_off, sizeof(c->c.rec_off));
	__builtin_memcpy(c->c.rec_val, b->rec_val, sizeof(c->c.rec_val));
	__builtin_memcpy(c->c.ips, b->ips, sizeof(c->c.ips));
	bpf_map_update_elem(&ustack_chains, k, &c->c, BPF_ANY);
}

/* ftfb_uw_user_stack of task t (current) blocking, from its chain cache
 * when its stack holds a chain walked before; else walked, and cached in
 * the key's way left empty, or used least recently. */
static __always_inline long
ftfb_uw_user_stack_blocking(struct task_struct *t, const struct ftfb_uw_regs *r,
			    __u32 tgid, __u64 *out, __u64 *hash)
{
	__u32 zero = 0, victim = 0;
	struct uc_buf *b = bpf_map_lookup_elem(&uc_bufs, &zero);
	struct uc_key *k;
	__u64 oldest = ~0ull;
	bool empty = false;
	long len;
	int got;

	if (!b)
		return ftfb_uw_user_stack(r, tgid, out, hash, false, false);
	k = &b->k;
	k->tgid = tgid;
	k->image = FTFB_IMAGE_ID(t);
	k->born = BPF_CORE_READ(t, group_leader, start_time);
	k->pc = r->pc;
	k->sp = r->sp;
	k->ax = r->ax;
	k->_pad = 0;
	for (__u32 way = 0; way < UC_WAYS; way++) {
		k->way = way;
		b->used = 0;
		got = uc_try(k, r->bp, out, hash, &b->used);
		if (got > 0) {
			uw_count(FTFB_UW_COMPLETE);
			uw_count(FTFB_UW_STAT_STACKS);
			uw_count(FTFB_UW_STAT_USTACK_FOUND);
			return got * sizeof(__u64);
		}
		if (empty)
			continue;
		if (got < 0) {
			empty = true;
			victim = way;
		} else if (b->used < oldest) {
			oldest = b->used;
			victim = way;
		}
	}
	uw_count(FTFB_UW_STAT_USTACK_WALKED);
	len = ftfb_uw_user_stack(r, tgid, out, hash, true, false);
	k->way = victim;
	uc_put(k, r->bp, *hash);
	return len;
}

#endif
