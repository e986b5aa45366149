/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/unwind.bpf.h - user stacks walked in BPF from unwind tables (the
 * binaries' CFI, as rows built in userspace: bpf/unwind.h), so that code
 * without frame pointers (Debian's libc and packages) unwinds whole.
 *
 * From the user registers of the sampled thread (pc, rsp, rbp), each
 * frame: find the mapping of pc in the process's table (`uw_procs`,
 * looked up once a walk), the row of pc in that binary's rows (from a
 * cache of searches, `uw_row_cache`, else by binary search), compute
 * the CFA from rsp or rbp, read the return address at CFA - 8 and the
 * caller's rbp where the row says, and go on with pc = return address,
 * rsp = CFA.
 * Frames are walked with bpf_loop (one verified callback, any depth).
 *
 * A walk that cannot go on ends with a stop frame, FTFB_UW_STOP_IP(why),
 * which userspace names ("[unwind stopped: no CFI]"), never with a guess.
 * A process whose tables are not loaded yet (new, exec'd, an address in
 * a mapping made since: dlopen) is put in `uw_wanted`, which userspace
 * polls and answers by loading them; exec and exit drop a process's
 * table here, in the kernel, so an old one is never used for a new image.
 *
 * Included by stacks.bpf.c after common.bpf.h; uses its `armed` flag.
 */
#ifndef FTFB_UNWIND_BPF_H
#define FTFB_UNWIND_BPF_H

#include "unwind.h"
#include "uw_index.h"
#include "uw_rule.h"

#define UW_DEPTH FTFB_STACK_MAX_DEPTH /* 127 */
#define UW_MASK 127	/* an index into ips[], as the verifier wants it */
#define UW_ROW_STEPS 24 /* binary search steps: up to 16M rows a table */
#define UW_MAP_STEPS 9	/* and 256 mappings a process */
#define UW_GO_ON FTFB_UW_NREASONS /* a step's result: not a reason to stop */
#define UW_XOL_SLOT_BYTES 128	  /* the kernel's UPROBE_XOL_SLOT_BYTES (x86) */
#define UW_WIN 1024 /* stack bytes copied at once (a power of 2) */
#define UW_PAGE 4096ull
#define UW_REC_WORDS 64	 /* stack words a cached chain's walk may read */
#define UW_REC_SPAN 8192 /* bytes above its first sp they may lie in */
#define UT_MAX 64	 /* frames of a thread's last walk kept (utail.bpf.h) */

/* all binaries' rows, each table's followed by its page index
 * (uw_index.h); max_entries set by the loader, which writes them through
 * an mmap */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ftfb_uw_row);
} uw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct ftfb_uw_table);
} uw_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ftfb_uw_proc);
} uw_procs SEC(".maps");

/* The entries of images ended, by exec or exit, for the copies of their
 * last samples still held in userspace (src/stacks/native/stack_finish.c
 * finishes them at the exec or exit event, taking the entry out): a
 * process that lives a few milliseconds ends before a copy is looked at
 * again (the rings are read tens of milliseconds late). Keyed by image
 * too: sh exec'd into gcc ends twice within a millisecond, each entry
 * for its own event. The least recently written go first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 512);
	__type(key, struct ftfb_uw_ended);
	__type(value, struct ftfb_uw_proc);
} uw_exited SEC(".maps");

/* tgid -> the address that found it wanting (0: none; userspace builds
 * the table of that address's binary first); userspace deletes it once
 * answered */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} uw_wanted SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FTFB_UW_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} uw_stats SEC(".maps");

/* A thread's user registers, where its user stack walk starts. */
struct ftfb_uw_regs {
	__u64 pc, sp, bp;
	__u64 ax; /* a syscall's return value: 0 in clone's child */
	__u64 di; /* (__vfork's return address: FTFB_UW_CFA_RA_RDI) */
	__u64 bx; /* (FTFB_UW_CFA_RBX) */
};

/* uw_walk.bx_state: where the frame's rbx is, for a CFA_RBX row */
enum {
	UW_BX_VALUE = 0, /* the registers' (uw_buf.bx_regs): no frame below
			  * saved it */
	UW_BX_AT = 1,	 /* saved at address uw_buf.bx_at by a frame below */
	UW_BX_LOST = 2,	 /* not known (a rule the rows do not hold, a
			  * frame-pointer step, a signal frame) */
};

struct uw_walk {
	__u64 pc, sp, bp;
	__u64 ax; /* the first frame's rax (see FTFB_UW_CFA_CLONE) */
	__u64 di; /* and rdi (FTFB_UW_CFA_RA_RDI) */
	__u32 tgid, n;
	__u32 reason; /* FTFB_UW_* once the walk ends */
	bool bp_known;
	bool bp_regs;  /* bp is still the registers' (none read yet) */
	__u8 bp_used;  /* a step used the registers' bp */
	__u64 hash;    /* of the frames so far (as stacks.bpf.c's hash_ips) */
	__u64 ri;      /* the next uretprobe return instance (0: the newest) */
	bool trapped;  /* the first frame is at a uprobe's int3 (pc: + 1) */
	__u8 jumps;    /* stack switches taken by frame pointer */
	__u8 bp_uses;  /* steps whose frame came from rbp (utail.bpf.h) */
	__u8 bx_state; /* UW_BX_* (its place: uw_buf's, which keeps this
			* struct 80 bytes, copied on the BPF stack) */
};

struct uw_search {
	__u64 rel;
	__u32 lo, hi;
	/* uw_idx_narrow's keys and values, here rather than on the BPF
	 * stack: the off-CPU program's chain of calls (it and the frame
	 * callback) has no room left in the 512 bytes */
	__u32 key, k, at;
};

/* The rows the searches found, per cpu: slot hash(table, address)
 * holds a copy of the row found there and the addresses it covers, so
 * a frame at an address seen before costs one read of the cache, not
 * a search (one read of uw_rows per halving, 15 for libc's, each a
 * cache and TLB miss on a busy machine) and the table's entry. A copy
 * stays right because a table's rows never change once its uw_tables
 * entry is written (bpf/unwind.h). tid1 is the table index + 1 (0: an
 * empty slot, or one being written: see uw_cache_put). */
