/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/utail.bpf.h - an on-CPU user stack finished from its thread's last
 * walk: a thread sampled again is mostly still under the callers it was
 * under 10 ms before (its main loop, the parser, the interpreter's
 * eval loop), and a frame walked costs 0.3 to 1 us on this VM (mostly
 * memory the sample has not touched since the last: bench/HISTORY.md).
 *
 * The walk (unwind.bpf.h) from a frame on is a function of that frame's
 * state (pc, sp, rbp and whether rbp is known; rax and rdi count at the
 * first frame only, and so do the leaf rules: hence never frame 0 on
 * either side), of the process's image and mappings, and of the stack
 * words it reads. So a thread's last whole walk is kept (in task
 * storage: `ut_chains`) with each frame's state and the words read from
 * each frame's step on; a new walk that reaches a frame in the same
 * state as one of the last walk's (the same sp and pc, and rbp if the
 * frames above use it: uw_tail_uses_bp) takes the last walk's frames
 * from there, if the stack holds what those steps read again, each
 * word checked (uw_tail_holds). Kept only from walks that ended whole,
 * read at most UW_REC_WORDS words within UW_REC_SPAN bytes and nothing
 * that cannot be checked again (a signal frame's registers, the uprobe
 * state: uw_record_off), and took no frame-pointer stack switch.
 *
 * A walk that took frames this way is not kept (a copy of ~2.5 KB): the
 * last walk's frames stay right as long as the stack holds them. When
 * it walked UT_KEEP_AT frames or more first, the thread has gone deeper
 * under them, and the next walk is made whole and kept (uw_tail_keep).
 *
 * Included by unwind.bpf.h (uw_frame calls uw_tail_step).
 */
#ifndef FTFB_UTAIL_BPF_H
#define FTFB_UTAIL_BPF_H

#define UT_KEEP_AT 3
/* frames a walk kept has at least (fewer: as cheap to walk again) */
#define UT_MIN 4

/* a thread's last whole on-CPU walk */
struct ut_chain {
	__u32 tgid, image; /* (a thread's storage outlives its exec) */
	__u32 n;	   /* frames, all walked: the last is the outermost */
	__u32 nrec;	   /* words read */
	__u64 rec_sp;	   /* the first frame's sp: rec_off's base */
	__u32 span;	   /* the bytes above rec_sp the words lie in */
	__u32 _pad;
	__u64 bpk;	   /* bit k: frame k's rbp is known */
	__u64 ips[UT_MAX];
	__u64 sp[UT_MAX];
	__u64 bp[UT_MAX];
	__u8 frec[UT_MAX]; /* words read before frame k's step */
	__u8 fbpu[UT_MAX]; /* steps that used rbp before frame k's */
	__u32 bp_uses;	   /* in all */
	__u32 _pad2;
	__u32 rec_off[UW_REC_WORDS];
	__u64 rec_val[UW_REC_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ut_chain);
} ut_chains SEC(".maps");

/* the stack bytes the last walk's words are checked in, per cpu */
struct ut_buf {
	__u8 stack[UW_REC_SPAN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ut_buf);
} ut_bufs SEC(".maps");

/* The current thread's last walk, if made in process tgid's current
 * image; NULL if none. */
static __always_inline const struct ut_chain *uw_tail_of(__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ut_chain *t = bpf_task_storage_get(&ut_chains, task, NULL, 0);

	if (!t || t->tgid != tgid || t->image != FTFB_IMAGE_ID(task))
		return NULL;
	return t;
}

/* The frame of t at sp (sp[] rises frame by frame), or 0 for none: a
 * search without branches, as uw_find_map's. */
static __always_inline __u32 uw_tail_frame_at(const struct ut_chain *t,
					      __u64 sp, __u32 n)
{
	__u64 base = 0, len = n, half, le;

	for (int i = 0; i < 7; i++) {
		half = len / 2;
		le = ((sp - t->sp[(base + half) & (UT_MAX - 1)]) >> 63) ^ 1;
		base += le * half;
		len -= half;
	}
	return t->sp[base & (UT_MAX - 1)] == sp ? (__u32)base : 0;
}

/* Whether t's frames from j on uses rbp: then frame j's rbp and every
 * word their steps read must be the same again; if not, the frames
 * follow from j's pc and sp and the return addresses alone (each
 * frame's CFA is its sp plus what its row says), and the rbp saved
 * under them may differ (a caller's loop keeping its counter in rbp
 * saves another rbp at every call of the same callee). */
