/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/pystack.bpf.h - the Python frames of a CPython thread, read at
 * sample time from the thread's own interpreter state (bpf/pystack.h
 * says what userspace provides). Included by stacks.bpf.c, which calls
 * ftfb_py_take once per sample, after the native stacks.
 *
 * The thread's PyThreadState is found by walking the interpreters'
 * thread lists for the one whose thread_id (its pthread_t) is the
 * task's fs base, not through the GIL holder: a thread that released the
 * GIL to block (the off-CPU case) is found as well. The result is cached
 * per tid and checked again at each use.
 *
 * The frames are a stack like the native ones (hashed, sent once). A
 * code object's strings go to userspace once per process image, in an
 * FTFB_EV_PYCODE event on ring 0 before the first stack that names it.
 */
#ifndef FTFB_PYSTACK_BPF_H
#define FTFB_PYSTACK_BPF_H

#include "pystack.h"

/* set by the loader: some process may be CPython (not --no-python-stacks) */
const volatile bool py_enabled = false;

/* the CPython processes (userspace fills it as it finds them) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ftfb_py_proc);
} py_procs SEC(".maps");

/* tid -> its PyThreadState (0: none found at checked_ns, the misses-th
 * time in a row) */
struct py_thread {
	__u64 tstate;
	__u64 checked_ns;
	__u32 misses;
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct py_thread);
} py_threads SEC(".maps");

/* the code objects whose strings userspace has (key: address and image) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u8);
} py_code_sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ftfb_pycode);
} py_code_buf SEC(".maps");

/* A thread without a thread state is looked for again after 1 ms, then
 * 2, 4 ... 256 ms: a new thread's state names it only once the thread
 * runs (thread_id is set then), and a thread that never runs Python
 * costs a walk every 256 ms at most. */
#define PY_RECHECK_NS 1000000ull
#define PY_RECHECK_MAX_SHIFT 8
#define PY_MAX_INTERPS 4
#define PY_MAX_THREADS 64
/* frames walked: the Python ones and the 3.12+ shims between them */
#define PY_MAX_WALK (2 * FTFB_PY_MAX_DEPTH)
/* the entries' index mask in the caller's buffer (its size, a power of 2) */
#define PY_IPS_MASK (FTFB_STACK_BUF_IPS - 1)

