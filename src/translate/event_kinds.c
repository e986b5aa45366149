// SPDX-License-Identifier: MIT
/*
 * event_kinds.c - the event-kind table (see event_kinds.h).
 */
#include "event_kinds.h"

#define KIND(k, type_size, n, l, h)                                            \
	[k] = { .kind = (k), .size = (type_size), .name = (n), .label = (l),   \
		.handler = (h) }

const struct ftfb_kind_info ftfb_kinds[FTFB_EV_KIND_MAX] = {
	KIND(FTFB_EV_SWITCH, sizeof(struct ftfb_switch), "switch",
	     "context switches", ftfb_tr_ev_switch),
	KIND(FTFB_EV_WAKEUP, sizeof(struct ftfb_wakeup), "wakeup", "wakeups",
	     ftfb_tr_ev_wakeup),
	KIND(FTFB_EV_WAKEUP_NEW, sizeof(struct ftfb_wakeup), "wakeup_new",
	     "new-task wakeups", ftfb_tr_ev_wakeup),
	KIND(FTFB_EV_FORK, sizeof(struct ftfb_fork), "fork", "forks",
	     ftfb_tr_ev_fork),
	KIND(FTFB_EV_EXEC, sizeof(struct ftfb_comm_ev), "exec", "execs",
	     ftfb_tr_ev_exec),
	KIND(FTFB_EV_EXIT, sizeof(struct ftfb_exit), "exit", "exits",
	     ftfb_tr_ev_exit),
	KIND(FTFB_EV_RENAME, sizeof(struct ftfb_comm_ev), "rename", "renames",
	     ftfb_tr_ev_rename),
	KIND(FTFB_EV_UENTRY, sizeof(struct ftfb_uentry), "uentry",
	     "function entries", ftfb_tr_ev_uentry),
	KIND(FTFB_EV_URET, sizeof(struct ftfb_uret), "uret",
	     "function returns", ftfb_tr_ev_uret),
	/* split by the loader into the events it carries: never seen */
	KIND(FTFB_EV_BATCH, sizeof(struct ftfb_batch), "batch", "other", NULL),
	KIND(FTFB_EV_TASKNAME, sizeof(struct ftfb_taskname), "taskname",
	     "task names from the kernel", ftfb_tr_ev_taskname),
	KIND(FTFB_EV_SENTER, sizeof(struct ftfb_senter), "syscall_enter",
	     "system call entries", ftfb_tr_ev_senter),
	KIND(FTFB_EV_SEXIT, sizeof(struct ftfb_sexit), "syscall_exit",
	     "system call exits", ftfb_tr_ev_sexit),
	/* sent without the unused tail of its strings */
	KIND(FTFB_EV_USDT, offsetof(struct ftfb_usdt, str), "usdt", "USDT hits",
	     ftfb_tr_ev_usdt),
	KIND(FTFB_EV_STACK_ON, sizeof(struct ftfb_stack), "stack_on_cpu",
	     "on-CPU stack samples", ftfb_tr_ev_stack),
	KIND(FTFB_EV_STACK_OFF, sizeof(struct ftfb_stack), "stack_off_cpu",
	     "off-CPU stacks", ftfb_tr_ev_stack),
	KIND(FTFB_EV_PYCODE, sizeof(struct ftfb_pycode), "python_code",
	     "Python functions named", ftfb_tr_ev_pycode),
	KIND(FTFB_EV_STACK_WAKER, sizeof(struct ftfb_stack), "stack_waker",
	     "waker stacks", ftfb_tr_ev_stack),
	/* turned into FTFB_EV_STACK_ON before the sink (stack_finish.h) */
	KIND(FTFB_EV_STACK_COPY, sizeof(struct ftfb_stack),
	     "stack_copy", "on-CPU samples with a stack copy", NULL),
};

const char *ftfb_kind_label(unsigned kind)
{
	if (kind >= FTFB_EV_KIND_MAX || !ftfb_kinds[kind].label)
		return "other";
	return ftfb_kinds[kind].label;
}