#define UW_CACHE_BITS 12
#define UW_BARRIER() asm volatile("" ::: "memory")
#define UW_GET(x) (*(volatile __typeof__(x) *)&(x))
#define UW_SET(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
struct uw_cached_row {
	__u32 tid1;
	__u32 lo, hi; /* the row covers [lo, hi); hi 0: up to any address */
	struct ftfb_uw_row row;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1 << UW_CACHE_BITS);
	__type(key, __u32);
	__type(value, struct uw_cached_row);
} uw_row_cache SEC(".maps");

/* What every frame of a walk uses: the process's mappings, looked up
 * once (NULL: none loaded). */
struct uw_ctx {
	const struct ftfb_uw_proc *p;
};

/* The walk in progress, per cpu. Its state lives here, not on the BPF
 * stack: the verifier follows a bpf_loop callback until the states it
 * sees repeat, and a frame count on the stack would differ at each of
 * the UW_DEPTH frames (a map value's contents are unknown to it). */
struct uw_buf {
	struct uw_walk w;
	struct uw_walk w_before; /* uw_frame_cfi's */
	__u64 bx_regs;		 /* the registers' rbx (UW_BX_VALUE) */
	__u64 bx_at;		 /* where a frame saved it (UW_BX_AT) */
	struct uw_search q;
	__u64 ips[UW_MASK + 1];
	/* a window of the stack, copied at once (uw_stack_read): win_len
	 * bytes from win_lo (0: none), never beyond win_lo's page */
	__u64 win_lo, win_len;
	__u8 win[UW_WIN + 16];
	/* the stack words the walk read, for the cache of whole chains
	 * (ustack_cache.bpf.h): rec_n of them, at rec_off bytes above the
	 * walk's first sp (rec_sp), holding rec_val; rec_on: recording (0:
	 * not asked, or the walk read what cannot be recorded) */
	__u64 rec_sp;
	__u32 rec_on, rec_n;
	__u32 rec_span, _rec_pad; /* the bytes from rec_sp they lie in */
	__u32 rec_off[UW_REC_WORDS];
	__u64 rec_val[UW_REC_WORDS];
	/* the state of each of the first UT_MAX frames as its step began
	 * (sp, rbp, whether rbp is known: bit k, the words read before),
	 * and the walk's use of its thread's last walk (utail.bpf.h):
	 * ut_on, the walk is of the current thread and may use it;
	 * ut_tried, a frame was checked; ut_k, its frames were taken from
	 * frame ut_k on (0: none) */
	__u64 fsp[UT_MAX], fbp[UT_MAX];
	__u64 fbpk;
	__u8 frec[UT_MAX];
	__u8 fbpu[UT_MAX]; /* steps that used rbp before frame k's */
	__u32 ut_on, ut_tried, ut_k, ut_j;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_buf);
} uw_bufs SEC(".maps");

static __always_inline void uw_count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&uw_stats, &what);

	if (c)
		*c += 1;
}

static __always_inline void uw_want(__u32 tgid, __u64 pc)
{
	bpf_map_update_elem(&uw_wanted, &tgid, &pc, BPF_NOEXIST);
}

/* The mapping of pc in p, or NULL. The search has no branches (BPF has
 * no conditional move, and each step's two ways would multiply the
 * states the verifier walks): the last mapping starting at or below pc,
 * halving the range `len` from `base`; a step's "start <= pc" is the
 * sign of pc - start, both user addresses (below 2^47). */
static __always_inline const struct ftfb_uw_map *
uw_find_map(const struct ftfb_uw_proc *p, __u64 pc)
{
	__u64 base = 0, len = p->n, half, le;
	const struct ftfb_uw_map *m;

	if (!len || len > FTFB_UW_MAX_MAPS)
		return NULL;
	for (int i = 0; i < UW_MAP_STEPS; i++) {
		half = len / 2;
		le = ((pc -
		       p->m[(base + half) & (FTFB_UW_MAX_MAPS - 1)].start) >>
		      63) ^
		     1;
		base += le * half;
		len -= half;
	}
	m = &p->m[base & (FTFB_UW_MAX_MAPS - 1)];
	return m->start <= pc && pc < m->end ? m : NULL;
}

#include "uw_refresh.bpf.h"

/* The rows [q->lo, q->hi) of table tid to search for q->rel narrowed to
 * those its page index gives (uw_index.h): the ~25 of a 512-byte page,
 * not the whole table (whose halvings, each a cache and TLB miss, cost
 * 31% of the walks beside a build). A global function, which the
 * verifier checks once: inlined in uw_find_row, its branches multiplied
 * the walker's states (668,945 instructions checked for ftfb_cpu_sample,
 * 102,925 without an index). */
__noinline int uw_idx_narrow(struct uw_search *q, __u32 tid)
{
	const struct ftfb_uw_table *t;
	const struct ftfb_uw_row *r;

	if (!q)
		return 0;
	q->key = tid;
	t = bpf_map_lookup_elem(&uw_tables, &q->key);
	if (!t || !t->idx_pages)
		return 0;
	q->k = ftfb_uw_idx_page(t, q->rel);
	q->key = FTFB_UW_IDX_SLOT(t, q->k);
	r = bpf_map_lookup_elem(&uw_rows, &q->key);
	q->at = r ? ((const __u32 *)r)[FTFB_UW_IDX_HALF(q->k)] : ~0u;
	/* entry k + 1 (past the index for the last page: not used) */
	q->key = FTFB_UW_IDX_SLOT(t, q->k + 1);
	r = bpf_map_lookup_elem(&uw_rows, &q->key);
	ftfb_uw_idx_bounds(t, q->k, q->at,
			   r ? ((const __u32 *)r)[FTFB_UW_IDX_HALF(q->k + 1)]
			     : ~0u,
			   &q->lo, &q->hi);
	return 0;
}

/* A binary search, one step per bpf_loop call: the verifier checks the
 * step once (unrolled, each step's two outcomes would multiply). */

