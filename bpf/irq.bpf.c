// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bpf/irq.bpf.c - interrupts (--events=irq): each hard interrupt
 * handler run and each softirq run, one event at its end (struct
 * ftfb_irq) with its start, so an interrupt costs one ring buffer
 * operation.
 *
 * Per-process tracing records the interrupts that took the cpu from a
 * traced thread (the time they cost it); -a records them all. A cpu runs
 * one hard handler at a time and one softirq at a time, a hard one
 * possibly inside a softirq: one slot of each per cpu.
 */
#include "common.bpf.h"
#include "irq.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 self_tgid = 0; /* never the tracer's own */
/* set by the loader once the programs are attached, cleared at stop */
volatile __u32 armed = 0;

struct irq_slot {
	__u64 start_ns; /* 0: not recorded */
	__u32 nr;
	__u32 _pad;
};

/* [0]: the hard interrupt running, [1]: the softirq */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct irq_slot);
} running SEC(".maps");

static __always_inline bool current_recorded(__u64 id)
{
	__u32 tgid = id >> 32;

	if (!armed || (self_tgid && tgid == self_tgid))
		return false;
	if (!filter_tgids)
		return true;
	return (__u32)id && ftfb_traced(tgid);
}

static __always_inline void enter(__u32 slot, __u32 nr)
{
	struct irq_slot *s = bpf_map_lookup_elem(&running, &slot);

	if (!s)
		return;
	s->start_ns = current_recorded(bpf_get_current_pid_tgid())
			      ? bpf_ktime_get_ns()
			      : 0;
	s->nr = nr;
}

/* The slot's run ended: its event, unless it was not recorded. */
static __always_inline struct ftfb_irq *leave(__u32 slot, __u32 nr, void **rbp)
{
	struct irq_slot *s = bpf_map_lookup_elem(&running, &slot);
	__u64 id = bpf_get_current_pid_tgid();
	struct ftfb_irq *e;

	if (!s || !s->start_ns || s->nr != nr)
		return NULL;
	e = ftfb_reserve(rbp, FTFB_EV_IRQ, sizeof(*e),
			 bpf_get_smp_processor_id());
	if (e) {
		e->hdr.ts = bpf_ktime_get_ns();
		e->hdr.tid = (__u32)id;
		e->hdr.tgid = id >> 32;
		e->start_ns = s->start_ns;
		e->nr = nr;
		e->soft = slot;
		e->handled = 0;
		e->_pad = 0;
		e->name[0] = '\0';
	}
	s->start_ns = 0;
	return e;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(ftfb_irq_entry, int irq, struct irqaction *action)
{
	enter(0, irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(ftfb_irq_exit, int irq, struct irqaction *action, int ret)
{
	void *rb;
	struct ftfb_irq *e = leave(0, irq, &rb);

	if (!e)
		return 0;
	e->handled = ret != 0;
	bpf_probe_read_kernel_str(e->name, sizeof(e->name), action->name);
	ftfb_submit(rb, e);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(ftfb_softirq_entry, unsigned int vec)
{
	enter(1, vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(ftfb_softirq_exit, unsigned int vec)
{
	void *rb;
	struct ftfb_irq *e = leave(1, vec, &rb);

	if (e)
		ftfb_submit(rb, e);
	return 0;
}

/*
 * The system vectors (x86's irq_vectors tracepoints): the local timer
 * and the inter-processor interrupts run no irq handler, so the two
 * tracepoints above never see them (63% of the hard interrupts of a busy
 * window). Hard interrupts like the others, named by their vector's
 * tracepoint; optional ("?": the loader loads them where the kernel
 * has them).
 */
static __always_inline int vector_exit(int vector, const char *name)
{
	void *rb;
	struct ftfb_irq *e = leave(0, (__u32)vector, &rb);

	if (!e)
		return 0;
	e->handled = 1;
	__builtin_memcpy(e->name, name, sizeof(e->name));
	ftfb_submit(rb, e);
	return 0;
}

#define FTFB_VECTOR(tp, prog, shown)                                           \
	SEC("?tp_btf/" #tp "_entry")                                           \
	int BPF_PROG(prog##_entry, int vector)                                 \
	{                                                                      \
		enter(0, (__u32)vector);                                       \
		return 0;                                                      \
	}                                                                      \
	SEC("?tp_btf/" #tp "_exit")                                            \
	int BPF_PROG(prog##_exit, int vector)                                  \
	{                                                                      \
		static const char name[FTFB_COMM_LEN] = shown;                 \
		return vector_exit(vector, name);                              \
	}

/* (names: at most 15 characters, as a handler's) */
FTFB_VECTOR(local_timer, ftfb_vec_timer, "local_timer")
FTFB_VECTOR(reschedule, ftfb_vec_resched, "reschedule")
FTFB_VECTOR(call_function, ftfb_vec_call, "call_function")
FTFB_VECTOR(call_function_single, ftfb_vec_call1, "call_func_one")
FTFB_VECTOR(irq_work, ftfb_vec_irq_work, "irq_work")
