/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/events.h - the raw events the BPF programs put in the ring buffer.
 *
 * Shared by the *.bpf.c programs and userspace (translator, loader). Every
 * event is a small fixed-size struct that starts with struct ftfb_hdr; no
 * strings except a 16-byte comm on the events that change a name.
 * Timestamps are bpf_ktime_get_ns() (CLOCK_MONOTONIC ns).
 *
 * The kinds here are the core's: scheduling, calls, system calls, USDT
 * and stacks, with their rows in src/translate/event_kinds.c. An
 * --events source declares its own kinds and structs in a header of its
 * own (bpf/NAME.h, included by its BPF program and its translator), its
 * kind numbers taken from the free ones below FTFB_EV_KIND_MAX; its
 * translator's table (src/translate/tr_source.h) gives their size, name,
 * label and handler, and the translator refuses two sources claiming
 * one kind. Its source is a row of src/sources.c.
 */
#ifndef FTFB_EVENTS_H
#define FTFB_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define FTFB_COMM_LEN 16
/* Which image of its process a task runs: the kernel counts a task's
 * execs (task_struct.self_exec_id, raised before the exec tracepoint
 * fires); its low 32 bits. */
#define FTFB_IMAGE_ID(task) ((__u32)(task)->self_exec_id)
#define FTFB_MAX_ARGS 6

enum ftfb_kind {
	FTFB_EV_SWITCH = 1,     /* struct ftfb_switch */
	FTFB_EV_WAKEUP = 2,     /* struct ftfb_wakeup (sched_wakeup) */
	FTFB_EV_WAKEUP_NEW = 3, /* struct ftfb_wakeup (sched_wakeup_new) */
	FTFB_EV_FORK = 4,       /* struct ftfb_fork */
	FTFB_EV_EXEC = 5,       /* struct ftfb_comm_ev */
	FTFB_EV_EXIT = 6,       /* struct ftfb_exit */
	FTFB_EV_RENAME = 7,     /* struct ftfb_comm_ev */
	FTFB_EV_UENTRY = 8,     /* struct ftfb_uentry */
	FTFB_EV_URET = 9,       /* struct ftfb_uret */
	FTFB_EV_BATCH = 10,     /* struct ftfb_batch + packed events */
	FTFB_EV_TASKNAME = 11,  /* struct ftfb_taskname */
	FTFB_EV_SENTER = 12,    /* struct ftfb_senter */
	FTFB_EV_SEXIT = 13,     /* struct ftfb_sexit */
	FTFB_EV_STACK_ON = 14,  /* struct ftfb_stack: an on-CPU sample */
	FTFB_EV_STACK_OFF = 15, /* struct ftfb_stack: a time off CPU */
	FTFB_EV_USDT = 16,      /* struct ftfb_usdt */
	FTFB_EV_PYCODE = 17,    /* struct ftfb_pycode (bpf/pystack.h) */
	/* 18..21: the --events sources' (bpf/blockio.h, irq.h, mem.h) */
	FTFB_EV_STACK_WAKER = 22, /* struct ftfb_stack (--events=waker) */
	/* struct ftfb_stack_copy (bpf/stackcopy.h): turned into a
	 * FTFB_EV_STACK_ON before the sink sees it */
	FTFB_EV_STACK_COPY = 23,
	/* 24..31: free for the next sources, which take theirs from here */
	FTFB_EV_KIND_MAX = 32,  /* (the drops counter lists the kinds that
				 * lost events, at most 14 of them) */
};

/* Common header. `tid`/`tgid` are the task the event is about (for a
 * switch: the outgoing task; for a wakeup: the waker, i.e. current). */
struct ftfb_hdr {
	__u64 ts;
	__u16 kind;
	__u16 cpu;
	__u32 tid;
	__u32 tgid;
	__u32 _pad;
};

#include "pystack.h"

/* sched_switch. hdr.tid/tgid = prev. prev_state is FTFB_PREEMPTED when
 * the switch preempted prev, else prev's raw task state (tp_btf's
 * prev_state argument, i.e. task->__state: TASK_* bits) ORed with
 * task->exit_state (EXIT_ZOMBIE / EXIT_DEAD). prio is the kernel prio
 * (0..139; lower = higher priority; the idle task has tid 0). */
struct ftfb_switch {
	struct ftfb_hdr hdr;
	__u32 next_tid;
	__u32 next_tgid;
	__u32 prev_state;
	__s16 prev_prio;
	__s16 next_prio;
};