static long uw_search_step(__u32 idx, void *ctx)
{
	__u32 zero = 0, mid;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);
	struct uw_search *q;
	const struct ftfb_uw_row *r;

	if (!b)
		return 1;
	q = &b->q;
	if (q->lo >= q->hi)
		return 1;
	mid = q->lo + (q->hi - q->lo) / 2;
	r = bpf_map_lookup_elem(&uw_rows, &mid);
	if (!r) {
		q->lo = 0; /* (cannot happen: the loader sizes tables) */
		return 1;
	}
	if (r->pc <= q->rel)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

/* Fills slot c with row r of table tid, which covers [lo, hi). A
 * program that interrupts this one on its cpu (the on-CPU sampler's
 * timer) may fill the same slot: tid1 is 0 while the fields are written
 * and set last, then kept only if the fields are still all these. */
static __always_inline void uw_cache_put(struct uw_cached_row *c, __u32 tid,
					 const struct ftfb_uw_row *r, __u32 hi)
{
	struct uw_cached_row v = {.tid1 = tid + 1, .lo = r->pc, .hi = hi};

	v.row = *r;
	UW_SET(c->tid1, 0);
	UW_BARRIER();
	c->lo = v.lo;
	c->hi = v.hi;
	c->row = v.row;
	UW_BARRIER();
	UW_SET(c->tid1, v.tid1);
	UW_BARRIER();
	if (c->lo != v.lo || c->hi != v.hi ||
	    *(const __u64 *)&c->row != *(const __u64 *)&v.row)
		UW_SET(c->tid1, 0);
}

/* Copies slot c's row into out if c holds the row of table tid that
 * covers rel; checked again after the copy, which an interrupting
 * program may have come in the middle of (it can only have written
 * the whole slot: the same row, or another with other addresses). */
static __always_inline bool uw_cache_get(const struct uw_cached_row *c,
					 __u32 tid, __u64 rel,
					 struct ftfb_uw_row *out)
{
	__u32 lo = UW_GET(c->lo), hi = UW_GET(c->hi);

	if (UW_GET(c->tid1) != tid + 1 || lo > rel || (hi && rel >= hi))
		return false;
	UW_BARRIER();
	*out = c->row;
	UW_BARRIER();
	return UW_GET(c->tid1) == tid + 1 && UW_GET(c->lo) == lo &&
	       UW_GET(c->hi) == hi;
}

/* Copies into out the row of table tid that covers address rel (the
 * last one whose pc is at or below rel); false if none: from the
 * cache, else by binary search (over the rows its page index gives, or
 * the whole table without one), which then fills the cache. */
static __always_inline bool uw_find_row(struct uw_buf *b, __u32 tid, __u64 rel,
					struct ftfb_uw_row *out)
{
	__u32 end, found, key;
	const struct ftfb_uw_table *t;
	const struct ftfb_uw_row *r, *next = NULL;
	struct uw_cached_row *c;

	key = (__u32)(((rel ^ ((__u64)tid << 32)) * 0x9e3779b97f4a7c15ull) >>
		      (64 - UW_CACHE_BITS));
	c = bpf_map_lookup_elem(&uw_row_cache, &key);
	if (c && uw_cache_get(c, tid, rel, out))
		return true;
	t = bpf_map_lookup_elem(&uw_tables, &tid);
	if (!t)
		return false;
	end = t->first + t->n;
	b->q.rel = rel;
	b->q.lo = t->first;
	b->q.hi = end;
	uw_idx_narrow(&b->q, tid);
	bpf_loop(UW_ROW_STEPS, uw_search_step, NULL, 0);
	/* (none at or below rel from where it began: none in the table, as
	 * that is the table's first row or one at or below rel's page's
	 * start, the index being the loader's, not the binary's. Compared
	 * with t->first, not that row's index: read back from q, it made
	 * the verifier check 29% more of ftfb_cpu_sample, 186,510
	 * instructions with main's off-CPU caches, not 144,386.) */
	if (b->q.lo <= t->first)
		return false;
	found = b->q.lo - 1;
	r = bpf_map_lookup_elem(&uw_rows, &found);
	if (!r)
		return false;
	*out = *r;
	if (!c)
		return true;
	if (b->q.lo < end) {
		found = b->q.lo;
		next = bpf_map_lookup_elem(&uw_rows, &found);
		if (!next || next->pc <= r->pc)
			return true; /* (sorted rows: cannot happen) */
	}
	uw_cache_put(c, tid, r, next ? next->pc : 0);
	return true;
}

static __always_inline bool uw_read(__u64 *out, __u64 addr)
{
	return !bpf_probe_read_user(out, sizeof(*out), (const void *)addr);
}

/* Notes the len (8 or 16) bytes v0 (v1) read at addr among the walk's
 * reads (b's rec_*), if it records them and they fit. Inlined in
 * uw_stack_read only, a global function the verifier checks once (as a
 * function of its own called from there, the BPF stack of the off-CPU
 * walk's deepest calls was over 512 bytes). */
static __always_inline void uw_record(struct uw_buf *b, __u64 addr, __u64 v0,
				      __u64 v1, __u32 len)
{
	__u32 i;
	__u64 off;

	if (!b->rec_on)
		return;
	off = addr - b->rec_sp;
	i = b->rec_n;
	if (addr < b->rec_sp || off > UW_REC_SPAN - 16 ||
	    i + len / 8 > UW_REC_WORDS) {
		b->rec_on = 0;
		return;
	}
	b->rec_off[i & (UW_REC_WORDS - 1)] = (__u32)off;
	b->rec_val[i & (UW_REC_WORDS - 1)] = v0;
	if (len == 16) {
		b->rec_off[(i + 1) & (UW_REC_WORDS - 1)] = (__u32)off + 8;
		b->rec_val[(i + 1) & (UW_REC_WORDS - 1)] = v1;
	}
	b->rec_n = i + len / 8;
	if (off + len > b->rec_span)
		b->rec_span = (__u32)off + len;
}

/* The walk read what its chain's cache cannot check again (a signal
 * frame's registers, the uprobe state): it is not cached. */
