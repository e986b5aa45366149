// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/sched.bpf.c - scheduling events: context switches, wakeups, and the
 * process lifecycle (fork, exec, exit, rename), from tp_btf tracepoints.
 *
 * Task fields are read through BTF-typed pointers (tp_btf arguments are
 * trusted): vmlinux.h marks the structs preserve_access_index, so every
 * access is a CO-RE relocation, as BPF_CORE_READ would be, without a
 * probe_read helper call per field.
 */
#include "common.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Per CPU, per-process tracing only: 1 + the tid of the untraced task
 * whose switch-in was recorded last (0: none), whose switch-out must be
 * recorded too. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} last_in SEC(".maps");

/* The tasks whose names were sent in a taskname event (tid -> start
 * time, so a reused tid is named again): per process, the untraced ones;
 * with -a, those born before the programs were attached. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} named SEC(".maps");

/* Set by the loader at stop (.bss): from then on every program returns at
 * once, so the last drain ends whatever the machine does, and the links
 * can be released later, off the path that finishes the trace (releasing
 * a uprobe_multi link waits for an SRCU grace period, which a starved cpu
 * can hold up for minutes). */
volatile __u32 stopped = 0;

static __always_inline void fill_hdr(struct ftfb_hdr *h, __u64 ts, __u32 tid,
				     __u32 tgid)
{
	h->ts = ts;
	h->tid = tid;
	h->tgid = tgid;
}

/* Send the names of task p, once, before the switch that shows it (see
 * struct ftfb_taskname). */
static __always_inline void name_once(struct task_struct *p, __u32 cpu)
{
	__u32 tid = p->pid;
	__u64 start = p->start_time, *seen;
	struct ftfb_taskname *e;
	void *rb;

	if (!tid)
		return;
	seen = bpf_map_lookup_elem(&named, &tid);
	if (seen && *seen == start)
		return;
	e = ftfb_reserve(&rb, FTFB_EV_TASKNAME, sizeof(*e), cpu);
	if (!e)
		return;
	fill_hdr(&e->hdr, bpf_ktime_get_ns(), tid, p->tgid);
	bpf_core_read(e->comm, sizeof(e->comm), &p->comm);
	bpf_core_read(e->pcomm, sizeof(e->pcomm), &p->group_leader->comm);
	ftfb_submit(rb, e);
	bpf_map_update_elem(&named, &tid, &start, BPF_ANY);
}

/* -a: tasks born before this time (CLOCK_MONOTONIC ns, as task start
 * times; set by the loader once the programs are attached) had no fork
 * event, so their names come from /proc when the tracer first sees them,
 * and one that has exited by then would stay nameless (seen: short-lived
 * processes of a busy machine, switched in, dying, named ""). They are
 * named from the kernel instead, once each. Later tasks are named by
 * their fork, exec and rename events. */
__u64 born_before_ns = 0;

static __always_inline void name_if_unforked(struct task_struct *p, __u32 cpu)
{
	if (p->start_time < born_before_ns)
		name_once(p, cpu);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ftfb_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 prev_tgid = prev->tgid, next_tgid = next->tgid;
	__u32 cpu = bpf_get_smp_processor_id();
	bool pt = true, nt = true, closing = false;
	struct ftfb_switch *e;
	void *rb;

	if (stopped)
		return 0;

	/* prev's buffered uprobe events first (before its switch event),
	 * whatever the tgid filter says: the buffer only holds events the
	 * uprobe programs let through. Skipped while prev is inside its
	 * uprobe program (preempted): it flushes at its next switch. */
	ftfb_ubuf_flush_cpu(cpu);
	if (!emit_sched)
		return 0;
	if (filter_tgids) {
		/* Per process: the switches in and out of traced tasks, and
		 * the switch-out of an untraced task whose switch-in was
		 * recorded (else it would seem to run on forever); that
		 * closing switch's incoming task, untraced too, is marked
		 * unfollowed. */
		__u32 zero = 0, *li = bpf_map_lookup_elem(&last_in, &zero);

		pt = ftfb_traced(prev_tgid);
		nt = ftfb_traced(next_tgid);
		/* as values: the verifier refuses the pointer OR clang
		 * would make of !pt && !nt */
		barrier_var(pt);
		barrier_var(nt);
		closing = li && *li == (__u32)prev->pid + 1;
		if (!pt && !nt && !closing)
			return 0;
		if (li)
			*li = (!pt && !nt) ? 0 : (__u32)next->pid + 1;
		if (!pt)
			name_once(prev, cpu);
		/* (also the closing switch's incoming task: nothing else
		 * names it before the trace shows it) */
		if (!nt)
			name_once(next, cpu);
	} else {
		name_if_unforked(prev, cpu);
		name_if_unforked(next, cpu);
	}
	e = ftfb_reserve(&rb, FTFB_EV_SWITCH, sizeof(*e), cpu);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, bpf_ktime_get_ns(), prev->pid, prev_tgid);
	e->next_tid = next->pid;
	e->next_tgid = next_tgid;
	if (preempt)
		e->prev_state = FTFB_PREEMPTED;
	else
		e->prev_state = prev_state | (__u32)prev->exit_state;
	if (!pt && !nt)
		e->prev_state |= FTFB_NEXT_UNFOLLOWED;
	e->prev_prio = prev->prio;
	e->next_prio = next->prio;
	ftfb_submit(rb, e);
	return 0;
}