/* sched_wakeup / sched_wakeup_new. hdr.tid/tgid = the waker (current);
 * hdr.cpu = the cpu the woken task will run on (target_cpu). */
struct ftfb_wakeup {
	struct ftfb_hdr hdr;
	__u32 target_tid;
	__u32 target_tgid;
	__s32 target_prio;
	__u32 _pad;
};

/* sched_process_fork (and clone of threads). hdr.tid/tgid = parent.
 * comm = the child's comm (same as parent's at fork). */
struct ftfb_fork {
	struct ftfb_hdr hdr;
	__u32 child_tid;
	__u32 child_tgid;
	char comm[FTFB_COMM_LEN];
};

/* sched_process_exec and task_rename: hdr.tid/tgid = the task, comm its
 * new name. For exec, old_tid is the tid before exec (a non-leader thread
 * that execs takes the leader's tid); for rename old_tid == hdr.tid. */
struct ftfb_comm_ev {
	struct ftfb_hdr hdr;
	__u32 old_tid;
	/* FTFB_EV_EXEC: the image exec'd from (FTFB_IMAGE_ID), whose
	 * unwind entry bpf/unwind.bpf.h keeps in uw_exited; else 0 */
	__u32 image;
	char comm[FTFB_COMM_LEN];
};

/* sched_process_exit: a thread ended; group_dead if it was the last.
 * comm, pcomm: its name and its process's (group leader's), for a task
 * that was never named (it existed before the trace and exited before
 * userspace read its /proc entry). */
struct ftfb_exit {
	struct ftfb_hdr hdr;
	__u32 group_dead;
	__u32 image; /* the image it exited in (FTFB_IMAGE_ID) */
	char comm[FTFB_COMM_LEN];
	char pcomm[FTFB_COMM_LEN];
};

/* Per-process traces only: the names of an untraced task that a recorded
 * switch shows (switched out before a traced task runs, or the end of
 * its time on a cpu), sent just before that switch, once per task (an
 * LRU map in the kernel), because such a task is often gone from /proc
 * by the time userspace reads the switch (short-lived programs of a busy
 * machine). hdr.tid/tgid = the task; comm its name, pcomm its process's
 * (group leader's). */
struct ftfb_taskname {
	struct ftfb_hdr hdr;
	char comm[FTFB_COMM_LEN];
	char pcomm[FTFB_COMM_LEN];
};

/* uprobe entry: cookie = index of the probed function (userspace table).
 * nargs = how many of args[] are valid (--args N), or'ed in userspace
 * only with FTFB_UENTRY_BEFORE_WINDOW for a call that began before a
 * flight-recorder snapshot's window (it is written at the window's start,
 * marked with a before_window argument). */
#define FTFB_UENTRY_BEFORE_WINDOW 0x80000000u
struct ftfb_uentry {
	struct ftfb_hdr hdr;
	__u32 cookie;
	__u32 nargs;
	__u64 args[FTFB_MAX_ARGS];
	/* User stack pointer at the function's first instruction: it points
	 * at the return address (0: not recorded). */
	__u64 sp;
};

/* uprobe return: ret = rax. */
struct ftfb_uret {
	struct ftfb_hdr hdr;
	__u32 cookie;
	__u32 _pad;
	__u64 ret;
	/* User stack pointer in the return handler, i.e. just after the
	 * return popped the return address: the call's entry sp + 8
	 * (x86-64; checked by tests/bpf/test_uprobe.c). 0: not recorded. */
	__u64 sp;
};

/* System call entry (raw_syscalls:sys_enter): nr, and the first nargs
 * arguments (--args N) in the x86-64 syscall registers' order. */
#define FTFB_NR_SYSCALLS 512
/* x86-64's rt_sigreturn: it restores the registers of the interrupted
 * code, orig_ax = -1 among them, so its exit shows nr -1; the program
 * reports it under this number */
#define FTFB_NR_RT_SIGRETURN 15
struct ftfb_senter {
	struct ftfb_hdr hdr;
	__u32 nr;
	__u32 nargs;
	__u64 args[FTFB_MAX_ARGS];
};

/* System call exit (raw_syscalls:sys_exit): its return value. */
struct ftfb_sexit {
	struct ftfb_hdr hdr;
	__u32 nr;
	__u32 _pad;
	__s64 ret;
};