static __always_inline void uw_record_off(void)
{
	__u32 zero = 0;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);

	if (b)
		b->rec_on = 0;
}

/* Two stack words: what uw_stack_read reads into (one or both). */
struct uw_words {
	__u64 v[2];
};

/* Reads one word at addr of the stack being walked into out->v[0], or
 * with `two` two (v[0], v[1]), and notes them for the chain cache
 * (uw_record): from the window copied last when they are in it, else
 * after copying a new one from addr to the end of its page (UW_WIN
 * bytes at most). A frame then costs no helper call of its own: a read
 * of user memory costs as much as copying a kilobyte
 * (bench/HISTORY.md), and the frames of a stack lie together. The page
 * bound keeps a copy from failing where a read of the words would not
 * (the stack's last page, a guard page beyond); words across a page
 * end are read alone. A global function: inlined at each of its four
 * calls, the verifier checked it in every state of each
 * (ftfb_cpu_sample: 138,967 instructions checked, 63,186 as a
 * function). */
__noinline int uw_stack_read(struct uw_words *out, __u32 two, __u64 addr)
{
	/* (8 or 16 in a form the verifier bounds) */
	__u32 zero = 0, len = 8 + 8 * (two & 1);
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);
	__u64 off, n;

	if (!b || !out)
		return 0;
	off = addr - b->win_lo;
	if (!b->win_lo || addr < b->win_lo || off + len > b->win_len) {
		n = UW_PAGE - (addr & (UW_PAGE - 1));
		if (n > UW_WIN)
			n = UW_WIN;
		if (n < len) {
			if (bpf_probe_read_user(out, len, (const void *)addr))
				return 0;
			uw_record(b, addr, out->v[0], len == 16 ? out->v[1] : 0,
				  len);
			return 1;
		}
		b->win_lo = 0;
		if (bpf_probe_read_user(b->win, n, (const void *)addr))
			return 0;
		b->win_lo = addr;
		b->win_len = n;
		off = 0;
	}
	off &= UW_WIN - 1; /* (a bound the verifier sees: off + len <= n) */
	out->v[0] = *(const __u64 *)&b->win[off];
	if (len == 16)
		out->v[1] = *(const __u64 *)&b->win[off + 8];
	uw_record(b, addr, out->v[0], len == 16 ? out->v[1] : 0, len);
	return 1;
}

/* Stack switches a frame-pointer walk may take: Go's scheduler runs on
 * its thread's g0 stack, below the goroutine's frames it was called
 * from (mcall, systemstack keep rbp), which a walk outwards reaches by
 * going down once; more than a few such jumps is a chain gone wrong. */
#define UW_FP_JUMPS 2

/* One step through a frame by frame pointer (CFA = rbp + 16, the return
 * address at rbp + 8, the caller's rbp at rbp): code with no CFI that
 * keeps frame pointers (Go, V8's JIT code and builtins). A frame record
 * below the stack pointer is a stack switch, allowed UW_FP_JUMPS times;
 * rbp 0 is the chain's end (a goroutine's first frame, _start). On a
 * frame that cannot be one, `fail` is the walk's reason to stop. */
static __always_inline __u32 uw_step_fp(struct uw_walk *w, __u32 fail)
{
	struct uw_words pair;
	__u64 ra, bp;

	if (!w->bp_known)
		return fail;
	w->bp_used |= w->bp_regs;
	w->bp_uses++;
	if (!w->bp)
		return FTFB_UW_COMPLETE;
	if (w->bp & 7 || w->bp >= 0x800000000000ull)
		return fail;
	if (w->bp < w->sp && w->jumps++ >= UW_FP_JUMPS)
		return fail;
	if (!uw_stack_read(&pair, 1, w->bp))
		return fail;
	bp = pair.v[0];
	ra = pair.v[1];
	if (ra >= 0x800000000000ull)
		return fail;
	w->sp = w->bp + 16;
	w->bp = bp;
	w->bp_regs = false;
	w->bx_state = UW_BX_LOST;
	w->pc = ra;
	return ra ? UW_GO_ON : FTFB_UW_COMPLETE;
}

/* Whether return address pc is into Go's runtime.mstart (m->go_top): a
 * thread's first frame, past which the frame pointers are its parent's
 * (clone(2) gives the child the parent's rbp). */
static __always_inline bool uw_go_top(const struct uw_walk *w,
				      const struct ftfb_uw_map *m)
{
	return m->go_top && w->n > 1 &&
	       w->pc - m->start - m->go_top < FTFB_UW_GO_TOP_BYTES;
}

/* One step out of the [uprobes] page, where the kernel runs a probed
 * instruction's copy (single-stepped) and the uretprobe trampoline (to
 * which a probed function with a return probe returns): the thread's
 * uprobe state says where it really is. A copy's address maps back into
 * the probed instruction's (same frame, same registers). The trampoline
 * stands for a return address it replaced: the thread's return
 * instances, newest first, are met in that order walking outwards (the
 * cursor w->ri); the sp after that return is the slot it was in + 8. */
static __always_inline __u32 uw_step_uprobes(struct uw_walk *w)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct uprobe_task *ut = task->utask;
	struct return_instance *ri;
	__u64 slot;

	uw_record_off();
	if (!ut)
		return FTFB_UW_BAD_FRAME;
	slot = ut->xol_vaddr;
	if (ut->state != UTASK_RUNNING && w->pc >= slot &&
	    w->pc < slot + UW_XOL_SLOT_BYTES) {
		w->pc = ut->vaddr + (w->pc - slot);
		return UW_GO_ON;
	}
	ri = w->ri ? (struct return_instance *)w->ri : ut->return_instances;
	if (!ri)
		return FTFB_UW_BAD_FRAME;
	w->pc = BPF_CORE_READ(ri, orig_ret_vaddr);
	w->sp = BPF_CORE_READ(ri, stack) + 8;
	w->ri = (__u64)BPF_CORE_READ(ri, next);
	return w->pc ? UW_GO_ON : FTFB_UW_COMPLETE;
}

