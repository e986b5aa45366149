/* SPDX-License-Identifier: MIT */
/*
 * sched_records.h - a context switch or a wakeup as FTF records, written
 * whole into a writer: what the translator does with them, and what a
 * lane (lane.h) does on its own thread for the rings it reads. Knows no
 * task table: the caller names the tasks (the translator creates them,
 * a lane tells the translator it saw them).
 */
#ifndef FTFB_SCHED_RECORDS_H
#define FTFB_SCHED_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "ftf/writer.h"
#include "ticks.h"

/* Per CPU: the task the last switch put on it (tid + 1, 0: none to end
 * later: idle, unfollowed or not seen yet) and its prio. */
#define FTFB_TR_MAX_CPUS 1024
struct ftfb_cpu_on {
	uint32_t tid_plus1;
	int32_t prio;
};

struct ftfb_sched_rec {
	struct ftf_writer *w;
	const struct ftfb_ticks *tk;
	/* argument names, interned by the translator's writer (a lane's
	 * writer defines no strings: it uses these) */
	int s_incoming_weight, s_outgoing_weight, s_waker;
	uint64_t *records;  /* bumped per record written */
	uint64_t *repaired; /* bumped per missing switch-out repaired */
	struct ftfb_cpu_on cpu_on[FTFB_TR_MAX_CPUS];
};

/* The switch e will first end the task the CPU's last switch put there
 * (the kernel reported no switch-out for it): the idle task, tid 0,
 * appears in the trace then. */
bool ftfb_sched_needs_repair(const struct ftfb_sched_rec *r,
			     const struct ftfb_switch *e);

/* The switch (and its repair before it), then the CPU remembers its new
 * task. 0 or the writer's negative error. */
int ftfb_sched_switch(struct ftfb_sched_rec *r, const struct ftfb_switch *e);

/* A wakeup (or a new task's first), with its waker's tid. */
int ftfb_sched_wakeup(struct ftfb_sched_rec *r, const struct ftfb_wakeup *e);

#endif
