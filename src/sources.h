/* SPDX-License-Identifier: MIT */
/*
 * sources.h - the event sources of a trace, one row each (as wprof's
 * capture_features[]): its name, the option that turns it on, its BPF
 * object and programs, when it is wanted, how it is attached, and the
 * raw event kinds it emits. A new --events source is its BPF program
 * (bpf/NAME.bpf.c, with its kinds and structs in bpf/NAME.h), its attach
 * (loader/loader_NAME.c), its translator (translate/translate_NAME.c:
 * its kinds' rows, handlers and state) and a row here, which gives the
 * CLI its --events name and help lines, the loader's attach its caller
 * and the translator its kinds.
 *
 * The scheduling programs are loaded and attached with the loader itself
 * (ftfb_loader_open, --no-sched leaves only the buffer flushers): every
 * other source depends on them for the rings, the traced set and the
 * flush of the per-CPU buffers.
 */
#ifndef FTFB_SOURCES_H
#define FTFB_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "events.h"

#include "bpf_loader.h"
#include "uprobe_set.h"
#include "usdt_set.h"

struct ftfb_loader;
struct ftfb_tr_source;

/* What the sources read of the trace to come: the session fills it
 * (session.c), so the sources never reach back into the session or the
 * command line. */
struct ftfb_source_ctx {
	struct ftfb_loader *loader;
	const struct ftfb_uprobe_set *probes; /* -u SPEC: resolved */
	const struct ftfb_usdt_set *usdt;     /* -u usdt:...: resolved */
	const uint8_t *sys_wanted; /* --syscalls=LIST, NULL: every call */
	uint32_t sys_tgid; /* --syscalls of this process only, 0: all */
	int link_pid;	   /* the uprobe links' pid, -1: every process */
	bool sched;	   /* not --no-sched */
	bool syscalls;	   /* --syscalls */
	bool stacks;	   /* -g */
	unsigned freq_hz;  /* --freq */
	unsigned events;   /* --events=LIST: the rows' bits (below) */
	bool verbose;	   /* -v */
};

#define FTFB_SOURCE_MAX_KINDS 9

struct ftfb_source {
	const char *name;     /* "syscalls" */
	const char *option;   /* "--syscalls[=LIST]" */
	const char *object;   /* "bpf/syscalls.bpf.c" */
	const char *programs; /* "ftfb_sys_enter, ftfb_sys_exit" */
	/* the kinds it emits, 0-terminated */
	enum ftfb_kind kinds[FTFB_SOURCE_MAX_KINDS];
	/* NULL: wanted when --events names it */
	bool (*wanted)(const struct ftfb_source_ctx *c);
	/* NULL: attached by ftfb_loader_open, or by attach_to; else 0, or
	 * -errno with one line in err */
	int (*attach)(const struct ftfb_source_ctx *c, char *err,
		      size_t errlen);
	/* --events=NAME sources: its lines in --help (after "NAME "), and
	 * its loader's attach, which needs nothing but the loader
	 * (loader/loader_NAME.c); NULL for another source's option (waker:
	 * the stacks source's) */
	const char *events_help;
	ftfb_loader_attach_fn *attach_to;
	/* its translator (translate/translate_NAME.c: its kinds, handlers
	 * and state; NULL: the core's kinds above) */
	const struct ftfb_tr_source *tr;
};

extern const struct ftfb_source ftfb_sources[];
extern const size_t ftfb_nsources;

/* The translators of every source of the table, for
 * ftfb_translator_opts.sources: all of them whether wanted or not, so
 * the kinds have their names in every trace. */
const struct ftfb_tr_source *const *ftfb_sources_tr(size_t *n);

/* The summary's words for kind, of the core's or of a source's
 * ("other" for one without). */
const char *ftfb_sources_kind_label(unsigned kind);

/* --events=NAME: the bit of NAME's row in ftfb_source_ctx.events and
 * cli_opts.events (0: no such --events source; len: NAME's). */
unsigned ftfb_sources_event_bit(const char *name, size_t len);

/* The --events names, comma-separated ("io, mem, irq, waker"), and
 * their --help lines, each indented by `indent`. */
void ftfb_sources_event_names(char *buf, size_t size);
void ftfb_sources_event_help(FILE *f, int indent);

/* Attaches every wanted source, in the table's order (the uprobes arm
 * the USDT probes with them, after both are attached). 0, or -errno with
 * one line in err. */
int ftfb_sources_attach(const struct ftfb_source_ctx *c, char *err,
			size_t errlen);

#endif
