// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/stacks.bpf.c - stack samples (--stacks): on CPU, a perf event per
 * cpu (cpu-clock at --freq HZ) runs ftfb_cpu_sample on the task it
 * interrupts; off CPU, at each context switch where a traced thread
 * blocks (not a preemption) its stacks are kept with the thread, and sent
 * with the time off CPU when it runs again.
 *
 * Stacks are deduplicated here: each stack is known by a 64-bit hash, and
 * its ips go to userspace only with the first event that shows it (the
 * `sent` LRU map remembers which went; an evicted one is sent again).
 * Events go to ring 0, so a stack's ips always come before the events
 * that only name its hash.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 self_tgid = 0; /* never the tracer's own */
/* FTFB_NO_UTAIL set (benches): no on-CPU walk ends with its thread's
 * last walk's frames (utail.bpf.h) */
const volatile __u32 utail_off = 0;
/* FTFB_NO_KCACHE set (checks, benches): every kernel stack at a block is
 * unwound by the kernel, none found again (kstack_cache.bpf.h) */
const volatile __u32 kcache_off = 0;
/* set by the loader once the programs are attached, cleared at stop */
volatile __u32 armed = 0;

#include "unwind.bpf.h"

#define DEPTH FTFB_STACK_MAX_DEPTH
#define STACK_BYTES (DEPTH * sizeof(__u64))
/* user, kernel and Python entries, rounded up to a power of 2 (the
 * Python reader masks its indexes with it) */
#define FTFB_STACK_BUF_IPS 512
#define MAX_SENT (2 * DEPTH + FTFB_PY_MAX_DEPTH)

struct stack_buf {
	struct ftfb_stack ev;
	__u64 ips[FTFB_STACK_BUF_IPS];
};

/* the sample being built, per cpu (too large for the BPF stack) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_buf);
} scratch SEC(".maps");

/* the waker's sample being built (--events=waker): apart, as the on-CPU
 * sampler's timer interrupt may come in the middle of it */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_buf);
} waker_scratch SEC(".maps");

/* The stack hashes whose ips userspace has: a table of sets of two,
 * indexed by the hash. An array: the verifier inlines its lookup, one
 * cache line per question; the LRU hash map it replaces took the hashing
 * of the key, a bucket and an element, about a microsecond per question
 * beside xz or a build (bench/HISTORY.md). A hash pushed out of its set
 * by two newer ones is sent again, as an evicted one was. */
#define SENT_SETS 65536
struct sent_set {
	__u64 h[2]; /* the newer first; 0: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SENT_SETS); /* 1 MiB */
	__type(key, __u32);
	__type(value, struct sent_set);
} sent SEC(".maps");

/* threads off CPU: the sample taken as they blocked, in a note of the
 * thread's own (task storage: found from the task, the cheapest lookup
 * a switch can make, and most switches find no note or an empty one,
 * where two hash lookups each cost a microsecond on a busy machine:
 * bench/HISTORY.md). The note holds the sample when userspace has both
 * its stacks, the common case; else its ips are in `blocked`, by tid. */
enum { OFF_NONE = 0, OFF_KNOWN = 1, OFF_IPS = 2 };

struct off_note {
	struct ftfb_stack ev; /* (OFF_KNOWN) */
	__u32 state;	      /* OFF_* */
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct off_note);
} off_notes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct stack_buf);
} blocked SEC(".maps");

static __always_inline bool recorded(__u32 tid, __u32 tgid)
{
	if (!armed || !tid || (self_tgid && tgid == self_tgid))
		return false;
	return !filter_tgids || ftfb_traced(tgid);
}

