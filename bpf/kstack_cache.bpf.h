/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/kstack_cache.bpf.h - the kernel stacks of threads blocking, found
 * again without the kernel's unwinder: bpf_get_stack at sched_switch costs
 * 13 to 20 us on this VM (ORC lookups and checks of each frame's text,
 * all cold: bench/HISTORY.md), most of an off-CPU stack's cost, while a
 * thread mostly blocks where it, or another thread, blocked before.
 *
 * A kernel stack is a chain of return addresses kept in the stack itself,
 * each in a slot whose place the unwinder derives from the frame below
 * it: the ORC unwinder is a function of the ips and of where they are.
 * So a chain found once (its ips and where each one's slot lies) is the
 * chain again wherever those slots hold those ips: the entries here are
 * checked word by word against the stack before use, never trusted.
 *
 * Where the slots lie: the kernel moves each system call's stack down by
 * a random 0 to 1008 bytes (CONFIG_RANDOMIZE_KSTACK_OFFSET: 64 offsets),
 * in do_syscall_64, below the return address into the entry code (the
 * word right below pt_regs). Every frame below that gap keeps its place
 * relative to this program's own frame, whatever the offset: so the
 * slots are counted up from this program's frame (`here`), and the one
 * right below pt_regs is marked as such. Keyed by the system call and the
 * return address into the function that called schedule() (its slot is
 * the same for every block: __schedule's and schedule()'s frames lie
 * between; learned from the first chain cached), and the one into its
 * caller (kc_ret3_slots). When the slots were
 * counted from pt_regs, with the depth in the key, a path had up to 64
 * entries, each unwound once: a thread blocking 300 times in each of
 * three paths found about 80% again (the test `kstack cache`), beside
 * bpf_cost_bench's xz and CPython loops 79%.
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

struct kc_key {
	__u64 ret2; /* the word kc_ret2_slot words above `here` */
	__u64 ret3; /* the word kc_ret3_slots[ret2] words above (0: none) */
	__s32 nr;   /* the system call (pt_regs orig_ax; -1: none) */
	__u32 _pad;
};

/* slot[i]: ips[i]'s word is slot[i] words above `here`, or right below
 * pt_regs (KC_AT_TOP) */
#define KC_AT_TOP 0
#define KC_UP_MAX (KC_WORDS * 4) /* words above `here`: the kernel stack */
struct kc_chain {
	__u32 n;
	__u16 slot[KC_MAX];
	__u64 ips[KC_MAX];
};

/* the slot (words above `here`) of the return address into schedule()'s
 * caller: set by the first chain cached (0: none yet) */
volatile __u32 kc_ret2_slot = 0;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192); /* 3.4 MB */
	__type(key, struct kc_key);
	__type(value, struct kc_chain);
} kstack_chains SEC(".maps");

/* Per return address into schedule()'s caller (ret2), the slot of the
 * return address into that caller's caller (ret3, in the key too): the
 * caller's frame size sets it. Without ret3, one key held paths that
 * part above schedule()'s caller (schedule_timeout's callers, say): 60
 * of 600 stacks beside xz and CPython failed their check at that frame
 * and were unwound again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096); /* 0.3 MB */
	__type(key, __u64);
	__type(value, __u32);
} kc_ret3_slots SEC(".maps");

/* a chain copied out of the map (another cpu may rewrite the entry
 * meanwhile), per cpu */
struct kc_buf {
	struct kc_chain c;
	__u32 j;  /* the scan: the next ip to find, + 1 */
	/* the switch's key, pt_regs and `here` (kept here: the BPF stack
	 * is full) */
	struct kc_key k;
	__u64 top, here;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kc_buf);
} kc_bufs SEC(".maps");

/* The word at addr, read where it lies: a load the JIT makes with an
 * exception fix-up (bpf_core_cast: an untrusted pointer, read as probe
 * memory), not a helper call. Checking a chain so costs its 10 to 30
 * loads; copying the stack out first cost 3.7 us per chain found (ktime
 * probes, bench/HISTORY.md). */
static __always_inline __u64 kc_word_at(__u64 addr)
{
	/* (any type whose first member is a word: pt_regs' r15) */
	const struct pt_regs *w = bpf_core_cast((void *)addr, struct pt_regs);

	return w->r15;
}

