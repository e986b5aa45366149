// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/mem.bpf.c - memory (--events=mem): the traced processes' resident
 * memory (rss_stat: file, anonymous, swap, shared pages) at each change,
 * and the user page faults during which a thread blocked.
 *
 * rss_stat fires with the mm whose counter changed, not always current's
 * (reclaim by kswapd swaps another process's pages out): the process is
 * the mm's owner. The kernel's counter is a per-cpu one whose shared
 * part lags by up to 32 pages a cpu: the per-cpu parts are added. A
 * cpu's part of a per-cpu variable is at the variable's address plus
 * that cpu's offset, which no symbol gives here (no kallsyms for data):
 * it is the distance between a per-cpu map element's base address and
 * its copy for that cpu, learnt once from `pcpu_probe`.
 *
 * No kprobes here, and no tracepoint at a fault's end: a fault costs its
 * thread time when it sleeps in it, so page_fault_user notes the fault
 * (task storage), a switch out in a sleep with the user registers of
 * that fault still on the kernel stack (same ip and sp, and orig_ax -1:
 * in an exception, not a system call) marks it blocked, and the thread's next
 * switch in sends it (struct ftfb_fault).
 */
#include "common.bpf.h"
#include "mem.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 self_tgid = 0; /* never the tracer's own */
const volatile __u32 nr_cpus = 1;   /* possible cpus, set by the loader */
/* set by the loader once the programs are attached, cleared at stop */
volatile __u32 armed = 0;

#define MAX_CPUS 512

/* a per-cpu element, to learn each cpu's per-cpu offset */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pcpu_probe SEC(".maps");

/* the per-cpu offset of each cpu, once `offs_known` */
__u64 cpu_offs[MAX_CPUS];
__u32 offs_known = 0;

struct fault_note {
	__u64 start_ns;
	__u64 blocked_ns; /* when it blocked; 0: not (yet) */
	__u64 addr, ip, sp;
	__u32 error;
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fault_note);
} faults SEC(".maps");

static __always_inline bool tgid_recorded(__u32 tgid)
{
	if (!armed || !tgid || (self_tgid && tgid == self_tgid))
		return false;
	return !filter_tgids || ftfb_traced(tgid);
}

/* Fills cpu_offs: cpu i's copy of pcpu_probe's element minus the
 * element's per-cpu base address (struct bpf_array's pptrs[0]). */
static __always_inline bool learn_offsets(void)
{
	struct bpf_array *arr = (void *)&pcpu_probe;
	__u32 zero = 0;
	struct bpf_map check = {};
	__u64 addr;
	void *base = 0;

	/* The verifier lets a program read its map's fields but neither
	 * move the map's pointer nor read past struct bpf_array (pptrs[]
	 * is a flexible array): the map's address comes from its
	 * freeze_mutex's empty wait list, which points to itself (checked:
	 * the struct found there is this map). */
	addr = (__u64)arr->map.freeze_mutex.wait_list.next;
	addr -= bpf_core_field_offset(struct bpf_array,
				      map.freeze_mutex.wait_list);
	if (bpf_probe_read_kernel(&check, sizeof(check), (void *)addr) ||
	    check.map_type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    check.max_entries != 1 || check.value_size != arr->map.value_size)
		return false;
	if (bpf_probe_read_kernel(
		    &base, sizeof(base),
		    (void *)(addr +
			     bpf_core_field_offset(struct bpf_array, pptrs))) ||
	    !base)
		return false;
	for (__u32 cpu = 0; cpu < MAX_CPUS && cpu < nr_cpus; cpu++) {
		void *copy =
			bpf_map_lookup_percpu_elem(&pcpu_probe, &zero, cpu);
		__u64 at = 0;

		/* (the verifier does no arithmetic on a map value's address:
		 * it is taken as a number) */
		if (copy)
			bpf_probe_read_kernel(&at, sizeof(at), &copy);
		cpu_offs[cpu & (MAX_CPUS - 1)] = at ? at - (__u64)base : 0;
	}
	offs_known = 1;
	return true;
}