static __always_inline bool uw_tail_uses_bp(const struct ut_chain *t, __u32 j)
{
	return t->fbpu[j & (UT_MAX - 1)] != t->bp_uses;
}

/* The stack word at addr from s, the copy of [lo, hi); false if out. */
static __always_inline bool uw_tail_word(const struct ut_buf *s, __u64 lo,
					 __u64 hi, __u64 addr, __u64 *v)
{
	if (addr < lo || addr + 8 > hi)
		return false;
	*v = *(const __u64 *)&s->stack[(addr - lo) & (UW_REC_SPAN - 8)];
	return true;
}

/* Whether the stack still holds what t's steps read from frame j's on
 * (lo: frame j's sp): each word read, or (frames that do not use rbp)
 * each return address, at the frame above's sp - 8, and the words the
 * outermost frame's step read. */
static __always_inline bool uw_tail_holds(const struct ut_chain *t, __u32 j,
					  __u64 lo)
{
	__u32 zero = 0, nrec = t->nrec, n = t->n, from, i;
	struct ut_buf *s = bpf_map_lookup_elem(&ut_bufs, &zero);
	__u64 hi = t->rec_sp + t->span, len, v;

	if (!s || n > UT_MAX || nrec > UW_REC_WORDS || hi <= lo ||
	    hi - lo > UW_REC_SPAN)
		return false;
	len = hi - lo;
	asm volatile("" : "+r"(len));
	len &= 2 * UW_REC_SPAN - 1;
	if (!len || len > UW_REC_SPAN ||
	    bpf_probe_read_user(s->stack, len, (const void *)lo))
		return false;
	if (uw_tail_uses_bp(t, j)) {
		from = t->frec[j & (UT_MAX - 1)];
	} else {
		/* (counted from 0: a loop whose start the verifier does not
		 * know is checked once per possible start) */
		for (__u32 u = 0; u < UT_MAX; u++) {
			i = j + 1 + u;
			if (i >= n)
				break;
			if (!uw_tail_word(s, lo, hi,
					  t->sp[i & (UT_MAX - 1)] - 8, &v) ||
			    v != t->ips[i & (UT_MAX - 1)])
				return false;
		}
		from = t->frec[(n - 1) & (UT_MAX - 1)];
	}
	for (__u32 u = 0; u < UW_REC_WORDS; u++) {
		if (from + u >= nrec)
			break;
		i = (from + u) & (UW_REC_WORDS - 1);
		if (!uw_tail_word(s, lo, hi, t->rec_sp + t->rec_off[i], &v) ||
		    v != t->rec_val[i])
			return false;
	}
	return true;
}

/* Frame k's state as its step begins, noted for uw_tail_keep. */
static __always_inline void uw_tail_note(struct uw_buf *b, __u32 k)
{
	__u64 bit = 1ull << (k & (UT_MAX - 1));

	if (k >= UT_MAX)
		return;
	b->fsp[k & (UT_MAX - 1)] = b->w.sp;
	b->fbp[k & (UT_MAX - 1)] = b->w.bp;
	b->frec[k & (UT_MAX - 1)] = (__u8)b->rec_n;
	b->fbpu[k & (UT_MAX - 1)] = b->w.bp_uses;
	b->fbpk = b->w.bp_known ? b->fbpk | bit : b->fbpk & ~bit;
}

/* Called by uw_frame at each frame k before it is recorded: notes its
 * state and returns the frame j (>= 1) of the thread's last walk in
 * the state of this one (k >= 1), 0 if none. Tried at one frame a walk
 * at most (a frame in the same state whose words differ: the stack
 * changed under it, so will the frames above). A global function,
 * checked once by the verifier; apart from uw_tail_take, as together
 * their stack went past the 512 bytes the off-CPU program's chain of
 * calls may have. */