/* A thread stopped at a uprobe's breakpoint (int3, 0xCC, written over
 * the probed instruction) is one byte past it (or on it, once the kernel
 * has set its pc back) while the probe's handlers run, and the probed
 * instruction has not run: the walk records the address past the int3
 * (a return address's form: the symbolizer names the byte before it)
 * and takes the row of the int3's own address. Once the kernel has
 * emulated the instruction (push %rbp, at a function's entry), the pc
 * is past it and the frame an ordinary one: uw_frame tells the two by
 * the return address each would give (see there). Only in a thread with
 * uprobe state: elsewhere a 0xCC byte is padding or a debugger's. */
static __always_inline void uw_start(struct uw_walk *w, __u64 pc)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u8 op[2] = {0, 0};

	w->pc = pc;
	w->trapped = false;
	if (!task->utask || bpf_probe_read_user(op, 2, (void *)(pc - 1)))
		return;
	if (op[0] != 0xcc && op[1] == 0xcc)
		w->pc = pc + 1; /* set back onto the int3 */
	w->trapped = op[0] == 0xcc || op[1] == 0xcc;
}

/* Where the kernel's x86-64 signal frame (struct rt_sigframe, the
 * uapi's struct ucontext: uc_mcontext, a struct sigcontext, at 40) keeps
 * the interrupted rbp, rsp and rip, from the sp the handler returns with
 * (past the popped return address: the ucontext's start); the offsets
 * are the ABI's, the same as glibc's CFI for __restore_rt says. */
#define UW_SIG_RBP 120
#define UW_SIG_RSP 160
#define UW_SIG_RIP 168

/* One step through a signal frame: from the sigreturn trampoline (the
 * handler's return address, or where a sample found it) to the code the
 * signal interrupted, whose registers the kernel saved on the stack.
 * Its pc is where it stopped, not a return address: the walk records
 * it + 1, a return address's form, as for a uprobe's int3 (uw_start),
 * so that its row and its name are those of pc itself. */
static __always_inline __u32 uw_step_signal(struct uw_walk *w)
{
	__u64 pc, sp, bp;

	uw_record_off();
	if (!uw_read(&pc, w->sp + UW_SIG_RIP) ||
	    !uw_read(&sp, w->sp + UW_SIG_RSP) ||
	    !uw_read(&bp, w->sp + UW_SIG_RBP))
		return FTFB_UW_UNREADABLE;
	if (!pc || pc >= 0x800000000000ull || !sp)
		return FTFB_UW_BAD_FRAME;
	w->pc = pc + 1;
	w->sp = sp;
	w->bp = bp;
	w->bp_known = true;
	w->bp_regs = false;
	w->bx_state = UW_BX_LOST;
	return UW_GO_ON;
}

/* Whether pc is at a sigreturn trampoline that has no CFI (musl's, Go's
 * own): "mov $15, %rax; syscall" (rt_sigreturn), as gdb and libunwind
 * recognize it. glibc's __restore_rt has CFI (a signal frame's CIE). */
static __always_inline bool uw_at_sigreturn(__u64 pc)
{
	__u64 head = 0;
	__u8 tail = 0;

	return uw_read(&head, pc) && head == 0x0f0000000fc0c748ull &&
	       !bpf_probe_read_user(&tail, 1, (const void *)(pc + 8)) &&
	       tail == 0x05;
}

/* A step where no CFI covers pc: through a sigreturn trampoline, else by
 * frame pointer (Go, V8's JIT code and builtins). */
static __always_inline __u32 uw_step_nocfi(struct uw_walk *w, __u32 fail)
{
	if (uw_at_sigreturn(w->pc))
		return uw_step_signal(w);
	return uw_step_fp(w, fail);
}

static __always_inline bool uw_after_syscall(__u64 pc)
{
	__u8 op[2] = {0, 0};

	return !bpf_probe_read_user(op, 2, (const void *)(pc - 2)) &&
	       op[0] == 0x0f && op[1] == 0x05;
}

/* The CFA of a CFA_RBX row of offset cfa_off: rbx plus it, rbx as the
 * frames below left it (uw_rbx_rule); or, below 16, the reason the walk
 * stops. Such a walk is neither recorded nor kept: rbx may be the
 * registers' (as rdi at __vfork: uw_step_ra_rdi). A global function:
 * inlined in each walk, it doubled the instructions the verifier
 * checks for ftfb_cpu_sample (113,166 to 250,297). */
__noinline __u64 uw_cfa_rbx(__s64 cfa_off)
{
	struct uw_buf *b;
	__u32 zero = 0;
	__u64 bx;

	b = bpf_map_lookup_elem(&uw_bufs, &zero);
	if (!b || b->w.bx_state == UW_BX_LOST)
		return FTFB_UW_UNSUPPORTED;
	b->rec_on = false;
	bx = b->bx_regs;
	if (b->w.bx_state == UW_BX_AT &&
	    bpf_probe_read_user(&bx, 8, (const void *)b->bx_at))
		return FTFB_UW_UNREADABLE;
	return bx + cfa_off;
}

/* The caller's CFA by row r, or 0 when it cannot be known: the row
 * types whose reading needs the walk's state (its frame count, rax, the
 * code before pc, rbx) here, the rest by uw_rule.h, the same reading as
 * the userspace walk over a copied stack (which stops at CFA_RBX: a
 * copy has no registers of the frames below it). */
static __always_inline __u64 uw_cfa(const struct uw_walk *w,
				    const struct ftfb_uw_row *r, __u32 *why)
{
	switch (FTFB_UW_CFA_TYPE(r)) {
	case FTFB_UW_CFA_RSP_RET:
		/* a leaf may be in the epilogue, but not one just past a
		 * syscall instruction (0f 05): a thread blocked in the
		 * kernel, whose syscall compiled code never puts among the
		 * epilogue's pops */
		if (w->n <= 1 && !uw_after_syscall(w->pc)) {
			*why = FTFB_UW_NO_CFI;
			return 0;
		}
		break;
	case FTFB_UW_CFA_CLONE:
		if (w->n == 1 && !w->ax) { /* clone returned 0: the child */
			*why = FTFB_UW_COMPLETE;
			return 0;
		}
		break;
	case FTFB_UW_CFA_RBX: {
		__u64 cfa = uw_cfa_rbx(r->cfa_off);

		if (cfa >= 16)
			return cfa;
		*why = (__u32)cfa;
		return 0;
	}
	}
	return ftfb_uw_rule_cfa(r->type, r->cfa_off, w->pc, w->sp, w->bp,
				w->bp_known, why);
}

