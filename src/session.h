/* SPDX-License-Identifier: MIT */
/*
 * session.h - one trace, in phases (main.c calls them in order; each
 * phase stops the ones after it by failing, and session_close cleans up
 * whatever the phases got to):
 *
 *   prepare  checks (privileges, BTF, --freq, the target), the -u,
 *            USDT, --syscalls and --trigger specs resolved, the clock,
 *            the sink opened (the file created, or the snapshots' folder
 *            checked): a run that cannot work fails here, having created
 *            nothing but its one error line;
 *   attach   the -- CMD spawned (held before exec), the BPF programs
 *            loaded and every source of the source table attached
 *            (sources.c), the sink started, the tasks alive named;
 *   loop     the CMD released, then poll, deliver, ticks, until a stop
 *            condition (signal, -d, the target's exit, an output error);
 *   finish   the rings drained, the drops recorded, the sink finished;
 *   close    recording stopped, the output closed, the summary, the
 *            links handed to the detach helper, everything freed.
 */
#ifndef FTFB_SESSION_H
#define FTFB_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "events.h"
#include "ftf/clock.h"
#include "sink.h"
#include "pystack_procs.h"
#include "stackprof.h"
#include "syscall_names.h"
#include "target.h"
#include "uprobe_set.h"
#include "usdt_set.h"

struct ftfb_early_reader;
struct ftfb_ring_threads;
struct ftfb_loader;
struct ftfb_symbolizer;

struct session {
	struct cli_opts *o;
	char main_bin[PATH_MAX];
	const char *mb; /* the target's main binary when known (-- CMD) */
	struct ftf_clock clock;
	struct ftfb_uprobe_set probes; /* -u functions */
	struct ftfb_usdt_set usdt;     /* -u usdt:..., --python */
	uint8_t sys_wanted[FTFB_NR_SYSCALLS]; /* --syscalls=LIST */
	uint64_t *trigger_ns;	       /* -F --trigger: per cookie */
	struct ftfb_symbolizer *sym;   /* -g */
	struct ftfb_pyprocs *pyprocs;  /* -g: the CPython processes */
	/* -g: samples held with a stack copy until their table is built */
	struct ftfb_sf *finish;
	struct ftfb_sf_maps *sf_maps;
	struct ftfb_stackprof_opts stack_opts;
	struct ftfb_sink *sink;	       /* the file or the flight recorder */
	struct ftfb_loader *loader;
	struct ftfb_early_reader *early; /* the rings read while starting */
	struct ftfb_ring_threads *ring_threads; /* --rings N: rings 1..N-1's threads */
	struct target_child child;
	bool have_child;
	uint64_t events;
	uint64_t drops[FTFB_EV_KIND_MAX];
	uint64_t fired[FTFB_EV_KIND_MAX];
	uint64_t start_ns; /* 0 until the loop starts */
	uint64_t prepare_ns; /* when session_prepare began: -v's timings */
	const char *stop_reason;
	bool status_line; /* live status on stderr */
	int rc;		  /* the exit code so far */
};

/* Each returns 0 to go on, or non-zero after one error line (s->rc set). */
int session_prepare(struct session *s, struct cli_opts *o);
int session_attach(struct session *s);
int session_loop(struct session *s);
void session_finish(struct session *s);
/* Returns the exit code. */
int session_close(struct session *s);

/* What the USDT probes of o are looked up with. */
struct ftfb_usdt_set_opts session_usdt_opts(const struct cli_opts *o,
					    const char *mb);

/* The pid the links filter on: none (-1) with -a or -f, else the
 * target's. */
int session_link_pid(const struct session *s);

/* session_specs.c: every -u/USDT/--syscalls spec resolved (before the
 * output or the kernel is touched, so one that matches nothing costs
 * nothing); -F --trigger's functions marked in s->trigger_ns. 0, or -1
 * with one line in err. */
int session_resolve_specs(struct session *s, char *err, size_t errlen);
int session_resolve_triggers(struct session *s, char *err, size_t errlen);

#endif