/* A USDT probe hit (bpf/usdt.bpf.c). cookie: index of the probe in
 * userspace's table. args[0..nargs): the probe's arguments as libbpf's
 * spec parser reads them (sign- or zero-extended to 64 bits). A bit i of
 * strmask set: argument i was a C string, read (bounded) into str[]:
 * args[i] is then its length with the NUL, and the strings follow each
 * other in argument order, each starting at a multiple of 8 bytes. The
 * event is sent without the unused tail of str[] (size =
 * offsetof(str) + strbytes). */
#define FTFB_USDT_MAX_ARGS 12   /* as <sys/sdt.h> and libbpf */
#define FTFB_USDT_STR_LEN 64    /* bytes read per string, NUL included */
#define FTFB_USDT_MAX_STRS 2    /* string arguments read per hit */
#define FTFB_USDT_STR_BYTES (FTFB_USDT_STR_LEN * FTFB_USDT_MAX_STRS)
struct ftfb_usdt {
	struct ftfb_hdr hdr;
	__u32 cookie;
	__u16 nargs;
	__u16 strmask;
	__u32 strbytes;
	__u32 _pad;
	__u64 args[FTFB_USDT_MAX_ARGS];
	char str[FTFB_USDT_STR_BYTES];
};

/* A thread's buffered uprobe events handed over in one record (the ring
 * buffer operation per event is the costly part of a uprobe program):
 * the header is followed by `len` bytes of that thread's entry and return
 * events, oldest first, in the compact form of bpf/ubuf.h. hdr.tid/tgid/
 * cpu are the thread's, hdr.ts that of the first event. The loader
 * expands them to struct ftfb_uentry / ftfb_uret; its callers never see
 * FTFB_EV_BATCH. */
struct ftfb_batch {
	struct ftfb_hdr hdr;
	__u32 len;
	__u32 _pad;
};

/* --stacks: a stack sample. On CPU (FTFB_EV_STACK_ON): hdr.ts is the
 * sample's time, weight 1. Off CPU (FTFB_EV_STACK_OFF): the stack of a
 * thread as it blocked, hdr.ts the time it blocked, weight the ns until
 * it ran again (sent then). A stack is known by a 64-bit hash (of the
 * tgid and the ips for a user stack, of the ips for a kernel one; 0: no
 * such stack); its ips follow the struct (nu user ones then nk kernel
 * ones, leaf first) only the first time the kernel sends that hash (or
 * again after its table of sent hashes evicted it). The Python frames
 * of a CPython thread (bpf/pystack.h) are a third stack of the same kind,
 * their py.n entries after the kernel ips. */
/* FTFB_EV_STACK_WAKER (--events=waker with --stacks): the stacks of the
 * task that wakes a traced thread (hdr.tid/tgid = the waker, current at
 * sched_waking; tid 0: an interrupt on an idle cpu), hdr.ts the wakeup,
 * weight 1. */
#define FTFB_STACK_MAX_DEPTH 127
struct ftfb_stack {
	struct ftfb_hdr hdr;
	__u64 weight;
	__u64 uhash;
	__u64 khash;
	__u16 nu;
	__u16 nk;
	__u32 _pad;
	struct ftfb_py_part py;
	/* then __u64 ips[nu + nk + py.n] */
};

/* Linux task state bits (include/linux/sched.h) as they appear in
 * ftfb_switch.prev_state. */
#define FTFB_TASK_RUNNING 0x0000
#define FTFB_TASK_INTERRUPTIBLE 0x0001
#define FTFB_TASK_UNINTERRUPTIBLE 0x0002
#define FTFB_TASK_STOPPED 0x0004
#define FTFB_TASK_TRACED 0x0008
#define FTFB_EXIT_DEAD 0x0010
#define FTFB_EXIT_ZOMBIE 0x0020
#define FTFB_TASK_PARKED 0x0040
#define FTFB_TASK_DEAD 0x0080
#define FTFB_TASK_WAKEKILL 0x0100
#define FTFB_TASK_WAKING 0x0200
#define FTFB_TASK_NOLOAD 0x0400
#define FTFB_TASK_NEW 0x0800
/* Not a kernel bit: prev was preempted (still runnable, "R+"). */
#define FTFB_PREEMPTED 0x10000
/* Not a kernel bit (per-process tracing only): next is not traced and its
 * own switch-out will not be recorded, so it must not be shown as running
 * on the CPU until whatever switch is recorded next: the translator marks
 * it idle (incoming weight INT32_MIN), as Perfetto expects of idle time. */
#define FTFB_NEXT_UNFOLLOWED 0x20000

#endif