/* Where the caller's rbx is after a step by row r to CFA cfa: where
 * this frame saved it (below its rbp, or at its own offset), else where
 * it was. Kept as an address, read only by a CFA_RBX row above (one
 * frame in some thousands: a lazy binding's symbol lookup). Without a
 * branch per type (t: 1 below rbp, 2 at the offset, 3 lost): the
 * verifier's states stay as many. */
static __always_inline void uw_rbx_rule(struct uw_buf *b,
					const struct ftfb_uw_row *r, __u64 cfa)
{
	struct uw_walk *w = &b->w;
	__u64 t = FTFB_UW_RBX_TYPE(r);
	/* all ones when the frame saved rbx (t != 0: (t + 3) >> 2 is 1
	 * for 1 to 3); the barrier keeps clang from making it a branch */
	__u64 m = -((t + 3) >> 2);

	asm volatile("" : "+r"(m));
	b->bx_at = (b->bx_at & ~m) |
		   ((cfa + r->rbp_off8 * 8 - ((t & 1) << 3)) & m);
	/* (a slot holds it, known or not before; lost for t 3) */
	w->bx_state = (__u8)((w->bx_state & ~m) | ((1 + (t >> 1 & t & 1)) & m));
}

/* One step by the row of pc (pc - 1 for a return address: the call
 * may be the last instruction of its function). */
/* A step where the return address is in rdi (glibc's __vfork between
 * its pop and its push: a thread blocked in, or returning from, vfork):
 * known at the first frame only, from the registers. Its stack is not
 * cached (bpf/ustack_cache.bpf.h keys a walk by pc, sp and rax, not
 * rdi). */
static __always_inline __u32 uw_step_ra_rdi(struct uw_buf *b,
					    const struct ftfb_uw_row *r)
{
	struct uw_walk *w = &b->w;

	if (w->n != 1 || !w->di)
		return FTFB_UW_UNSUPPORTED;
	b->rec_on = false;
	w->sp += r->cfa_off;
	w->pc = w->di;
	return UW_GO_ON;
}

/* A step by the row of table `table` for the walk's pc, less the
 * binary's load bias. A global function: uw_frame_cfi takes it twice
 * (again at a uprobe's int3), and the verifier checked each inlined
 * copy in every state of the walk. */
__noinline __u32 uw_step_cfi(__u32 table, __u64 bias)
{
	__u32 zero = 0, why = FTFB_UW_NO_CFI;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);
	struct uw_walk *w;
	struct ftfb_uw_row row;
	const struct ftfb_uw_row *r = &row;
	struct uw_words pair;
	__u64 cfa, ra;
	bool found;
	__u8 by_bp;

	if (!b)
		return FTFB_UW_NO_CFI;
	w = &b->w;
	found = uw_find_row(b, table,
			    w->pc - (w->n > 1 || w->trapped ? 1 : 0) - bias,
			    &row);
	w->trapped = false;
	if (!found)
		return FTFB_UW_NO_CFI;
	if (FTFB_UW_CFA_TYPE(r) == FTFB_UW_CFA_SIGNAL)
		return uw_step_signal(w);
	if (FTFB_UW_CFA_TYPE(r) == FTFB_UW_CFA_RA_RDI)
		return uw_step_ra_rdi(b, r);
	cfa = uw_cfa(w, r, &why);
	if (!cfa)
		return why;
	uw_rbx_rule(b, r, cfa);
	/* a CFA from rbp (1 when the type is CFA_RBP, with no branch: one
	 * here multiplied the walker's states by 1.2), the registers' or
	 * not */
	by_bp = (__u8)((((__u64)(FTFB_UW_CFA_TYPE(r) ^ FTFB_UW_CFA_RBP) - 1) >>
			63));
	w->bp_used |= (__u8)(w->bp_regs & by_bp);
	w->bp_uses += by_bp;
	if (cfa <= w->sp)
		return FTFB_UW_BAD_FRAME; /* the stack grows down */
	/* rbp saved next to the return address (push %rbp first, the
	 * common case): both in one read, which fails where either would */
	if (FTFB_UW_RBP_TYPE(r) == FTFB_UW_RBP_AT_CFA && r->rbp_off8 == -2) {
		if (!uw_stack_read(&pair, 1, cfa - 16))
			return FTFB_UW_UNREADABLE;
		ra = pair.v[1];
		w->bp = pair.v[0];
		w->bp_known = true;
		w->bp_regs = false;
	} else {
		if (!uw_stack_read(&pair, 0, cfa - 8))
			return FTFB_UW_UNREADABLE;
		ra = pair.v[0];
		if (FTFB_UW_RBP_TYPE(r) == FTFB_UW_RBP_AT_CFA) {
			if (!uw_stack_read(&pair, 0, cfa + r->rbp_off8 * 8))
				return FTFB_UW_UNREADABLE;
			w->bp = pair.v[0];
			w->bp_known = true;
			w->bp_regs = false;
		} else if (FTFB_UW_RBP_TYPE(r) == FTFB_UW_RBP_LOST) {
			w->bp_known = false;
			w->bp_regs = false;
		}
	}
	w->sp = cfa;
	w->pc = ra;
	if (!ra) /* (a row from a prologue is a guess: it ends nothing) */
		return FTFB_UW_CFA_TYPE(r) == FTFB_UW_CFA_RSP_RET
			       ? FTFB_UW_BAD_FRAME
			       : FTFB_UW_COMPLETE;
	return UW_GO_ON;
}

/* One ip into a stack's hash: FNV-1a's step and a shift, the same as
 * stacks.bpf.c's hash_ips. */
