/* SPDX-License-Identifier: MIT */
/*
 * event_kinds.h - one row per raw event kind (bpf/events.h's enum
 * ftfb_kind): its least size, its name in the trace's dropped-events
 * counter, its words in the summary, and the translator's handler. The
 * translator, the counters' names and the summary all read this table:
 * a new kind is one row here.
 */
#ifndef FTFB_EVENT_KINDS_H
#define FTFB_EVENT_KINDS_H

#include <stddef.h>

#include "events.h"

struct ftfb_translator;

typedef int (*ftfb_kind_handler)(struct ftfb_translator *t, const void *data,
				 size_t size);

struct ftfb_kind_info {
	size_t size;		   /* an event of the kind has at least it */
	const char *name;	   /* the dropped-events counter's argument */
	const char *label;	   /* the summary's words ("context switches") */
	ftfb_kind_handler handler; /* NULL: never reaches the translator */
};

/* Indexed by kind; kind 0 and the gaps have no row (all NULL). */
extern const struct ftfb_kind_info ftfb_kinds[FTFB_EV_KIND_MAX];

/* The row of kind, or NULL for one out of range or with no handler. */
const struct ftfb_kind_info *ftfb_kind(unsigned kind);

/* The summary's words for kind ("other" for one without). */
const char *ftfb_kind_label(unsigned kind);

/* translate_blockio.c, translate_irq.c, translate_mem.c: the --events
 * handlers, of one raw event (at least its kind's size) each */
int ftfb_tr_ev_block_io(struct ftfb_translator *t, const void *data,
			size_t size);
int ftfb_tr_ev_irq(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_rss(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_fault(struct ftfb_translator *t, const void *data, size_t size);

/* The translator's handler of each event kind (event_kinds.c's table):
 * data is an event of at least the kind's size. */
int ftfb_tr_ev_switch(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_wakeup(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_fork(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_exec(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_rename(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_exit(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_taskname(struct ftfb_translator *t, const void *data,
			size_t size);
int ftfb_tr_ev_uentry(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_uret(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_senter(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_sexit(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_usdt(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_stack(struct ftfb_translator *t, const void *data, size_t size);
int ftfb_tr_ev_pycode(struct ftfb_translator *t, const void *data, size_t size);

#endif
