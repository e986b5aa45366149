// SPDX-License-Identifier: MIT
/*
 * src/translate_irq.c - --events=irq: interrupts (struct ftfb_irq) as
 * slices on one track per CPU.
 *
 * FTF has no CPU-scoped slices, and Perfetto's Fuchsia importer makes
 * counters per process: so each CPU gets a pseudo thread ("cpu 3 irq") of
 * a pseudo process "interrupts", where every hard interrupt handler run
 * and softirq run is a slice (named by the handler, or by the softirq
 * vector; category irq or softirq), a hard one nested in the softirq it
 * interrupted. Slices rather than counters: a slice shows which
 * interrupt took the time and when, and Perfetto sums a selection's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "translate_priv.h"

static const char *const softirq_names[FTFB_NR_SOFTIRQS] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

const char *ftfb_softirq_name(unsigned vec)
{
	return vec < FTFB_NR_SOFTIRQS ? softirq_names[vec] : "softirq";
}

/* The pseudo thread of cpu, created with its process on first use. */
static int cpu_task(struct ftfb_translator *t, unsigned cpu,
		    struct ftfb_task **k)
{
	struct ftfb_task *proc;
	char name[FTFB_COMM_LEN];
	int err = ftfb_tr_pseudo_task(t, FTFB_PSEUDO_IRQ_PID,
				      FTFB_PSEUDO_IRQ_PID, "interrupts", &proc);

	if (err)
		return err;
	snprintf(name, sizeof(name), "cpu %u irq", cpu);
	return ftfb_tr_pseudo_task(t, FTFB_PSEUDO_IRQ_PID + 1 + cpu,
				   FTFB_PSEUDO_IRQ_PID, name, k);
}

static int on_irq(struct ftfb_translator *t, const struct ftfb_irq *e)
{
	const char *nm = e->soft ? ftfb_softirq_name(e->nr) : e->name;
	uint64_t begin = e->start_ns <= e->hdr.ts ? e->start_ns : e->hdr.ts;
	struct ftfb_task *k;
	int ref, name, cat, nr, tid, err;

	if (e->hdr.cpu >= FTFB_PSEUDO_MAX_CPUS) {
		t->st.skipped++;
		return 0;
	}
	err = cpu_task(t, e->hdr.cpu, &k);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	name = ftfb_tr_str_id(t, nm, strnlen(nm, FTFB_COMM_LEN), NULL);
	if (name < 0)
		return name;
	cat = e->soft ? ftfb_tr_cached_id(t, &t->irq.s_softirq, "softirq")
		      : ftfb_tr_cached_id(t, &t->irq.s_irq, "irq");
	nr = ftfb_tr_cached_id(t, &t->irq.s_nr, "nr");
	tid = ftfb_tr_cached_id(t, &t->irq.s_tid, "interrupted_tid");
	if (cat < 0 || nr < 0 || tid < 0)
		return cat < 0 ? cat : nr < 0 ? nr : tid;
	err = ftf_write_duration_complete(
		t->w, FTF_ARG_TYPES(0, 2, 0, 0, 0, 0), ref, cat, name,
		ftfb_tr_ticks(t, begin), ftfb_tr_ticks(t, e->hdr.ts));
	if (!err)
		err = ftf_arg_uint32(t->w, nr, e->nr);
	if (!err)
		err = ftf_arg_uint32(t->w, tid, e->hdr.tid);
	if (err)
		return err;
	t->st.records++;
	return 0;
}

int ftfb_tr_ev_irq(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_irq e;

	(void)size;
	memcpy(&e, data, sizeof(e)); /* (aligned, whatever the caller's) */
	return on_irq(t, &e);
}