__noinline int uw_tail_match(struct uw_buf *b)
{
	const struct ut_chain *t;
	struct uw_walk *w;
	__u32 n, j, k;

	if (!b || !b->ut_on)
		return 0;
	w = &b->w;
	k = w->n;
	uw_tail_note(b, k);
	if (b->ut_tried || !k)
		return 0;
	t = uw_tail_of(w->tgid);
	if (!t) {
		b->ut_tried = 1; /* (none to look at again) */
		return 0;
	}
	n = t->n;
	if (n < 2 || n > UT_MAX)
		return 0;
	j = uw_tail_frame_at(t, w->sp, n);
	if (!j || t->ips[j & (UT_MAX - 1)] != w->pc ||
	    k + (n - j) > UW_DEPTH - 1)
		return 0;
	if (uw_tail_uses_bp(t, j) &&
	    (((t->bpk >> (j & (UT_MAX - 1))) & 1) != w->bp_known ||
	     (w->bp_known && t->bp[j & (UT_MAX - 1)] != w->bp)))
		return 0;
	b->ut_tried = 1;
	return (int)j;
}

/* The thread's last walk's frames from j (uw_tail_match's) on end this
 * walk (ips, hash, count) if the stack still holds what that walk read
 * from there: 1; else 0. */
__noinline int uw_tail_take(struct uw_buf *b, __u32 j)
{
	const struct ut_chain *t;
	struct uw_walk *w;
	__u32 n, k;
	__u64 ip;

	if (!b)
		return 0;
	w = &b->w;
	t = uw_tail_of(w->tgid);
	if (!t || j >= t->n || !uw_tail_holds(t, j, w->sp)) {
		uw_count(FTFB_UW_STAT_TAIL_REFUSED);
		return 0;
	}
	n = t->n - j;
	k = w->n;
	for (__u32 i = 0; i < UT_MAX; i++) {
		if (i >= n)
			break;
		ip = t->ips[(j + i) & (UT_MAX - 1)];
		b->ips[(k + i) & UW_MASK] = ip;
		w->hash = uw_hash_step(w->hash, ip);
	}
	w->n = k + n;
	b->ut_k = k;
	b->ut_j = j;
	uw_count(FTFB_UW_STAT_TAIL_FOUND);
	return 1;
}

/* Called by uw_frame at each frame before it is recorded: 1 if the
 * walk ends there with the frames of the thread's last walk. (One call
 * of the two, nested: a branch on each's answer in uw_frame made the
 * verifier check 60,000 more instructions of the off-CPU program.) */
__noinline int uw_tail_step(struct uw_buf *b)
{
	int j = uw_tail_match(b);

	return j ? uw_tail_take(b, (__u32)j) : 0;
}

/* A walk that took t's frames from j on (as its k on), made as if it had
 * walked them: their states and the words their steps read, after its
 * own (uw_buf), for uw_tail_keep. */
struct ut_merge {
	struct uw_buf *b;
	const struct ut_chain *t;
	__u32 j, k;
	__u32 from;	 /* t's first word read from frame j's step on */
	__u32 rec0;	 /* the words b's own steps read */
	__u32 bpu_at_j;	 /* t's steps that used rbp before frame j's */
	__u32 bpu0;	 /* b's before frame k's */
};

/* bpf_loop callback: t's frame j + i as b's frame k + i. */
static long uw_tail_merge_frame(__u32 i, void *ctx)
{
	struct ut_merge *c = ctx;
	struct uw_buf *b = c->b;
	const struct ut_chain *t = c->t;
	__u32 at = c->j + i, to = c->k + i;
	__u64 bit;

	if (at >= UT_MAX || to >= UT_MAX)
		return 1;
	/* (masked after a barrier: clang drops a mask it can prove
	 * changes nothing, and the verifier loses the bound) */
	asm volatile("" : "+r"(at), "+r"(to));
	at &= UT_MAX - 1;
	to &= UT_MAX - 1;
	b->fsp[to] = t->sp[at];
	b->fbp[to] = t->bp[at];
	b->frec[to] = (__u8)(t->frec[at] - c->from + c->rec0);
	b->fbpu[to] = (__u8)(t->fbpu[at] - c->bpu_at_j + c->bpu0);
	bit = 1ull << to;
	b->fbpk = (t->bpk >> at) & 1 ? b->fbpk | bit : b->fbpk & ~bit;
	return 0;
}

/* bpf_loop callback: t's word from + i after b's, its offset from b's
 * first sp; recording turned off when it does not fit. */
