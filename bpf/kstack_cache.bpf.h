/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/kstack_cache.bpf.h - the kernel stacks of threads blocking, found
 * again without the kernel's unwinder: bpf_get_stack at sched_switch costs
 * 13 to 20 us on this VM (ORC lookups and checks of each frame's text,
 * all cold: bench/HISTORY.md), most of an off-CPU stack's cost, while a
 * thread mostly blocks where it, or another thread, blocked before.
 *
 * A kernel stack is a chain of return addresses kept in the stack itself,
 * each in a slot whose place below the task's pt_regs (the top of its
 * kernel stack) the unwinder derives from the frame below it: the ORC
 * unwinder is a function of the ips and of where they are. So a chain
 * found once (its ips and the distance of each one's slot below pt_regs)
 * is the chain again wherever those slots hold those ips: the entries here
 * are checked word by word against the stack before use, never trusted.
 * Keyed by the depth of the switch (where this program's frame lies below
 * pt_regs: the same path gives the same depth) and the system call. The
 * kernel moves each system call's stack down by a random 0 to 1008 bytes
 * (CONFIG_RANDOMIZE_KSTACK_OFFSET: 64 offsets), so a path has up to 64
 * depths, each an entry of its own found once unwound: a thread blocking
 * 300 times in each of three paths finds about 80% again (the test
 * `kstack cache`), -a -g beside a build 93% (one run), beside
 * bpf_cost_bench's xz and CPython loops 79% (bench/HISTORY.md).
 *
 * Used only at sched_switch, where the blocking task is current and its
 * stack is the one this program runs on (hot in the cache).
 *
 * The slots are found once per new chain by scanning the stack for the
 * ips the unwinder gave, outermost first, from pt_regs down. A stale
 * copy of a return address left in a frame's unset locals could be taken
 * for a slot: the entry then fails its checks (and is replaced), unless
 * a later stack holds that same stale word there too, so a rare wrong
 * chain is possible, as for ORC's frames that use rbp (not checked).
 *
 * Included by stacks.bpf.c (needs its DEPTH).
 */
#ifndef FTFB_KSTACK_CACHE_BPF_H
#define FTFB_KSTACK_CACHE_BPF_H

#define KC_MAX 32    /* frames of a chain kept (deeper ones: unwound) */
#define KC_WORDS 512 /* the stack words below pt_regs a chain may use */
#define KC_WMASK (KC_WORDS - 1)

struct kc_key {
	__u32 depth; /* this program's frame's distance below pt_regs */
	__s32 nr;    /* the system call (pt_regs orig_ax; -1: none) */
};

struct kc_chain {
	__u32 n;
	__u16 slot[KC_MAX]; /* ips[i]'s word: slot[i] words below pt_regs */
	__u64 ips[KC_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192); /* 2.7 MB */
	__type(key, struct kc_key);
	__type(value, struct kc_chain);
} kstack_chains SEC(".maps");

/* the words of the stack below pt_regs, and a chain copied out of the
 * map (another cpu may rewrite the entry meanwhile), per cpu */
struct kc_buf {
	__u64 w[KC_WORDS];
	struct kc_chain c;
	__u32 nw; /* the words read: w[nw - k] is the kth below pt_regs */
	__u32 j;  /* the scan: the next ip to find, + 1 */
	/* the switch's key and pt_regs (here: the BPF stack is full) */
	struct kc_key k;
	__u64 top;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kc_buf);
} kc_bufs SEC(".maps");

/* The key of current's switch into b->k, its pt_regs (the top of its
 * kernel stack, where the chain's slots are counted from) into b->top:
 * false if there is none. */
static __always_inline bool kc_key_of(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	__u32 zero = 0;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);
	__u64 here = 0, dist;

	if (!r || !b)
		return false;
	/* (pointer differences: a scalar to a program that may read
	 * kernel memory, as this one does) */
	dist = (__u64)r - (__u64)&here;
	asm volatile("" : "+r"(dist));
	if (dist >= KC_WORDS * 8 * 4)
		return false;
	b->k.depth = (__u32)dist;
	b->k.nr = (__s32)BPF_CORE_READ(r, orig_ax);
	b->top = (__u64)r;
	return true;
}

/* Reads the n (1..KC_WORDS) words below top into b->w[0 .. n). */
static __always_inline bool kc_read_words(struct kc_buf *b, __u64 top, __u32 n)
{
	if (!n || n > KC_WORDS)
		return false;
	b->nw = n;
	return !bpf_probe_read_kernel(b->w, n * 8, (const void *)(top - n * 8));
}

/* Whether word `slot` below top (in the words read) is ip. */
static __always_inline bool kc_holds(const struct kc_buf *b, __u32 slot,
				     __u64 ip)
{
	__u32 nw = b->nw;

	return slot && slot <= nw && nw <= KC_WORDS &&
	       b->w[(nw - slot) & KC_WMASK] == ip;
}

/* The chain cached for current's switch (kc_key_of's) if the stack
 * holds it: its ips copied to ips (room for KC_MAX), their number
 * returned (0: none, or not there). */
static __always_inline __u32 kc_get(__u64 *ips)
{
	__u32 zero = 0, n;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);
	const struct kc_chain *c;

	if (!b)
		return 0;
	c = bpf_map_lookup_elem(&kstack_chains, &b->k);
	if (!c || bpf_probe_read_kernel(&b->c, sizeof(b->c), c))
		return 0;
	n = b->c.n;
	if (!n || n > KC_MAX || !kc_read_words(b, b->top, b->c.slot[0]))
		return 0;
	for (__u32 i = 0; i < KC_MAX; i++) {
		if (i >= n)
			break;
		if (!kc_holds(b, b->c.slot[i], b->c.ips[i]))
			return 0;
	}
	bpf_probe_read_kernel(ips, sizeof(b->c.ips), b->c.ips);
	return n;
}

/* bpf_loop callback of kc_put's scan: word idx (0: the one right below
 * pt_regs) holds the next ip sought? 1 ends the scan. */
static long kc_scan_word(__u32 idx, void *ctx)
{
	__u32 zero = 0, j;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);

	if (!b)
		return 1;
	j = b->j;
	if (!j || j > KC_MAX)
		return 1;
	if (!kc_holds(b, idx + 1, b->c.ips[(j - 1) & 31]))
		return 0;
	b->c.slot[(j - 1) & 31] = (__u16)(idx + 1);
	b->j = j - 1;
	return j == 1;
}

/* Caches the chain ips[0..n) the unwinder gave for current's switch
 * (kc_key_of's): where each ip's slot is, found by scanning the stack
 * for them, outermost first; not cached if one is missing. */
static __always_inline void kc_put(const __u64 *ips, __u32 n)
{
	__u32 zero = 0;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);

	if (!b || !n || n > KC_MAX || !kc_read_words(b, b->top, KC_WORDS))
		return;
	if (bpf_probe_read_kernel(b->c.ips, sizeof(b->c.ips), ips))
		return;
	b->c.n = n;
	b->j = n;
	bpf_loop(KC_WORDS, kc_scan_word, NULL, 0);
	if (b->j) /* (not all found: deeper than KC_WORDS, or not there) */
		return;
	bpf_map_update_elem(&kstack_chains, &b->k, &b->c, BPF_ANY);
}

#endif