static __always_inline __u64 py_ptr(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

static __always_inline __u8 py_byte(__u64 addr)
{
	__u8 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* A walk over the interpreters' thread lists. */
struct py_threads_walk {
	const struct ftfb_py_proc *p;
	__u64 fsbase, interp, t, found;
};

/* Its counts, per cpu: in a map value, whose contents the verifier does
 * not know, as uw_bufs (unwind.bpf.h). On the BPF stack they were known
 * numbers, and the verifier followed the callback once per pair of them:
 * 87,000 of the 217,000 instructions it checked in each stack program. */
struct py_threads_counts {
	__u32 in_interp; /* threads looked at in this interpreter */
	__u32 interps;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_threads_counts);
} py_threads_counts SEC(".maps");

/* One thread state (or the step to the next interpreter); 1: done. */
static long py_thread_step(__u64 i, void *ctx)
{
	struct py_threads_walk *w = ctx;
	const struct ftfb_py_offsets *o = &w->p->o;
	__u32 zero = 0;
	struct py_threads_counts *c =
		bpf_map_lookup_elem(&py_threads_counts, &zero);

	if (!c)
		return 1;
	if (!w->t || c->in_interp >= PY_MAX_THREADS) {
		if (++c->interps >= PY_MAX_INTERPS)
			return 1;
		w->interp = py_ptr(w->interp + o->interp_next);
		if (!w->interp)
			return 1;
		w->t = py_ptr(w->interp + o->interp_threads);
		c->in_interp = 0;
		return 0;
	}
	if (py_ptr(w->t + o->tstate_thread_id) == w->fsbase) {
		w->found = w->t;
		return 1;
	}
	w->t = py_ptr(w->t + o->tstate_next);
	c->in_interp++;
	return 0;
}

static __always_inline __s32 py_int(__u64 addr)
{
	__s32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* The PyThreadState of the thread whose pthread_t is fsbase, by walking
 * every interpreter's list; 0 if none. */
static __always_inline __u64 py_walk_threads(const struct ftfb_py_proc *p,
					     __u64 fsbase)
{
	struct py_threads_walk w = {.p = p, .fsbase = fsbase};
	struct py_threads_counts *c;
	__u32 zero = 0;

	w.interp = py_ptr(p->runtime + p->o.runtime_interp_head);
	c = bpf_map_lookup_elem(&py_threads_counts, &zero);
	if (!w.interp || !c)
		return 0;
	c->in_interp = 0;
	c->interps = 0;
	w.t = py_ptr(w.interp + p->o.interp_threads);
	bpf_loop(PY_MAX_INTERPS * (PY_MAX_THREADS + 1), py_thread_step, &w, 0);
	return w.found;
}

/* The thread's pthread_t as glibc makes it: its thread pointer, on
 * x86-64 the fs base (0 elsewhere for now: no Python frames). */
static __always_inline __u64 py_thread_pointer(struct task_struct *task)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(task, thread.fsbase);
#else
	return 0;
#endif
}

/* The thread's PyThreadState, from the cache when it still names it.
 * blocking: the thread blocks (its one off-CPU stack): a miss of the
 * last few ms is not trusted (a new thread is sampled on CPU before its
 * thread state names it, and then blocks at once: time.sleep). */
static __always_inline __u64 py_tstate(const struct ftfb_py_proc *p, __u32 tid,
				       __u64 fsbase, bool blocking)
{
	struct py_thread *c = bpf_map_lookup_elem(&py_threads, &tid);
	struct py_thread n = {};
	__u64 now;

	if (c && c->tstate &&
	    py_ptr(c->tstate + p->o.tstate_thread_id) == fsbase)
		return c->tstate;
	/* (the clock only here: a read of it costs as much as a map lookup
	 * on a busy machine, and most samples return above) */
	now = bpf_ktime_get_ns();
	if (c) {
		if (!c->tstate && !blocking &&
		    now - c->checked_ns <
			    PY_RECHECK_NS << (c->misses < PY_RECHECK_MAX_SHIFT
						      ? c->misses
						      : PY_RECHECK_MAX_SHIFT))
			return 0;
		n.misses = c->tstate ? 0 : c->misses + 1;
	}
	n.tstate = py_walk_threads(p, fsbase);
	n.checked_ns = now;
	bpf_map_update_elem(&py_threads, &tid, &n, BPF_ANY);
	return n.tstate;
}

/* The innermost frame of a thread state (NULL-safe). */
static __always_inline __u64 py_top_frame(const struct ftfb_py_offsets *o,
					  __u64 tstate)
{
	__u64 f = py_ptr(tstate + o->tstate_frame);

	if (f && o->cframe_frame != FTFB_PY_NO_OFFSET)
		f = py_ptr(f + o->cframe_frame);
	return f;
}

/* The state of a walk over the frame chain (bpf_loop keeps the
 * verifier's work to one step). */
struct py_walk {
	const struct ftfb_py_proc *p;
	__u64 *ips;
};

/* Where the walk is, per cpu: in a map value, whose contents the
 * verifier does not know. On the BPF stack the frame count was a known
 * number and the verifier followed the callback once for each (and
 * each branch added to it doubled that). */
struct py_walk_state {
	__u64 frame;
	__u32 base;
	__u32 n;
	__u32 flags;
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_walk_state);
} py_walk_states SEC(".maps");

/* The head of a structure, read at once: the fields a frame step needs
 * (all versions': within 76 bytes of a frame's or a code object's
 * start) cost one read of user memory, not one each, and each read is
 * a helper call and its checks (bench/HISTORY.md). A version whose
 * fields are further in gets no Python frames (py_heads_fit). */
#define PY_HEAD 128