static __always_inline __u64 uw_hash_step(__u64 h, __u64 ip)
{
	h = (h ^ ip) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

#include "utail.bpf.h"

/* A step by the CFI of binary m; where it has none for pc (V8's
 * builtins in node, hand-written assembly), by frame pointer. */
static __always_inline void uw_frame_cfi(struct uw_buf *b,
					 const struct ftfb_uw_proc *p,
					 const struct ftfb_uw_map *m, bool tail)
{
	struct uw_walk *w = &b->w, here, *before = tail ? &b->w_before : &here;

	/* (the state to go back to: in the map for a walk that may end
	 * with its thread's last walk's frames, whose calls left no room
	 * for its 80 bytes in the BPF stack's 512; on the stack for the
	 * others, which the verifier checks in fewer states) */
	*before = *w;
	w->reason = uw_step_cfi(m->table, m->bias);
	/* at a uprobe's int3: the instruction not run yet gives a
	 * return address in code; if not, it had run (emulated) */
	if (before->trapped && w->reason == UW_GO_ON &&
	    !uw_find_map(p, w->pc)) {
		*w = *before;
		w->trapped = false;
		w->reason = uw_step_cfi(m->table, m->bias);
	}
	if (w->reason == FTFB_UW_NO_CFI)
		w->reason = uw_step_nocfi(w, FTFB_UW_NO_CFI);
}

/* One frame: records its pc, then steps to its caller; 1 ends the walk
 * (w->reason says why). tail: the walk may end with the frames of its
 * thread's last walk (utail.bpf.h); a constant of each callback. */
static __always_inline long uw_frame_of(void *ctx, bool tail)
{
	__u32 zero = 0, tgid;
	const struct ftfb_uw_proc *p = ((struct uw_ctx *)ctx)->p;
	const struct ftfb_uw_map *m;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);
	struct uw_walk *w;

	if (!b)
		return 1;
	w = &b->w;
	tgid = w->tgid;
	if (w->n >= UW_DEPTH - 1) { /* the last slot: the stop frame */
		w->reason = FTFB_UW_DEPTH;
		return 1;
	}
	if (tail && uw_tail_step(b)) {
		w->reason = FTFB_UW_COMPLETE;
		return 1;
	}
	b->ips[w->n & UW_MASK] = w->pc;
	w->n++;
	w->hash = uw_hash_step(w->hash, w->pc);
	if (!p) {
		uw_want_stale(tgid, w->pc);
		w->reason = FTFB_UW_NOT_LOADED;
		return 1;
	}
	m = uw_find_map(p, w->pc);
	if (!m) {
		uw_want_stale(tgid, w->pc); /* mapped since (dlopen, JIT)? */
		w->reason = p->flags & FTFB_UW_PROC_FINAL
				    ? uw_step_fp(w, FTFB_UW_NO_MAPPING)
				    : FTFB_UW_NOT_LOADED; /* (copied:
							     bpf/unwind.h) */
	} else if (m->table == FTFB_UW_TABLE_PENDING) {
		uw_want_stale(tgid, w->pc); /* (its binary goes first) */
		w->reason = FTFB_UW_NOT_LOADED;
	} else if (m->table == FTFB_UW_TABLE_FP) {
		w->reason = uw_step_fp(w, FTFB_UW_BAD_FRAME);
	} else if (m->table == FTFB_UW_TABLE_UPROBES) {
		w->reason = uw_step_uprobes(w);
	} else if (m->table == FTFB_UW_TABLE_OVER_BUDGET) {
		/* no frame-pointer guess: a binary with CFI is rarely built
		 * with frame pointers, and a guess that reads a wrong rbp
		 * would go on through made-up callers and lose the reason */
		w->reason = FTFB_UW_OVER_BUDGET;
	} else if (m->table == FTFB_UW_TABLE_NONE) { /* Go: no .eh_frame */
		w->reason = uw_go_top(w, m) ? FTFB_UW_COMPLETE
					    : uw_step_nocfi(w, FTFB_UW_NO_CFI);
	} else {
		uw_frame_cfi(b, p, m, tail);
	}
	return w->reason != UW_GO_ON;
}

/* bpf_loop callbacks: a frame of a walk, of the current thread's that
 * may end with its last walk's frames, or of another. */
static long uw_frame(__u32 idx, void *ctx)
{
	return uw_frame_of(ctx, false);
}

static long uw_frame_tail(__u32 idx, void *ctx)
{
	return uw_frame_of(ctx, true);
}

/* Walks the user stack from (pc, sp, bp) of process tgid into out (up to
 * UW_DEPTH ips, leaf first, a stop frame last when it did not end at the
 * outermost frame); returns its size in bytes, as bpf_get_stack does,
 * and its hash (seeded with tgid), never 0. The hash is made here, as
 * the frames are found: a loop over the result in the caller would be
 * verified once per possible size (350,000 instructions, not 12,000).
 * record: note the stack words read (uw_buf's rec_*), for the cache of
 * whole chains (ustack_cache.bpf.h). tail: the walk of the current
 * thread, which may end with its last walk's frames and is kept as its
 * last (utail.bpf.h). */