static __always_inline int on_wakeup(struct task_struct *p, __u32 kind)
{
	__u32 tgid = p->tgid;
	struct ftfb_wakeup *e;
	__u64 id;
	void *rb;

	if (stopped || (filter_tgids && !ftfb_traced(tgid)))
		return 0;
	/* an untraced waker is named in the trace too (its koid is the
	 * wakeup's `waker`) */
	if (filter_tgids) {
		struct task_struct *cur = bpf_get_current_task_btf();

		if (!ftfb_traced(cur->tgid))
			name_once(cur, bpf_get_smp_processor_id());
	} else {
		name_if_unforked(bpf_get_current_task_btf(),
				 bpf_get_smp_processor_id());
		name_if_unforked(p, bpf_get_smp_processor_id());
	}
	/* hdr.cpu is the target cpu (where p will run), as the tracepoint's
	 * target_cpu; the ring is still chosen by the current cpu. */
	e = ftfb_reserve(&rb, kind, sizeof(*e), bpf_get_smp_processor_id());
	if (!e)
		return 0;
	id = bpf_get_current_pid_tgid();
	fill_hdr(&e->hdr, bpf_ktime_get_ns(), (__u32)id, id >> 32);
	e->hdr.cpu = p->thread_info.cpu;
	e->target_tid = p->pid;
	e->target_tgid = tgid;
	e->target_prio = p->prio;
	e->_pad = 0;
	ftfb_submit(rb, e);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ftfb_wakeup, struct task_struct *p)
{
	return on_wakeup(p, FTFB_EV_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ftfb_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p, FTFB_EV_WAKEUP_NEW);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(ftfb_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct ftfb_fork *e;
	void *rb;

	if (stopped)
		return 0;

	if (filter_tgids) {
		if (!ftfb_traced(ptgid))
			return 0;
		if (ctgid != ptgid) {
			__u8 one = 1;

			bpf_map_update_elem(&traced_tgids, &ctgid, &one,
					    BPF_ANY);
		}
	}
	e = ftfb_reserve(&rb, FTFB_EV_FORK, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (!e)
		return 0;
	fill_hdr(&e->hdr, bpf_ktime_get_ns(), parent->pid, ptgid);
	e->child_tid = child->pid;
	e->child_tgid = ctgid;
	bpf_core_read(e->comm, sizeof(e->comm), &child->comm);
	ftfb_submit(rb, e);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ftfb_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tgid = p->tgid;
	struct ftfb_comm_ev *e;
	void *rb;

	if (stopped)
		return 0;

	ftfb_ubuf_flush_cpu(cpu); /* the old image's calls first */
	if (filter_tgids && !ftfb_traced(tgid))
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_EXEC, sizeof(*e), cpu);
	if (!e)
		return 0;
	fill_hdr(&e->hdr, bpf_ktime_get_ns(), p->pid, tgid);
	e->old_tid = old_pid;
	e->image = FTFB_IMAGE_ID(p) - 1; /* (raised already) */
	bpf_core_read(e->comm, sizeof(e->comm), &p->comm);
	ftfb_submit(rb, e);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ftfb_exit, struct task_struct *p, bool group_dead)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 tgid = p->tgid;
	struct ftfb_exit *e;
	void *rb;

	if (stopped)
		return 0;

	ftfb_ubuf_flush_cpu(cpu); /* the thread's last calls first */
	if (filter_tgids && !ftfb_traced(tgid))
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_EXIT, sizeof(*e), cpu);
	if (e) {
		fill_hdr(&e->hdr, bpf_ktime_get_ns(), p->pid, tgid);
		e->group_dead = group_dead;
		e->image = FTFB_IMAGE_ID(p);
		bpf_core_read(e->comm, sizeof(e->comm), &p->comm);
		bpf_core_read(e->pcomm, sizeof(e->pcomm),
			      &p->group_leader->comm);
		ftfb_submit(rb, e);
	}
	if (filter_tgids && group_dead)
		bpf_map_delete_elem(&traced_tgids, &tgid);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(ftfb_rename, struct task_struct *task, const char *comm)
{
	__u32 tgid = task->tgid;
	struct ftfb_comm_ev *e;
	void *rb;

	if (stopped)
		return 0;

	/* the calls made under the old name first */
	ftfb_ubuf_flush_cpu(bpf_get_smp_processor_id());
	if (filter_tgids && !ftfb_traced(tgid))
		return 0;
	e = ftfb_reserve(&rb, FTFB_EV_RENAME, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (!e)
		return 0;
	fill_hdr(&e->hdr, bpf_ktime_get_ns(), task->pid, tgid);
	e->old_tid = task->pid;
	e->image = 0;
	__builtin_memset(e->comm, 0, sizeof(e->comm));
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), comm);
	ftfb_submit(rb, e);
	return 0;
}

/* Not attached: run once by the loader (BPF_PROG_TEST_RUN) before
 * tracing, to write every page of the ring buffers once. On a VM the
 * first write to a fresh ring page costs several times a later one
 * (measured: uprobe programs ~30% slower during the first pass through
 * an 8 MiB ring); the filler records have kind 0 and length 0 and the
 * loader consumes them right away. */
static long prefault_one(__u32 i, void *ctx)
{
	__u32 zero = 0, idx = i % nr_rings;
	struct ftfb_ubuf *b = bpf_map_lookup_elem(&ubufs, &zero);
	void *rb = bpf_map_lookup_elem(&rings, &idx);

	if (!b || !rb)
		return 1;
	bpf_ringbuf_output(rb, &b->batch, sizeof(b->batch) + FTFB_UBUF_BYTES,
			   BPF_RB_NO_WAKEUP);
	return 0;
}

const volatile __u32 prefault_records = 0; /* per ring, set by the loader */

SEC("raw_tp")
int ftfb_prefault(void *ctx)
{
	bpf_loop(prefault_records * nr_rings, prefault_one, NULL, 0);
	return 0;
}