static __always_inline __u64 py_max(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* The bytes of a frame's head and of a code object's that are read. */
static __always_inline __u64 py_frame_len(const struct ftfb_py_offsets *o)
{
	__u64 len = py_max(o->frame_code, o->frame_previous) + 8;

	return o->frame_model == FTFB_PY_FRAME_OBJECTS
		       ? len
		       : py_max(len, o->frame_flag + 1);
}

static __always_inline __u64 py_code_len(const struct ftfb_py_offsets *o)
{
	return py_max(o->object_type + 8, o->code_firstlineno + 4);
}

/* Whether the heads hold the fields, each within one aligned word (the
 * verifier takes only aligned reads of the stack; pointers and ints are
 * naturally aligned). */
static __always_inline bool py_heads_fit(const struct ftfb_py_offsets *o)
{
	return py_frame_len(o) <= PY_HEAD && py_code_len(o) <= PY_HEAD &&
	       !((o->frame_code | o->frame_previous | o->object_type) & 7) &&
	       !(o->code_firstlineno & 3);
}

/* Reads the first len bytes (at most PY_HEAD: py_heads_fit) of the
 * structure at addr into h, zeroed first (the verifier wants the whole
 * buffer written); false if the read failed. */
static __always_inline bool py_head(__u64 *h, __u64 addr, __u64 len)
{
	for (int k = 0; k < PY_HEAD / 8; k++)
		h[k] = 0;
	asm volatile("" : "+r"(len)); /* (one register, checked and used) */
	if (len > PY_HEAD)
		return false;
	return !bpf_probe_read_user(h, len, (const void *)addr);
}

/* The field at off (below PY_HEAD: py_heads_fit) of a head read, in
 * the low bits: the aligned word holding it, shifted. (A mask, not a
 * test: each branch would double the states the verifier walks at each
 * frame.) */
static __always_inline __u64 py_head_field(const __u64 *h, __u64 off)
{
	return h[(off / 8) & (PY_HEAD / 8 - 1)] >> ((off & 7) * 8);
}

/* One frame of the chain into w->ips[base + n] (leaf first); 1: done. */
static long py_frame_step(__u64 i, void *ctx)
{
	struct py_walk *w = ctx;
	const struct ftfb_py_offsets *o = &w->p->o;
	__u32 zero = 0;
	struct py_walk_state *st = bpf_map_lookup_elem(&py_walk_states, &zero);
	__u64 frame, code, h[PY_HEAD / 8];
	__u8 flag;

	if (!st)
		return 1;
	frame = st->frame;
	if (!frame || !py_head(h, frame, py_frame_len(o)))
		return 1;
	code = py_head_field(h, o->frame_code);
	st->frame = py_head_field(h, o->frame_previous);
	flag = o->frame_model == FTFB_PY_FRAME_OBJECTS
		       ? 1
		       : (__u8)py_head_field(h, o->frame_flag);
	if (o->frame_model == FTFB_PY_FRAME_OWNER) {
		if (flag == o->owner_cstack) {
			/* the shim below an eval call's first frame */
			if (st->n > 0)
				w->ips[(st->base + st->n - 1) & PY_IPS_MASK] |=
					FTFB_PY_EVAL_FIRST;
			return 0;
		}
		flag = 0;
	}
	/* (h: now the code object's head) */
	if (!code || (code & 7) || !py_head(h, code, py_code_len(o)) ||
	    py_head_field(h, o->object_type) != w->p->code_type)
		return 0; /* not a code object: never a wrong name */
	if (st->n >= FTFB_PY_MAX_DEPTH) {
		st->flags |= FTFB_PY_TRUNCATED;
		return 1;
	}
	w->ips[(st->base + st->n) & PY_IPS_MASK] =
		code | (flag ? FTFB_PY_EVAL_FIRST : 0) |
		((__u64)(__u16)py_head_field(h, o->code_firstlineno)
		 << FTFB_PY_LINE_SHIFT);
	st->n++;
	return 0;
}

static __always_inline __u64 py_hash(const __u64 *ips, __u32 base, __u32 n,
				     __u64 seed)
{
	__u64 h = 0xcbf29ce484222325ull ^ seed;

	for (__u32 i = 0; i < FTFB_PY_MAX_DEPTH; i++) {
		if (i >= n)
			break;
		h = (h ^ ips[(base + i) & PY_IPS_MASK]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

/* A Python str's text into dst (compact ASCII, or its cached UTF-8);
 * "?" when it has neither. */
static __always_inline void py_read_str(const struct ftfb_py_offsets *o,
					__u64 str, char *dst, __u32 len)
{
	__u8 ascii = py_byte(str + o->str_ascii_off) & o->str_ascii_mask;
	__u8 compact = py_byte(str + o->str_compact_off) & o->str_compact_mask;
	__u64 src = 0;

	if (str && compact && ascii)
		src = str + o->str_ascii_size;
	else if (str && compact)
		src = py_ptr(str + o->str_utf8);
	if (!src || bpf_probe_read_user_str(dst, len, (const void *)src) <= 0) {
		dst[0] = '?';
		dst[1] = 0;
	}
}

/* The code objects of a new Python stack whose strings go first. */
struct py_codes {
	const struct ftfb_py_proc *p;
	const __u64 *ips;
	__u64 seed;
	__u32 base, n, tid, tgid, cpu;
};

/* Sends the strings of the code object at code (its co_name or
 * co_qualname, and co_filename objects given); true if they went. */
static __noinline bool py_send_code(const struct py_codes *c, __u64 code,
				    __u64 name, __u64 file)
{
	const struct ftfb_py_offsets *o = &c->p->o;
	__u32 cpu = c->cpu;
	struct ftfb_pycode *e;
	__u32 zero = 0;
	void *rb;

	e = bpf_map_lookup_elem(&py_code_buf, &zero);
	if (!e)
		return false;
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.kind = FTFB_EV_PYCODE;
	e->hdr.cpu = cpu;
	e->hdr.tid = c->tid;
	e->hdr.tgid = c->tgid;
	e->hdr._pad = 0;
	e->code = code;
	e->firstlineno = py_int(code + o->code_firstlineno);
	e->_pad = 0;
	py_read_str(o, name, e->name, sizeof(e->name));
	py_read_str(o, file, e->file, sizeof(e->file));
	ftfb_count(&fired, FTFB_EV_PYCODE);
	rb = ftfb_ring_of(FTFB_EV_PYCODE, cpu);
	if (!rb || bpf_ringbuf_output(rb, e, sizeof(*e), 0)) {
		ftfb_count(&drops, FTFB_EV_PYCODE);
		return false;
	}
	return true;
}

/* Entry i's code object: its strings sent unless sent for this image. */
static long py_code_step(__u64 i, void *ctx)
{
	struct py_codes *c = ctx;
	__u64 entry, code, name, file, key;
	__u8 one = 1;

	if (i >= c->n)
		return 1;
	entry = c->ips[(c->base + i) & PY_IPS_MASK];
	code = entry & FTFB_PY_CODE_MASK;
	name = py_ptr(code + c->p->o.code_name);
	file = py_ptr(code + c->p->o.code_filename);
	/* the code object as it is now: its address, line and strings */
	key = (((entry & FTFB_PY_KEY_MASK) ^ c->seed) * 0x9e3779b97f4a7c15ull) ^
	      (name * 0xff51afd7ed558ccdull) ^ (file << 1);
	if (!bpf_map_lookup_elem(&py_code_sent, &key) &&
	    py_send_code(c, code, name, file))
		bpf_map_update_elem(&py_code_sent, &key, &one, BPF_ANY);
	return 0;
}

/* The Python frames of the current task (tid of tgid) into
 * ips[base...] and *part: their hash always, their count only when
 * userspace has not seen them (their code objects' strings sent first).
 * was_sent: the caller's table of the stacks userspace has. blocking:
 * the off-CPU stack of a thread that blocks. */
static __always_inline void ftfb_py_take(struct ftfb_py_part *part, __u64 *ips,
					 __u32 base, __u32 tid, __u32 tgid,
					 bool blocking)
{
	const struct ftfb_py_proc *p;
	struct task_struct *task;
	struct py_walk w = {};
	struct py_walk_state *st;
	struct py_codes c;
	__u32 zero = 0;
	__u64 tstate, seed, tp;
	__u32 n;

	part->hash = 0;
	part->n = 0;
	part->flags = 0;
	part->_pad = 0;
	if (!py_enabled)
		return;
	p = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!p || !py_heads_fit(&p->o))
		return;
	task = bpf_get_current_task_btf();
	tp = py_thread_pointer(task);
	if (!tp)
		return;
	tstate = py_tstate(p, tid, tp, blocking);
	if (!tstate)
		return;
	st = bpf_map_lookup_elem(&py_walk_states, &zero);
	if (!st)
		return;
	w.p = p;
	w.ips = ips;
	st->frame = py_top_frame(&p->o, tstate);
	st->base = base;
	st->n = 0;
	st->flags = 0;
	bpf_loop(PY_MAX_WALK, py_frame_step, &w, 0);
	n = st->n;
	part->flags = st->flags;
	if (!n)
		return;
	/* the image: a code object's address means another one after exec */
	seed = ((__u64)(unsigned long)BPF_CORE_READ(task, mm) ^ tgid) *
	       0xff51afd7ed558ccdull;
	part->hash = py_hash(ips, base, n, seed);
	if (was_sent(part->hash))
		return;
	c.p = p;
	c.ips = ips;
	c.seed = seed;
	c.base = base;
	c.n = n;
	c.tid = tid;
	c.tgid = tgid;
	c.cpu = bpf_get_smp_processor_id();
	bpf_loop(FTFB_PY_MAX_DEPTH, py_code_step, &c, 0);
	part->n = n;
}

#endif