static __always_inline __u64 hash_ips(const __u64 *ips, __u32 n, __u64 seed)
{
	__u64 h = 0xcbf29ce484222325ull ^ seed;

	for (__u32 i = 0; i < DEPTH; i++) {
		if (i >= n)
			break;
		h = (h ^ ips[i]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

static __always_inline struct sent_set *sent_set_of(__u64 hash)
{
	__u32 i = (__u32)(hash ^ (hash >> 32)) & (SENT_SETS - 1);

	return bpf_map_lookup_elem(&sent, &i);
}

static __always_inline bool sent_set_holds(const struct sent_set *set,
					   __u64 hash)
{
	return set->h[0] == hash || set->h[1] == hash;
}

static __always_inline bool was_sent(__u64 hash)
{
	struct sent_set *set = sent_set_of(hash);

	return hash && set && sent_set_holds(set, hash);
}

/* hash's ips reached the ring. (Two CPUs noting hashes of one set at
 * once may leave one out: it is sent again. Each word is written whole,
 * so the set never holds a hash not noted.) */
static __always_inline void note_sent(__u64 hash)
{
	struct sent_set *set = sent_set_of(hash);

	if (!hash || !set || sent_set_holds(set, hash))
		return;
	set->h[1] = set->h[0];
	set->h[0] = hash;
}

static __always_inline void mark_sent(const struct ftfb_stack *ev)
{
	if (ev->nu)
		note_sent(ev->uhash);
	if (ev->nk)
		note_sent(ev->khash);
	if (ev->py.n)
		note_sent(ev->py.hash);
}

#include "pystack.bpf.h"
#include "stackcopy.bpf.h"
#include "kstack_cache.bpf.h"
#include "ustack_cache.bpf.h"

/* Fills s with current's stacks: hashes always, ips of the stacks not
 * sent yet (user ones first, then kernel ones, then Python ones). ur:
 * the user registers (NULL: no user stack); the user stack is walked by
 * its CFI (unwind.bpf.h). kskip: the innermost kernel frames to leave out
 * (those of the BPF call itself). pe: ctx is a perf event's, whose
 * kernel stack is asked for only if it interrupted kernel code (the
 * kernel's callchain of user code is empty, and asking costs a
 * microsecond on a busy machine: bench/HISTORY.md); the test comes after
 * the user walk, which the verifier would otherwise check once for each
 * outcome. kc: ctx is sched_switch's, current blocking: its stacks
 * may be ones seen before (kstack_cache.bpf.h, ustack_cache.bpf.h);
 * blocking: kc is given (a constant at each call). Else the user walk
 * may end with the thread's last walk's frames (utail.bpf.h). */
static __always_inline void take_stacks(void *ctx, struct stack_buf *s,
					__u32 tgid, __u64 kskip,
					const struct ftfb_uw_regs *ur, bool pe,
					struct task_struct *kc, bool blocking)
{
	long ub = 0, kb;
	__u32 nu = 0, nk = 0, off, kn = 0;
	bool keyed;

	/* (kc && ...: a test the compiler settles at each call, so that
	 * the off-CPU program holds one walk, not two for the verifier) */
	if (ur && kc && blocking)
		ub = ftfb_uw_user_stack_blocking(kc, ur, tgid, s->ips,
						 &s->ev.uhash);
	else if (ur && !blocking)
		ub = ftfb_uw_user_stack(ur, tgid, s->ips, &s->ev.uhash, false,
					true);
	if (ub > 0)
		nu = (__u32)ub / 8;
	if (nu > DEPTH)
		nu = DEPTH;
	if (!nu) /* (the walker gave the hash of the nu it found) */
		s->ev.uhash = 0;
	/* the kernel ips go after the user ones only if those are sent */
	off = nu && !was_sent(s->ev.uhash) ? nu : 0;
	s->ev.nu = off;
	keyed = kc && !kcache_off && kc_key_of(kc);
	if (keyed)
		kn = kc_get(&s->ips[off & DEPTH]);
	if (kn) {
		s->ev.nk = kn;
	} else {
		kb = pe && ftfb_uw_perf_in_user(ctx)
			     ? 0
			     : bpf_get_stack(ctx, &s->ips[off & DEPTH],
					     STACK_BYTES,
					     kskip & BPF_F_SKIP_FIELD_MASK);
		s->ev.nk = kb > 0 ? (__u32)kb / 8 : 0;
	}
	/* (through the map: a count the verifier does not know, the same
	 * whether the kernel was asked or not, so that it walks what
	 * follows once, not once for each) */
	nk = *(volatile __u16 *)&s->ev.nk;
	if (nk > DEPTH)
		nk = DEPTH;
	if (keyed && !kn)
		kc_put(&s->ips[off & DEPTH], nk);
	if (keyed)
		uw_count(kn ? FTFB_UW_STAT_KSTACK_FOUND
			    : FTFB_UW_STAT_KSTACK_UNWOUND);
	s->ev.khash = nk ? hash_ips(&s->ips[off & DEPTH], nk, 0) : 0;
	s->ev.nk = nk && !was_sent(s->ev.khash) ? nk : 0;
	/* Python frames (a CPython thread): after the ips to send */
	ftfb_py_take(&s->ev.py, s->ips, (off + s->ev.nk) & 255,
		     (__u32)bpf_get_current_pid_tgid(), tgid, kskip != 0);
}

/* Sends ev and the n ips that follow it to ring 0 (a verifier-friendly
 * size: n is bounded by the caller's buffer). */
static __always_inline void send_n(struct ftfb_stack *ev, __u32 n, __u32 kind,
				   __u32 cpu)
{
	void *rb;

	ftfb_count(&fired, kind);
	rb = ftfb_ring_of(kind, cpu);
	ev->hdr.kind = kind;
	ev->hdr._pad = 0;
	ev->_pad = 0;
	if (!rb || bpf_ringbuf_output(rb, ev, sizeof(*ev) + n * sizeof(__u64),
				      ftfb_wake_flags(rb))) {
		ftfb_count(&drops, kind);
		return;
	}
	mark_sent(ev);
}

/* Sends s (its header, weight and ips filled) to ring 0. */
static __always_inline void send(struct stack_buf *s, __u32 kind, __u32 cpu)
{
	__u32 n = s->ev.nu + s->ev.nk + s->ev.py.n;

	if (n > MAX_SENT)
		n = MAX_SENT;
	send_n(&s->ev, n, kind, cpu);
}

SEC("perf_event")
int ftfb_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, tgid = id >> 32, zero = 0;
	__u32 cpu = bpf_get_smp_processor_id();
	struct ftfb_uw_regs ur;
	struct stack_buf *s;

	if (!recorded(tid, tgid))
		return 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	s->ev.hdr.ts = bpf_ktime_get_ns();
	s->ev.hdr.cpu = cpu;
	s->ev.hdr.tid = tid;
	s->ev.hdr.tgid = tgid;
	s->ev.weight = 1;
	ftfb_sc_forget();
	take_stacks(ctx, s, tgid, 0, ftfb_uw_perf_regs(ctx, &ur) ? &ur : NULL,
		    true, NULL, false);
	/* a walk that stopped "not loaded yet": with a copy of the stack */
	if (ftfb_sc_send(s, ftfb_ring_of(FTFB_EV_STACK_COPY, cpu))) {
		/* (its stacks are not marked sent: it reaches the sink
		 * later than the samples after it, which send their own) */
		ftfb_count(&fired, FTFB_EV_STACK_COPY);
		return 0;
	}
	send(s, FTFB_EV_STACK_ON, cpu);
	return 0;
}

/* next ran again: its time off CPU, with the stack it blocked in */
static __always_inline void woke(struct task_struct *next, __u64 now, __u32 cpu)
{
	struct off_note *n = bpf_task_storage_get(&off_notes, next, NULL, 0);
	struct stack_buf *b;
	__u32 tid;

	if (!n || n->state == OFF_NONE)
		return;
	if (n->state == OFF_KNOWN) {
		n->state = OFF_NONE;
		n->ev.weight = now - n->ev.hdr.ts;
		send_n(&n->ev, 0, FTFB_EV_STACK_OFF, cpu);
		return;
	}
	n->state = OFF_NONE;
	tid = next->pid;
	b = bpf_map_lookup_elem(&blocked, &tid);
	if (!b)
		return;
	b->ev.weight = now - b->ev.hdr.ts;
	send(b, FTFB_EV_STACK_OFF, cpu);
	bpf_map_delete_elem(&blocked, &tid);
}

/* The frames of the tracepoint's call of this program, innermost first:
 * the program, bpf_trace_run4, __traceiter_sched_switch (Linux 6.x); the
 * stack then starts at __schedule. */
#define TP_FRAMES 3

/* --events=waker (loaded only then): at each wakeup of a traced thread,
 * the stacks of the task that wakes it (current). The frames of the call
 * of this program are those of sched_switch's (TP_FRAMES): the kernel
 * stack starts at try_to_wake_up. */
SEC("?tp_btf/sched_waking")
int BPF_PROG(ftfb_waker_stack, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	struct ftfb_uw_regs ur;
	struct stack_buf *s;

	if (!recorded(p->pid, p->tgid))
		return 0;
	s = bpf_map_lookup_elem(&waker_scratch, &zero);
	if (!s)
		return 0;
	s->ev.hdr.ts = bpf_ktime_get_ns();
	s->ev.hdr.cpu = cpu;
	s->ev.hdr.tid = (__u32)id;
	s->ev.hdr.tgid = id >> 32;
	s->ev.weight = 1;
	/* (a kernel thread or an interrupt on an idle CPU: no user stack) */
	take_stacks(ctx, s, id >> 32, TP_FRAMES,
		    ftfb_uw_task_regs(bpf_get_current_task_btf(), &ur) ? &ur
								       : NULL,
		    false, NULL, false);
	send(s, FTFB_EV_STACK_WAKER, cpu);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ftfb_offcpu_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	__u32 tid = prev->pid, tgid = prev->tgid;
	__u64 now = bpf_ktime_get_ns();
	struct ftfb_uw_regs ur;
	struct off_note *n;
	struct stack_buf *s;
	long err = 0;

	if (!armed)
		return 0;
	woke(next, now, cpu);
	/* blocked: asleep (S or D), not preempted, not exiting */
	if (preempt || prev->exit_state ||
	    !(prev_state &
	      (FTFB_TASK_INTERRUPTIBLE | FTFB_TASK_UNINTERRUPTIBLE)) ||
	    !recorded(tid, tgid))
		return 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	s->ev.hdr.ts = now;
	s->ev.hdr.cpu = cpu;
	s->ev.hdr.tid = tid;
	s->ev.hdr.tgid = tgid;
	take_stacks(ctx, s, tgid, TP_FRAMES,
		    ftfb_uw_task_regs(prev, &ur) ? &ur : NULL, false, prev, true);
	n = bpf_task_storage_get(&off_notes, prev, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!n) {
		err = 1;
	} else if (s->ev.nu + s->ev.nk + s->ev.py.n) {
		err = bpf_map_update_elem(&blocked, &tid, s, BPF_ANY);
		n->state = err ? OFF_NONE : OFF_IPS;
	} else {
		/* (ips left from a block whose switch back in the kernel
		 * never reported, seen on this VM, go) */
		if (n->state == OFF_IPS)
			bpf_map_delete_elem(&blocked, &tid);
		n->ev = s->ev;
		n->state = OFF_KNOWN;
	}
	if (err) {
		ftfb_count(&fired, FTFB_EV_STACK_OFF);
		ftfb_count(&drops, FTFB_EV_STACK_OFF);
	}
	return 0;
}
