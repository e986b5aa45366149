// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/syscalls.bpf.c - system calls (--syscalls): the raw_syscalls
 * tracepoints as tp_btf programs. Each entry and exit of a recorded task
 * is appended to its cpu's buffer of compact events, the one the uprobe
 * events go to (ubuf.bpf.h), so a thread's calls and system calls keep
 * their order and a system call costs no ring buffer operation of its
 * own. --syscalls=LIST: the calls not in the list return after one array
 * read.
 */
#include "common.bpf.h"
#include "ubuf.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 nargs = 0;     /* --args N */
const volatile __u32 self_tgid = 0; /* never the tracer's own */
const volatile bool use_list = false;
/* --syscalls=LIST: wanted[nr] != 0 for the calls in it */
const volatile __u8 wanted[FTFB_NR_SYSCALLS] = { 0 };
/* -p/-- without -f: only this process (children are not probed, as
 * uprobes are not; and no map lookup); 0: the traced tgids */
const volatile __u32 only_tgid = 0;
/* set by the loader once both programs are attached, cleared at stop */
volatile __u32 armed = 0;

/* Whether the task `id` (pid_tgid) is recorded: only while armed, never
 * the tracer, with -p/-- only the target (and with -f its children). */
static __always_inline bool task_recorded(__u64 id)
{
	__u32 tgid = id >> 32;

	if (!armed)
		return false;
	if (self_tgid && tgid == self_tgid)
		return false;
	if (only_tgid)
		return tgid == only_tgid;
	return !filter_tgids || ftfb_traced(tgid);
}

/* x86-64's uretprobe (6.11+) and uprobe (6.16+) system calls: the
 * kernel's own trampolines for our probes, entered at a probed function's
 * return (or a nop5 probe site), never by the program. Recorded, a
 * "uretprobe" call would open inside the function whose return it is and
 * outlive it: the function's end misplaced in Perfetto. */
#define FTFB_NR_URETPROBE 335
#define FTFB_NR_UPROBE 336

/* A recorded thread is inside one of those calls. Their entries are not
 * recorded, nor may their exits be: the uretprobe call sets orig_ax to -1
 * (no restart, its ax kept), so its exit reads as an rt_sigreturn's, an
 * exit with no entry per probed return, through the ring and counted.
 * Flagged at the entry (task storage: no lookup for other calls), the
 * exit that follows is dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
} in_trampoline SEC(".maps");

static __always_inline bool is_trampoline(long nr)
{
	return nr == FTFB_NR_URETPROBE || nr == FTFB_NR_UPROBE;
}

static __always_inline void trampoline_entered(void)
{
	__u8 *f = bpf_task_storage_get(&in_trampoline,
				       bpf_get_current_task_btf(), 0,
				       BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (f)
		*f = 1;
}

/* Whether this exit (orig_ax nr) is a trampoline's: clears the flag. */
static __always_inline bool trampoline_exited(long nr)
{
	__u8 *f;

	if (nr != -1 && !is_trampoline(nr))
		return false;
	f = bpf_task_storage_get(&in_trampoline, bpf_get_current_task_btf(),
				 0, 0);
	if (!f || !*f)
		return false;
	*f = 0;
	return true;
}

/* Whether call nr is recorded (--syscalls=LIST; never the probes' own). */
static __always_inline bool nr_wanted(long nr)
{
	if (nr < 0 || nr >= FTFB_NR_SYSCALLS || nr == FTFB_NR_URETPROBE ||
	    nr == FTFB_NR_UPROBE)
		return false;
	return !use_list || wanted[nr & (FTFB_NR_SYSCALLS - 1)];
}

/* The buffer was taken (a preempted append of another thread): one ring
 * record of its own. */
static __always_inline void enter_direct(struct pt_regs *regs, long nr,
					 __u64 id, __u32 cpu)
{
	struct ftfb_senter *e;
	void *rb;

	e = ftfb_reserve(&rb, FTFB_EV_SENTER, sizeof(*e), cpu);
	if (!e)
		return;
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.tid = (__u32)id;
	e->hdr.tgid = id >> 32;
	e->nr = nr;
	e->nargs = nargs;
	e->args[0] = regs->di;
	e->args[1] = regs->si;
	e->args[2] = regs->dx;
	e->args[3] = regs->r10;
	e->args[4] = regs->r8;
	e->args[5] = regs->r9;
	ftfb_submit(rb, e);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ftfb_sys_enter, struct pt_regs *regs, long nr)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ftfb_ubuf *b = ftfb_ubuf_of(cpu);
	bool known;
	__u64 id = ftfb_running_id(b, regs, &known);
	struct ftfb_ucompact *c;
	__u64 *v;
	__u32 off;

	if (is_trampoline(nr) && task_recorded(id)) {
		trampoline_entered();
		return 0;
	}
	if (!nr_wanted(nr) || !task_recorded(id))
		return 0;
	if (!ftfb_ubuf_claim_for(b, regs, id, known)) {
		enter_direct(regs, nr, id, cpu);
		return 0;
	}
	b->fired[FTFB_UBUF_SENTER]++;
	c = ftfb_ubuf_append(b, id, cpu, FTFB_EV_SENTER, nargs, (__u32)nr, 0,
			     &off);
	v = (void *)(c + 1);
	/* the x86-64 system call registers: the 4th is r10, not rcx */
	if (nargs > 0)
		v[0] = regs->di;
	if (nargs > 1)
		v[1] = regs->si;
	if (nargs > 2)
		v[2] = regs->dx;
	if (nargs > 3)
		v[3] = regs->r10;
	if (nargs > 4)
		v[4] = regs->r8;
	if (nargs > 5)
		v[5] = regs->r9;
	b->batch.len = off + sizeof(*c) +
		       8 * (nargs > FTFB_MAX_ARGS ? FTFB_MAX_ARGS : nargs);
	b->n[FTFB_UBUF_SENTER]++;
	ftfb_barrier();
	b->busy = 0;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ftfb_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct ftfb_ubuf *b = ftfb_ubuf_of(cpu);
	bool known;
	__u64 id = ftfb_running_id(b, regs, &known);
	struct ftfb_ucompact *c;
	struct ftfb_sexit *e;
	__u32 off;
	void *rb;
	long nr;

	/* the task first: every system call of the machine would otherwise
	 * read nr (regs is a BTF pointer of the tracepoint: plain loads, no
	 * probe-read helper) */
	if (!task_recorded(id))
		return 0;
	nr = regs->orig_ax;
	if (trampoline_exited(nr))
		return 0;
	if (nr == -1)
		nr = FTFB_NR_RT_SIGRETURN;
	if (!nr_wanted(nr))
		return 0;
	if (!ftfb_ubuf_claim_for(b, regs, id, known)) {
		e = ftfb_reserve(&rb, FTFB_EV_SEXIT, sizeof(*e), cpu);
		if (!e)
			return 0;
		e->hdr.ts = bpf_ktime_get_ns();
		e->hdr.tid = (__u32)id;
		e->hdr.tgid = id >> 32;
		e->nr = nr;
		e->_pad = 0;
		e->ret = ret;
		ftfb_submit(rb, e);
		return 0;
	}
	b->fired[FTFB_UBUF_SEXIT]++;
	c = ftfb_ubuf_append(b, id, cpu, FTFB_EV_SEXIT, 1, (__u32)nr, 0, &off);
	*(__s64 *)(c + 1) = ret;
	b->batch.len = off + sizeof(*c) + 8;
	b->n[FTFB_UBUF_SEXIT]++;
	ftfb_barrier();
	b->busy = 0;
	return 0;
}