static long uw_tail_merge_word(__u32 i, void *ctx)
{
	struct ut_merge *c = ctx;
	struct uw_buf *b = c->b;
	const struct ut_chain *t = c->t;
	__u32 at = c->from + i, to = b->rec_n;
	__u64 addr, off;

	if (at >= UW_REC_WORDS || to >= UW_REC_WORDS) {
		b->rec_on = 0;
		return 1;
	}
	asm volatile("" : "+r"(at), "+r"(to));
	at &= UW_REC_WORDS - 1;
	to &= UW_REC_WORDS - 1;
	addr = t->rec_sp + t->rec_off[at];
	off = addr - b->rec_sp;
	if (addr < b->rec_sp || off > UW_REC_SPAN - 8) {
		b->rec_on = 0;
		return 1;
	}
	b->rec_off[to] = (__u32)off;
	b->rec_val[to] = t->rec_val[at];
	b->rec_n = to + 1;
	if (off + 8 > b->rec_span)
		b->rec_span = (__u32)off + 8;
	return 0;
}

/* Whether the walk b, which took t's frames from b->ut_j on, is now as
 * if walked whole (to be kept in t's place). */
static __always_inline bool uw_tail_merge(struct uw_buf *b,
					  const struct ut_chain *t)
{
	struct ut_merge c = {.b = b, .t = t, .j = b->ut_j, .k = b->ut_k};
	__u32 m;

	if (c.j >= t->n || c.j >= UT_MAX || t->n > UT_MAX ||
	    t->nrec > UW_REC_WORDS)
		return false;
	m = t->n - c.j;
	if (c.k + m > UT_MAX)
		return false;
	c.from = t->frec[c.j & (UT_MAX - 1)];
	c.rec0 = b->rec_n;
	c.bpu_at_j = t->fbpu[c.j & (UT_MAX - 1)];
	c.bpu0 = b->w.bp_uses;
	bpf_loop(m, uw_tail_merge_frame, &c, 0);
	if (c.from < t->nrec)
		bpf_loop(t->nrec - c.from, uw_tail_merge_word, &c, 0);
	b->w.bp_uses = (__u8)(c.bpu0 + t->bp_uses - c.bpu_at_j);
	return b->rec_on;
}

/* After a walk of the current thread (b->ut_on): a walk that took no frames from
 * the last is kept as the last, if it ended whole with all its reads
 * recorded, within UT_MAX frames, and took no stack switch. One that
 * took them only after UT_KEEP_AT frames or more walked leaves the last
 * forgotten: the thread has gone deeper under those frames, and the
 * next walk, whole, is kept (cheaper than merging this one's frames
 * with the last's here, for the verifier as for the cpu). */
__noinline int uw_tail_keep(struct uw_buf *b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct ut_chain *last;
	struct ut_chain *t;
	__u32 n, nrec;

	if (!b || !b->ut_on)
		return 0;
	n = b->w.n;
	nrec = b->rec_n;
	if (b->ut_k) {
		/* (taken early: the last walk's frames are as deep) */
		if (b->ut_k < UT_KEEP_AT)
			return 0;
		last = uw_tail_of(b->w.tgid);
		if (!last || !uw_tail_merge(b, last))
			return 0;
		n = b->w.n;
		nrec = b->rec_n;
	}
	if (b->w.reason != FTFB_UW_COMPLETE || !b->rec_on || b->w.jumps ||
	    n < UT_MIN || n > UT_MAX || nrec > UW_REC_WORDS)
		return 0;
	t = bpf_task_storage_get(&ut_chains, task, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	t->n = 0; /* (not a walk until written whole) */
	t->tgid = b->w.tgid;
	t->image = FTFB_IMAGE_ID(task);
	t->nrec = nrec;
	t->rec_sp = b->rec_sp;
	t->span = b->rec_span;
	t->bpk = b->fbpk;
	t->bp_uses = b->w.bp_uses;
	/* (only the n frames and nrec words: a copy of 64 of each was
	 * most of what keeping cost beside a build) */
	bpf_probe_read_kernel(t->ips, n * 8, b->ips);
	bpf_probe_read_kernel(t->sp, n * 8, b->fsp);
	bpf_probe_read_kernel(t->bp, n * 8, b->fbp);
	bpf_probe_read_kernel(t->frec, n, b->frec);
	bpf_probe_read_kernel(t->fbpu, n, b->fbpu);
	if (nrec) {
		bpf_probe_read_kernel(t->rec_off, nrec * 4, b->rec_off);
		bpf_probe_read_kernel(t->rec_val, nrec * 8, b->rec_val);
	}
	t->n = n;
	return 0;
}

#endif
