// SPDX-License-Identifier: MIT
/*
 * src/translate_irq.c - --events=irq: interrupts (struct ftfb_irq) as
 * slices on one track per CPU.
 *
 * FTF has no CPU-scoped slices, and Perfetto's Fuchsia importer makes
 * counters per process: so each CPU gets a named track at the top
 * ("cpu 3 interrupts", named_tracks.h: no pseudo pid on screen), where
 * every hard interrupt handler run and softirq run is a slice (named by the
 * handler, or by the softirq vector; category irq or softirq), a hard one
 * nested in the softirq it interrupted. Slices rather than counters: a slice
 * shows which interrupt took the time and when, and Perfetto sums a
 * selection's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "irq.h"
#include "translate_priv.h"

#define MAX_CPUS 4096 /* an event of a cpu beyond: skipped, as a bad one */

static const char *const softirq_names[FTFB_NR_SOFTIRQS] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

/* "TIMER", "NET_RX", ... */
static const char *softirq_name(unsigned vec)
{
	return vec < FTFB_NR_SOFTIRQS ? softirq_names[vec] : "softirq";
}

static int on_irq(struct ftfb_translator *t, const struct ftfb_irq *e)
{
	const char *nm = e->soft ? softirq_name(e->nr) : e->name;
	uint64_t begin = e->start_ns <= e->hdr.ts ? e->start_ns : e->hdr.ts;
	char name[FTFB_COMM_LEN], track[32];
	struct ftfb_nt_arg a[2] = {
		{"nr", FTFB_NT_UINT, e->nr, NULL},
		{"interrupted_tid", FTFB_NT_UINT, e->hdr.tid, NULL},
	};
	int blob, err;

	if (e->hdr.cpu >= MAX_CPUS) {
		t->st.skipped++;
		return 0;
	}
	blob = ftfb_tr_str_id(t, "perfetto", 8, NULL);
	if (blob < 0)
		return blob;
	snprintf(name, sizeof(name), "%.*s", FTFB_COMM_LEN - 1, nm);
	snprintf(track, sizeof(track), "cpu %u interrupts", e->hdr.cpu);
	err = ftfb_nt_slice(&t->ntracks, t->w, blob, 0, track,
			    e->soft ? "softirq" : "irq", name,
			    ftfb_tr_perfetto_ns(t, begin),
			    ftfb_tr_perfetto_ns(t, e->hdr.ts), a, 2);
	if (!err)
		t->st.records++;
	return err;
}

static int ev_irq(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_irq e;

	(void)size;
	memcpy(&e, data, sizeof(e)); /* (aligned, whatever the caller's) */
	return on_irq(t, &e);
}

static const struct ftfb_kind_info kinds[] = {
	{FTFB_EV_IRQ, sizeof(struct ftfb_irq), "irq", "interrupts", ev_irq},
};

const struct ftfb_tr_source ftfb_tr_irq = {"irq", kinds, 1, 0};