static __always_inline long ftfb_uw_user_stack(const struct ftfb_uw_regs *r,
					       __u32 tgid, __u64 *out,
					       __u64 *hash, bool record,
					       bool tail)
{
	__u32 zero = 0, reason;
	__u64 n;
	struct uw_buf *b = bpf_map_lookup_elem(&uw_bufs, &zero);
	struct uw_ctx c;

	if (!b || !r->pc || r->pc >= FTFB_UW_STOP_BASE)
		return 0;
	uw_start(&b->w, r->pc);
	b->w.sp = r->sp;
	b->w.bp = r->bp;
	b->w.ax = r->ax;
	b->w.di = r->di;
	b->bx_regs = r->bx;
	b->w.bx_state = UW_BX_VALUE;
	b->w.bp_known = true;
	b->w.bp_regs = true;
	b->w.bp_used = false;
	b->w.tgid = tgid;
	b->w.n = 0;
	b->w.ri = 0;
	b->w.jumps = 0;
	b->w.bp_uses = 0;
	b->w.reason = FTFB_UW_DEPTH;
	b->w.hash = 0xcbf29ce484222325ull ^ tgid;
	b->win_lo = 0;
	b->rec_sp = r->sp;
	b->rec_n = 0;
	b->rec_span = 0;
	b->rec_on = (record || tail) && !b->w.trapped;
	b->ut_tried = 0;
	b->ut_k = 0;
	c.p = bpf_map_lookup_elem(&uw_procs, &tgid);
	b->ut_on = tail && c.p && !utail_off;
	if (tail) {
		bpf_loop(UW_DEPTH, uw_frame_tail, &c, 0);
		uw_tail_keep(b);
	} else {
		bpf_loop(UW_DEPTH, uw_frame, &c, 0);
	}
	n = b->w.n;
	reason = b->w.reason;
	if (reason != FTFB_UW_COMPLETE && n < UW_DEPTH) {
		b->ips[n++ & UW_MASK] = FTFB_UW_STOP_IP(reason);
		b->w.hash = uw_hash_step(b->w.hash, FTFB_UW_STOP_IP(reason));
	}
	*hash = b->w.hash ? b->w.hash : 1;
	uw_count(reason);
	uw_count(FTFB_UW_STAT_STACKS);
	n &= 0xff; /* (a bound the verifier sees) */
	if (!n || n > UW_DEPTH ||
	    bpf_probe_read_kernel(out, n * sizeof(__u64), b->ips))
		return 0;
	return n * sizeof(__u64);
}

/* The user registers of a task in the kernel (blocked, or in a system
 * call when sampled): those it entered the kernel with. false: a
 * kernel thread (no user stack). */
static __always_inline bool ftfb_uw_task_regs(struct task_struct *t,
					      struct ftfb_uw_regs *out)
{
	struct pt_regs *r;

	if (!t->mm)
		return false;
	r = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!r)
		return false;
	out->pc = r->ip;
	out->sp = r->sp;
	out->bp = r->bp;
	out->ax = r->ax;
	out->di = r->di;
	out->bx = r->bx;
	return true;
}

/* Whether a perf event interrupted user code (an ip below the kernel's
 * half: the context allows no read of cs). */
static __always_inline bool
ftfb_uw_perf_in_user(struct bpf_perf_event_data *ctx)
{
	__u64 ip = ctx->regs.ip;

	asm volatile("" : "+r"(ip));
	return ip < 0x800000000000ull;
}

/* The user registers at a perf event: the interrupted ones when it hit
 * user code, else the current task's at its entry into the kernel. */
static __always_inline bool ftfb_uw_perf_regs(struct bpf_perf_event_data *ctx,
					      struct ftfb_uw_regs *out)
{
	/* (the context allows only direct 8-byte reads of the registers,
	 * hence no cs: the interrupted ip tells user mode, below the
	 * kernel's half; the barrier keeps clang from merging the loads) */
	__u64 ip = ctx->regs.ip, sp = ctx->regs.sp, bp = ctx->regs.bp,
	      ax = ctx->regs.ax, di = ctx->regs.di, bx = ctx->regs.bx;

	asm volatile(""
		     : "+r"(ip), "+r"(sp), "+r"(bp), "+r"(ax), "+r"(di),
		       "+r"(bx));
	if (ip < 0x800000000000ull) {
		out->pc = ip;
		out->sp = sp;
		out->bp = bp;
		out->ax = ax;
		out->di = di;
		out->bx = bx;
		return true;
	}
	return ftfb_uw_task_regs(bpf_get_current_task_btf(), out);
}

/* Image `image` of process tgid ended (exec, exit): its entry moves to
 * uw_exited. */
static __always_inline void uw_end(__u32 tgid, __u32 image)
{
	struct ftfb_uw_ended key = {tgid, image};
	const struct ftfb_uw_proc *e;

	e = bpf_map_lookup_elem(&uw_procs, &tgid);
	if (e)
		bpf_map_update_elem(&uw_exited, &key, e, BPF_ANY);
	else /* (never an earlier process's entry for this one) */
		bpf_map_delete_elem(&uw_exited, &key);
	bpf_map_delete_elem(&uw_procs, &tgid);
}

/* An exec'd process runs a new image: its old table must go (and the
 * new one is wanted at once, if it is traced); so must an exited one's
 * (its pid may come back as another process). */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(ftfb_uw_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;

	uw_end(tgid, FTFB_IMAGE_ID(p) - 1); /* (raised already) */
	if (armed && (!filter_tgids || ftfb_traced(tgid)))
		uw_want(tgid, 0);
	return 0;
}

/* The image about to be replaced, still mapped: refreshed if its walks
 * found it stale (uw_refresh.bpf.h), before the exec ends it. (A
 * tracepoint since Linux 6.10: the loader leaves it out before.) */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(ftfb_uw_prepare_exec, struct task_struct *p,
	     struct linux_binprm *bprm)
{
	uw_refresh(p, FTFB_IMAGE_ID(p));
	return 0;
}

/* A forked child runs its parent's image at the same addresses until it
 * execs: it starts with a copy of the parent's entry, so its first
 * samples walk whole (a shell's subshells, a server's workers, the
 * children posix_spawn makes before their exec), where it had none until
 * the loader read its maps, milliseconds later: most such children are
 * gone by then (bench/HISTORY.md: 389 of 390 samples of `$(...)`
 * subshells stopped "not loaded yet"). A thread shares its entry. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(ftfb_uw_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	const struct ftfb_uw_proc *p;

	if (ptgid == ctgid)
		return 0;
	p = bpf_map_lookup_elem(&uw_procs, &ptgid);
	if (p)
		bpf_map_update_elem(&uw_procs, &ctgid, p, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ftfb_uw_exit, struct task_struct *p)
{
	if (p->pid == p->tgid) {
		uw_refresh(p, FTFB_IMAGE_ID(p));
		uw_end(p->tgid, FTFB_IMAGE_ID(p));
	}
	return 0;
}

#endif