/* The counter's exact value: its shared count plus every cpu's part
 * (only the shared count if the offsets are unknown). */
static __always_inline __s64 counter_sum(struct percpu_counter *c)
{
	__u64 base = (__u64)BPF_CORE_READ(c, counters);
	__s64 sum = BPF_CORE_READ(c, count);

	if (!offs_known && !learn_offsets())
		return sum;
	for (__u32 cpu = 0; cpu < MAX_CPUS && cpu < nr_cpus; cpu++) {
		__s32 part = 0;

		if (!cpu_offs[cpu & (MAX_CPUS - 1)])
			continue;
		bpf_probe_read_kernel(
			&part, sizeof(part),
			(void *)(base + cpu_offs[cpu & (MAX_CPUS - 1)]));
		sum += part;
	}
	return sum;
}

SEC("tp_btf/rss_stat")
int BPF_PROG(ftfb_rss_stat, struct mm_struct *mm, int member)
{
	struct task_struct *owner = mm->owner;
	struct ftfb_rss *e;
	__u32 tgid;
	void *rb;

	if (!owner || member < 0 || member >= FTFB_RSS_MEMBERS)
		return 0;
	tgid = owner->tgid;
	if (!tgid_recorded(tgid))
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_RSS, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (!e)
		return 0;
	e->hdr.ts = bpf_ktime_get_ns();
	e->hdr.tid = tgid;
	e->hdr.tgid = tgid;
	e->member = member;
	e->_pad2 = 0;
	/* (a variable offset into a trusted pointer is refused: the
	 * counter is read through a plain address) */
	e->pages = counter_sum(
		(void *)((__u64)&mm->rss_stat[0] +
			 (member & (FTFB_RSS_MEMBERS - 1)) *
				 bpf_core_type_size(struct percpu_counter)));
	ftfb_submit(rb, e);
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(ftfb_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fault_note *n;

	if (!tgid_recorded(task->tgid))
		return 0;
	n = bpf_task_storage_get(&faults, task, NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!n)
		return 0;
	n->start_ns = bpf_ktime_get_ns();
	n->blocked_ns = 0;
	n->addr = address;
	n->ip = regs->ip;
	n->sp = regs->sp;
	n->error = error_code;
	return 0;
}

/* next runs again: the fault it blocked in, if any, is sent */
static __always_inline void fault_resumed(struct task_struct *next, __u64 now)
{
	struct fault_note *n = bpf_task_storage_get(&faults, next, NULL, 0);
	struct ftfb_fault *e;
	void *rb;

	if (!n || !n->blocked_ns)
		return;
	e = ftfb_reserve(&rb, FTFB_EV_FAULT, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (e) {
		e->hdr.ts = now;
		e->hdr.tid = next->pid;
		e->hdr.tgid = next->tgid;
		e->start_ns = n->start_ns;
		e->blocked_ns = now - n->blocked_ns;
		e->addr = n->addr;
		e->error = n->error;
		e->_pad2 = 0;
		ftfb_submit(rb, e);
	}
	n->start_ns = 0;
	n->blocked_ns = 0;
}

/* prev goes to sleep: in its noted fault, or elsewhere (the fault is
 * over then) */
static __always_inline void maybe_blocked(struct task_struct *prev, __u64 now)
{
	struct fault_note *n = bpf_task_storage_get(&faults, prev, NULL, 0);
	struct pt_regs *regs;

	if (!n || !n->start_ns || n->blocked_ns)
		return;
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	/* (x86-64's exception entry sets orig_ax to -1: never a system
	 * call, whose number it holds) */
	if (regs && regs->ip == n->ip && regs->sp == n->sp &&
	    (long)regs->orig_ax == -1)
		n->blocked_ns = now;
	else
		n->start_ns = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ftfb_fault_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u64 now;

	if (!armed)
		return 0;
	now = bpf_ktime_get_ns();
	if (!preempt && (prev_state &
			 (FTFB_TASK_INTERRUPTIBLE | FTFB_TASK_UNINTERRUPTIBLE)))
		maybe_blocked(prev, now);
	fault_resumed(next, now);
	return 0;
}