/* The word of a chain's slot (see struct kc_chain); 0 if out of range. */
static __always_inline __u64 kc_slot_word(const struct kc_buf *b, __u32 slot)
{
	if (slot == KC_AT_TOP)
		return kc_word_at(b->top - 8);
	if (slot >= KC_UP_MAX)
		return 0;
	return kc_word_at(b->here + (__u64)slot * 8);
}

/* The key of current's switch into b->k, its pt_regs (the top of its
 * kernel stack) into b->top and this program's frame into b->here: false
 * if there is none. */
static __always_inline bool kc_key_of(struct task_struct *t)
{
	struct pt_regs *r = (struct pt_regs *)bpf_task_pt_regs(t);
	__u32 zero = 0, s2 = kc_ret2_slot, *s3;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);
	__u64 here = 0, dist;

	if (!r || !b)
		return false;
	/* (pointer differences: a scalar to a program that may read
	 * kernel memory, as this one does) */
	dist = (__u64)r - (__u64)&here;
	asm volatile("" : "+r"(dist));
	if (dist >= KC_UP_MAX * 8)
		return false;
	b->top = (__u64)r;
	b->here = b->top - dist;
	b->k.nr = (__s32)BPF_CORE_READ(r, orig_ax);
	b->k._pad = 0;
	b->k.ret2 = s2 && s2 < dist / 8 ? kc_slot_word(b, s2) : 0;
	s3 = b->k.ret2 ? bpf_map_lookup_elem(&kc_ret3_slots, &b->k.ret2) : NULL;
	b->k.ret3 = s3 && *s3 && *s3 < dist / 8 ? kc_slot_word(b, *s3) : 0;
	return true;
}

/* The chain cached for current's switch (kc_key_of's) if the stack
 * holds it: its ips copied to ips (room for KC_MAX), their number
 * returned (0: none, or not there). */
static __always_inline __u32 kc_get(__u64 *ips)
{
	__u32 zero = 0, n;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);
	const struct kc_chain *c;

	if (!b || !b->k.ret2)
		return 0;
	c = bpf_map_lookup_elem(&kstack_chains, &b->k);
	if (!c || bpf_probe_read_kernel(&b->c, sizeof(b->c), c))
		return 0;
	n = b->c.n;
	if (!n || n > KC_MAX)
		return 0;
	for (__u32 i = 0; i < KC_MAX; i++) {
		if (i >= n)
			break;
		if (kc_slot_word(b, b->c.slot[i]) != b->c.ips[i])
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
	if (kc_word_at(b->top - (__u64)(idx + 1) * 8) != b->c.ips[(j - 1) & 31])
		return 0;
	/* (as words above `here`: the scan stays above it, see kc_put) */
	b->c.slot[(j - 1) & 31] =
		idx ? (__u16)((b->top - b->here) / 8 - (idx + 1)) : KC_AT_TOP;
	b->j = j - 1;
	return j == 1;
}

/* Caches the chain ips[0..n) the unwinder gave for current's switch
 * (kc_key_of's): where each ip's slot is, found by scanning the stack
 * for them, outermost first, from pt_regs down to `here` at most; not
 * cached if one is missing, or if its third ip (the return into
 * schedule()'s caller: the key) is not where the first chain's was. */
static __always_inline void kc_put(const __u64 *ips, __u32 n)
{
	__u32 zero = 0, words, s2, s3;
	struct kc_buf *b = bpf_map_lookup_elem(&kc_bufs, &zero);

	if (!b || n < 3 || n > KC_MAX)
		return;
	if (bpf_probe_read_kernel(b->c.ips, sizeof(b->c.ips), ips))
		return;
	words = (__u32)((b->top - b->here) / 8);
	b->c.n = n;
	b->j = n;
	bpf_loop(words < KC_WORDS ? words : KC_WORDS, kc_scan_word, NULL, 0);
	if (b->j) /* (not all found: deeper than KC_WORDS, or not there) */
		return;
	s2 = b->c.slot[2];
	if (s2 == KC_AT_TOP)
		return;
	if (!kc_ret2_slot)
		kc_ret2_slot = s2;
	if (s2 != kc_ret2_slot)
		return;
	b->k.ret2 = b->c.ips[2];
	s3 = n > 3 ? b->c.slot[3] : 0;
	b->k.ret3 = s3 ? b->c.ips[3] : 0;
	bpf_map_update_elem(&kc_ret3_slots, &b->k.ret2, &s3, BPF_ANY);
	bpf_map_update_elem(&kstack_chains, &b->k, &b->c, BPF_ANY);
}

#endif
