/* SPDX-License-Identifier: MIT */
/*
 * event_kinds.h - one row per raw event kind: its least size, its name
 * in the trace's dropped-events counter, its words in the summary, and
 * the translator's handler. The core's kinds (bpf/events.h: scheduling,
 * calls, system calls, USDT, stacks) are rows of event_kinds.c; an
 * --events source brings its own rows in its translator file
 * (struct ftfb_tr_source), which the source table (src/sources.c) hands
 * to the translator (ftfb_translator_opts.sources).
 */
#ifndef FTFB_EVENT_KINDS_H
#define FTFB_EVENT_KINDS_H

#include <stddef.h>

#include "events.h"

struct ftfb_translator;

typedef int (*ftfb_kind_handler)(struct ftfb_translator *t, const void *data,
				 size_t size);

struct ftfb_kind_info {
	unsigned kind;		   /* its number (bpf/events.h, bpf/NAME.h) */
	size_t size;		   /* an event of the kind has at least it */
	const char *name;	   /* the dropped-events counter's argument */
	const char *label;	   /* the summary's words ("context switches") */
	ftfb_kind_handler handler; /* NULL: never reaches the translator */
};

/* The core's kinds, indexed by kind; kind 0 and the gaps have no row
 * (all NULL). */
extern const struct ftfb_kind_info ftfb_kinds[FTFB_EV_KIND_MAX];

/* The summary's words for a core kind ("other" for one without). */
const char *ftfb_kind_label(unsigned kind);

/* An event source's part of the translator (translate_NAME.c): its kinds'
 * rows, and the size of its state, which the translator allocates
 * (zeroed) at init and frees with itself; its handlers reach it with
 * ftfb_tr_state (translate_priv.h), the rest of the translator never
 * sees inside. */
struct ftfb_tr_source {
	const char *name; /* "irq" */
	const struct ftfb_kind_info *kinds;
	size_t nkinds;
	size_t state_size; /* 0: none */
};

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
