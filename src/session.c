// SPDX-License-Identifier: MIT
/*
 * session.c - one trace in phases (see session.h): prepare, attach,
 * loop, finish, close. What each phase needs to know lives elsewhere:
 * the checks in preflight.c, the sources in sources.c, the output in
 * the sinks (sink_file.c, sink_flight.c), the words in report.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_loader.h"
#include "early_reader.h"
#include "ring_threads.h"
#include "flight.h"
#include "monotime.h"
#include "preflight.h"
#include "reader_priority.h"
#include "ring_size.h"
#include "probespec.h"
#include "procfs.h"
#include "report.h"
#include "session.h"
#include "sources.h"
#include "stack_copy_maps.h"
#include "files_cancel.h"
#include "symbolize.h"

#define STATUS_INTERVAL_NS 1000000000ull
#define POLL_MS 100
#define STOP_COMMAND_WAIT_MS 5000 /* for a command still running at the stop */

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t snapshot_signals; /* SIGUSR1s received */

static void on_signal(int sig)
{
	stop_signal = sig;
	/* (the run loop's thread may be deep in a process's file) */
	ftfb_files_cancel_soon();
}

static void on_usr1(int sig)
{
	(void)sig;
	snapshot_signals++;
}

/* Ctrl-C, SIGTERM and SIGHUP stop the trace (or its start), SIGUSR1
 * asks for a snapshot: from the first step, so that none of them kills
 * the tracer halfway. */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a snapshot with -F; without, said and ignored (its default kills) */
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* One error line; the phase fails with exit code 1. */
static int fail(struct session *s, const char *msg)
{
	fprintf(stderr, "ftf-bpf: %s\n", msg);
	s->rc = 1;
	return 1;
}

static const char *signal_label(int sig)
{
	return sig == SIGINT ? "Ctrl-C" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* A stop signal before the trace began (loading, attaching, building
 * tables can take seconds): the start is abandoned at its next step, the
 * -- CMD, still held, is killed and the file at -o left as it was. */
static int stopped_while_starting(struct session *s)
{
	char msg[160];

	if (!stop_signal)
		return 0;
	snprintf(msg, sizeof(msg),
		 "%s while starting: stopped before tracing began, no trace written",
		 signal_label(stop_signal));
	return fail(s, msg);
}

/* A step of the start failed: said as the stop it was when a stop
 * signal came meanwhile (a system call it interrupted fails with EINTR,
 * and its error would hide why), else as its error. */
static int start_failed(struct session *s, const char *err)
{
	return stop_signal ? stopped_while_starting(s) : fail(s, err);
}

/* -p/--: the link's pid filter keeps every other process from taking
 * the probe, but also the target's children; with -f there is none and
 * the BPF programs keep the traced tgids (the map follows fork in the
 * kernel, before the child runs). */
int session_link_pid(const struct session *s)
{
	if (s->o->follow_children)
		return -1;
	if (s->o->pid)
		return s->o->pid;
	return s->have_child ? s->child.pid : -1;
}

/* ------------------------------------------------------------------ */
/* prepare                                                              */
/* ------------------------------------------------------------------ */

/* The sink: the trace file, or (-F) the flight recorder. */
static int open_sink(struct session *s, char *err, size_t errlen)
{
	const struct cli_opts *o = s->o;
	struct ftfb_flight_opts fo;

	if (!o->flight_ns)
		return ftfb_sink_file_open(&s->sink, o->output, o->compress,
					   &s->clock, err, errlen);
	if (session_resolve_triggers(s, err, errlen))
		return -1;
	memset(&fo, 0, sizeof(fo));
	fo.window_ns = o->flight_ns;
	fo.max_bytes = o->flight_bytes;
	fo.output = o->output;
	fo.compress = o->compress;
	fo.max_snapshots = o->max_snapshots;
	fo.post_ns = o->post_ns;
	fo.trigger_ns = s->trigger_ns;
	fo.clock = &s->clock;
	fo.quiet = o->quiet;
	fo.verbose = o->verbose;
	return ftfb_sink_flight_open(&s->sink, &fo, err, errlen);
}

int session_prepare(struct session *s, struct cli_opts *o)
{
	char err[1024];

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->prepare_ns = ftfb_mono_ns();
	s->stop_reason = "Ctrl-C";
	install_signals();
	if (preflight_system(o, err, sizeof(err)) ||
	    preflight_target(o, s->main_bin, sizeof(s->main_bin), &s->mb, err,
			     sizeof(err)) ||
	    session_resolve_specs(s, err, sizeof(err)))
		return start_failed(s, err);
	ftf_clock_init(&s->clock, o->clock_mono ? FTF_CLOCK_MONO : FTF_CLOCK_TSC);
	if (o->verbose)
		report_clock(stderr, &s->clock);
	if (open_sink(s, err, sizeof(err)))
		return start_failed(s, err);
	return stopped_while_starting(s);
}

/* ------------------------------------------------------------------ */
/* attach                                                               */
/* ------------------------------------------------------------------ */

/* --buffer-size, or what the cpus and the sources on need */
static uint64_t ring_bytes(const struct cli_opts *o)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (o->ring_bytes_given)
		return o->ring_bytes;
	return ftfb_auto_ring_bytes(o, ncpus > 0 ? (unsigned)ncpus : 1);
}

static int open_loader(struct session *s, char *err, size_t errlen)
{
	const struct cli_opts *o = s->o;
	int nice0;
	struct ftfb_loader_opts lo = {
		.filter_tgids = !o->all,
		.ring_bytes = ring_bytes(o),
		.nr_rings = o->nr_rings,
		.sched = !o->no_sched,
		.uprobe_nargs = o->nargs,
		.verbose = o->verbose,
		.exclude_self = true,
		.background_detach = true,
		.python_stacks = o->stacks && !o->no_python_stacks,
		.waker_stacks = (o->events & ftfb_sources_event_bit("waker", 5)) != 0,
		.preload_stacks = o->stacks,
	};
	int pids[2] = { o->pid, s->have_child ? s->child.pid : 0 };
	int r;

	/* Start-up (loading, the names of every process) is what stands
	 * between ftf-bpf and tracing: with a reader's priority it takes
	 * well under a second on a busy machine, where at the default one
	 * it took seconds. The threads born now that can wait keep the
	 * default: the table builder here, the output's were born before. */
	errno = 0;
	nice0 = getpriority(PRIO_PROCESS, (id_t)gettid());
	if (!errno && !ftfb_reader_priority()) {
		lo.tables_nice_set = true;
		lo.tables_nice = nice0;
	}
	if (o->verbose)
		fprintf(stderr, "ftf-bpf: loading BPF programs\n");
	if (ftfb_loader_open(&s->loader, &lo, err, errlen))
		return -1;
	for (int i = 0; i < 2; i++)
		if (pids[i] && (r = ftfb_loader_trace_tgid(s->loader,
							   (uint32_t)pids[i]))) {
			snprintf(err, errlen, "cannot filter on pid %d: %s",
				 pids[i], strerror(-r));
			return -1;
		}
	return 0;
}

/* A sample finished from its stack copy, to the sink. */
static int finished_stack(void *ctx, const void *data, size_t size)
{
	struct session *s = ctx;

	return s->sink->ops->event(s->sink, data, size);
}

/* -g: the samples whose walk stopped "not loaded yet" come with a copy
 * of their stack, held here until their table is built. */
static int start_stack_finish(struct session *s, char *err, size_t errlen)
{
	struct ftfb_sf_source src;
	int r = ftfb_sf_maps_open(s->loader, &s->sf_maps, &src);

	if (!r)
		r = ftfb_sf_new(&s->finish, &src, FTFB_SF_DEADLINE_NS,
				FTFB_SF_MAX_BYTES, finished_stack, s);
	if (r)
		snprintf(err, errlen,
			 "reading the unwind tables' maps failed: %s",
			 strerror(-r));
	return r ? -1 : 0;
}

/* The translator's options (the sink sets its writer) and -g's. */
static int start_sink(struct session *s, char *err, size_t errlen)
{
	struct ftfb_translator_opts to = {
		.clock_mono = s->o->clock_mono,
		.lookup = ftfb_procfs_lookup,
		.self_tid = (uint32_t)getpid(),
		.funcs = s->probes.funcs,
		.nfuncs = s->probes.nfuncs,
		.usdt = s->usdt.descs,
		.nusdt = s->usdt.n,
		.strangers_apart = !s->o->all,
	};

	to.sources = ftfb_sources_tr(&to.nsources);

	if (s->o->stacks) {
		if (ftfb_symbolizer_new(&s->sym)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		s->stack_opts.symbolize = ftfb_symbolize;
		s->stack_opts.symbolize_ctx = s->sym;
		s->stack_opts.freq_hz = s->o->freq_hz;
		s->stack_opts.forget = ftfb_symbolizer_forget;
		if (!s->o->no_python_stacks &&
		    ftfb_pyprocs_new(&s->pyprocs, ftfb_loader_set_python,
				     s->loader)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (start_stack_finish(s, err, errlen))
			return -1;
	}
	return s->sink->ops->start(s->sink, &to,
				   s->o->stacks ? &s->stack_opts : NULL, err,
				   errlen);
}

/* The held -- CMD is still a copy of ftf-bpf when the live tasks are
 * named: it is named, and its command line given, as the command it
 * becomes. Perfetto names a process by its command line, and the one
 * read at its exec never comes if it exits or renames itself before the
 * translator reads /proc: it was then named after ftf-bpf. */
static void as_command(const struct session *s, struct ftfb_task_info *ti)
{
	const char *base = strrchr(s->o->cmd[0], '/');
	size_t len = 0;

	base = base ? base + 1 : s->o->cmd[0];
	snprintf(ti->comm, sizeof(ti->comm), "%s", base);
	snprintf(ti->process_name, sizeof(ti->process_name), "%s", base);
	for (char **a = s->o->cmd; *a && len < sizeof(ti->cmdline) - 1; a++) {
		size_t n = strlen(*a) + 1; /* with its NUL */

		if (n > sizeof(ti->cmdline) - 1 - len)
			n = sizeof(ti->cmdline) - 1 - len;
		memcpy(ti->cmdline + len, *a, n);
		len += n;
	}
	ti->cmdline[len] = '\0';
	ti->cmdline_len = (uint16_t)len;
}

static int add_task(void *ctx, const struct ftfb_task_info *ti)
{
	struct session *s = ctx;
	struct ftfb_task_info cmd;

	if (s->have_child && ti->tgid == (uint32_t)s->child.pid) {
		cmd = *ti;
		as_command(s, &cmd);
		return s->sink->ops->add_task(s->sink, &cmd);
	}
	return s->sink->ops->add_task(s->sink, ti);
}

/* Names what is already alive. Attached first, scanned second: a task
 * born in between is both scanned and seen forking. */
static int name_alive_tasks(struct session *s, char *err, size_t errlen)
{
	const struct cli_opts *o = s->o;
	int r;

	if (o->all)
		return ftfb_procfs_scan(add_task, s), 0;
	r = ftfb_procfs_scan_pid((uint32_t)(o->pid ? o->pid : s->child.pid),
				 add_task, s);
	if (r && o->pid) {
		snprintf(err, errlen, "pid %d exited before tracing began",
			 o->pid);
		return -1;
	}
	return 0;
}

/* The sources (sources.c) attached with what they read of the session. */
static int attach_sources(struct session *s, char *err, size_t errlen)
{
	const struct cli_opts *o = s->o;
	struct ftfb_source_ctx c = {
		.loader = s->loader,
		.probes = &s->probes,
		.usdt = &s->usdt,
		.sys_wanted = o->syscall_list ? s->sys_wanted : NULL,
		.link_pid = session_link_pid(s),
		.sched = !o->no_sched,
		.syscalls = o->syscalls,
		.stacks = o->stacks,
		.freq_hz = o->freq_hz,
		.events = o->events,
		.verbose = o->verbose,
	};

	/* --syscalls with -p/-- records the target's own calls, with -f
	 * also those of the processes it forks (as -u does); -a every
	 * process. */
	if (!o->all && !o->follow_children)
		c.sys_tgid = (uint32_t)(o->pid ? o->pid : s->child.pid);

	return ftfb_sources_attach(&c, err, errlen);
}

static int on_event(void *ctx, const void *data, size_t size);

/* What the early reader (early_reader.h) read while starting, to the
 * sink: after the live tasks are named, before anything newer (the
 * loop's, the --rings threads'). A sink
 * error is the sink's (reported at close, as in the loop). */
static void hand_over_early(struct session *s)
{
	uint64_t lost;

	ftfb_early_reader_stop(s->early, on_event, s);
	lost = ftfb_early_reader_lost(s->early);
	if (lost)
		fprintf(stderr,
			"ftf-bpf: %llu events read while starting lost: out of memory\n",
			(unsigned long long)lost);
	ftfb_early_reader_free(s->early);
	s->early = NULL;
}

/* -v: how long start-up took up to `step` ("BPF programs loaded"), from
 * session_prepare: where a slow start goes. */
static void say_step(const struct session *s, const char *step)
{
	if (s->o->verbose)
		fprintf(stderr, "ftf-bpf: %s at %.0f ms\n", step,
			(double)(ftfb_mono_ns() - s->prepare_ns) / 1e6);
}

int session_attach(struct session *s)
{
	char err[1024];

	if (s->o->cmd) {
		if (target_spawn(&s->child, s->o->cmd, err, sizeof(err)))
			return start_failed(s, err);
		s->have_child = true;
	}
	say_step(s, "output opened");
	if (open_loader(s, err, sizeof(err)))
		return start_failed(s, err);
	say_step(s, "BPF programs loaded");
	/* the sched programs write from here: read from here */
	if (ftfb_early_reader_start(&s->early, s->loader)) {
		snprintf(err, sizeof(err), "starting the ring reader failed");
		return start_failed(s, err);
	}
	if (stopped_while_starting(s))
		return 1;
	if (attach_sources(s, err, sizeof(err)))
		return start_failed(s, err);
	say_step(s, "sources attached");
	if (stopped_while_starting(s))
		return 1;
	if (start_sink(s, err, sizeof(err)) ||
	    name_alive_tasks(s, err, sizeof(err)))
		return start_failed(s, err);
	say_step(s, "live tasks named");
	return stopped_while_starting(s);
}

/* ------------------------------------------------------------------ */
/* loop                                                                 */
/* ------------------------------------------------------------------ */

static int on_event(void *ctx, const void *data, size_t size)
{
	struct session *s = ctx;

	/* No early return on a signal: libbpf has consumed this record
	 * already, so refusing it would lose it uncounted. The poll returns
	 * within about two timeouts anyway (ftfb_loader_poll), and the drain
	 * after the loop takes the rest. */
	s->events++;
	if (s->pyprocs) /* -g: which processes are CPython */
		ftfb_pyprocs_event(s->pyprocs, data, size, ftfb_mono_ns());
	if (s->finish) { /* -g: a sample with a stack copy is held */
		int r = ftfb_sf_event(s->finish, data, size, ftfb_mono_ns());

		if (r)
			return r < 0 ? r : 0;
	}
	return s->sink->ops->event(s->sink, data, size);
}

static void record_drops(struct session *s)
{
	if (ftfb_loader_counters(s->loader, s->drops, s->fired) == 0)
		s->sink->ops->drops(s->sink, ftfb_mono_ns(), s->drops);
}


/* "tracing pid 123 into trace.fxt; Ctrl-C to stop" */
static void say_tracing(const struct session *s)
{
	const struct cli_opts *o = s->o;
	char what[PATH_MAX + 32], first[PATH_MAX];

	if (o->all)
		snprintf(what, sizeof(what), "all processes");
	else if (o->pid)
		snprintf(what, sizeof(what), "pid %d", o->pid);
	else
		snprintf(what, sizeof(what), "'%s' (pid %d)", o->cmd[0],
			 s->child.pid);
	if (!o->flight_ns) {
		fprintf(stderr, "ftf-bpf: tracing %s into %s; Ctrl-C to stop\n",
			what, o->output);
		return;
	}
	ftfb_flight_snapshot_path(o->output, 1, first, sizeof(first));
	fprintf(stderr,
		"ftf-bpf: tracing %s, keeping the last %.3f s in memory; snapshots (%s, ...) on SIGUSR1 (kill -USR1 %d)%s and at the stop; Ctrl-C to stop\n",
		what, (double)o->flight_ns / 1e9, first, (int)getpid(),
		o->ntriggers ? ", at every --trigger" : "");
}

/* Why the loop stops now, or NULL to go on. */
static const char *stop_condition(struct session *s, uint64_t now,
				  uint64_t deadline)
{
	if (s->sink->err)
		return "output error";
	if (stop_signal)
		return signal_label(stop_signal);
	if (deadline && now >= deadline)
		return "duration reached";
	if (s->have_child && target_child_exited(&s->child))
		return "command exited";
	if (s->o->pid && target_pid_gone(s->o->pid))
		return "traced process exited";
	return NULL;
}

/* A snapshot per SIGUSR1 since the last look. */
static void deliver_requests(struct session *s, uint64_t now)
{
	static sig_atomic_t seen;

	while (seen != snapshot_signals) {
		seen++;
		s->sink->ops->request(s->sink, "SIGUSR1");
		s->sink->ops->tick(s->sink, now);
	}
}

/* Events read on the loop's thread and by the ring threads'. */
static uint64_t events_read(const struct session *s)
{
	return s->events + ftfb_ring_threads_events(s->ring_threads);
}

/* Once a second: the drops, and the status line where it is shown. */
static void status_tick(struct session *s, uint64_t now, uint64_t *last_ns,
			uint64_t *last_events)
{
	double dt = (double)(now - *last_ns) / 1e9;
	uint64_t events = events_read(s);

	if (now - *last_ns < STATUS_INTERVAL_NS)
		return;
	record_drops(s);
	if (s->status_line)
		report_status(stderr, (double)(now - s->start_ns) / 1e9,
			      dt > 0 ? (double)(s->events - *last_events) / dt
				     : 0,
			      report_total(s->drops),
			      s->sink->ops->bytes(s->sink),
			      s->sink->bytes_label);
	*last_events = events;
	*last_ns = now;
}

/* Signals, the start, the -- CMD let go; then the loop: poll, deliver,
 * ticks, stop conditions. Non-zero only if the CMD could not start (a
 * ring buffer error stops the loop, and the finish still drains). */
int session_loop(struct session *s)
{
	const struct cli_opts *o = s->o;
	uint64_t deadline = 0, last_status, last_events = 0;
	char err[1024];

	if (stopped_while_starting(s))
		return 1;
	s->start_ns = ftfb_mono_ns();
	if (o->duration_ns) {
		deadline = s->start_ns + o->duration_ns;
		/* -d ends the reads of processes' files even while the loop
		 * is in one and does not look at the clock */
		ftfb_files_cancel_at(deadline + FTFB_FILES_GRACE_NS);
	}
	if (s->have_child &&
	    target_release(&s->child, o->cmd[0], err, sizeof(err))) {
		s->start_ns = 0; /* not started: no summary, no trace */
		return fail(s, err);
	}
	/* Started: only now does the trace replace what was at -o. */
	if (s->sink->ops->commit(s->sink, err, sizeof(err)))
		return fail(s, err);
	if (!o->quiet)
		say_tracing(s);
	/* (traced since the first attach: what start-up read is the
	 * trace's first part, handed over while the programs go on
	 * writing, read by the early reader until it is caught up) */
	hand_over_early(s);
	if (ftfb_ring_threads_start(&s->ring_threads, s->loader, s->sink, err,
				    sizeof(err))) {
		fail(s, err);
		s->stop_reason = "ring threads not started";
		return 0;
	}
	s->status_line = !o->quiet && (o->force_status || isatty(STDERR_FILENO));
	last_status = s->start_ns;
	/* this thread only: the threads started already (tables, output)
	 * keep theirs; kept as it is without CAP_SYS_NICE */
	ftfb_reader_priority();
	for (;;) {
		int r = ftfb_loader_poll(s->loader, POLL_MS, on_event, s);
		uint64_t now = ftfb_mono_ns();
		const char *why;

		if (r < 0 && r != -EINTR && !s->sink->err) {
			/* what the rings hold is still drained */
			snprintf(err, sizeof(err),
				 "reading the BPF ring buffer failed: %s",
				 strerror(-r));
			fail(s, err);
			s->stop_reason = "ring buffer error";
			return 0;
		}
		why = stop_condition(s, now, deadline);
		if (why) {
			s->stop_reason = why;
			return 0;
		}
		deliver_requests(s, now);
		if (s->finish)
			ftfb_sf_tick(s->finish, now);
		s->sink->ops->tick(s->sink, now);
		status_tick(s, now, &last_status, &last_events);
	}
}

/* ------------------------------------------------------------------ */
/* finish and close                                                     */
/* ------------------------------------------------------------------ */

/* The trace stopped (-d, a signal) with the command still running: it
 * is not left behind, reparented to init. As perf record does, it gets
 * SIGTERM and is waited for (a few seconds). False if it still runs. */
static bool stop_command(struct session *s)
{
	if (target_child_exited(&s->child))
		return true;
	if (!s->o->quiet)
		fprintf(stderr, "ftf-bpf: stopping '%s' (pid %d) with SIGTERM\n",
			s->o->cmd[0], s->child.pid);
	if (target_stop(&s->child, STOP_COMMAND_WAIT_MS))
		return true;
	fprintf(stderr,
		"ftf-bpf: '%s' (pid %d) still runs %d s after SIGTERM: left running (kill -KILL %d)\n",
		s->o->cmd[0], s->child.pid, STOP_COMMAND_WAIT_MS / 1000,
		s->child.pid);
	return false;
}

/* "'make' exited with status 2" */
static void say_child_status(const struct session *s)
{
	int st = s->child.status;

	if (!s->have_child || !s->child.exited || s->o->quiet)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		fprintf(stderr, "ftf-bpf: '%s' exited with status %d\n",
			s->o->cmd[0], WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(stderr, "ftf-bpf: '%s' was killed by signal %d (%s)\n",
			s->o->cmd[0], WTERMSIG(st), strsignal(WTERMSIG(st)));
}

void session_finish(struct session *s)
{
	char err[1024];

	ftfb_files_cancel_soon(); /* (the drain may need a few) */
	/* Whatever is still in the rings belongs to the trace. */
	if (!s->sink->err) {
		int r = ftfb_loader_drain(s->loader, on_event, s);

		if (r < 0 && !s->sink->err) {
			snprintf(err, sizeof(err),
				 "reading the last events from the BPF buffers failed: %s; the trace may miss events from the end",
				 strerror(-r));
			fail(s, err);
		}
	}
	/* (the ring threads read their rings once recording has stopped: by the
	 * drain, or here after an output error) */
	ftfb_loader_stop_recording(s->loader);
	if (ftfb_ring_threads_stop(s->ring_threads, err, sizeof(err)) && !s->sink->err)
		fail(s, err);
	if (s->finish) /* the samples still held, finished or as they are */
		ftfb_sf_flush(s->finish);
	record_drops(s);
	if (s->status_line)
		report_status_clear(stderr);
	if (s->sink->ops->finish(s->sink, ftfb_mono_ns(), s->stop_reason))
		s->rc = 1;
	if (s->have_child && !stop_command(s))
		s->rc = 1;
	say_child_status(s);
}

static void summary(const struct session *s)
{
	const struct ftfb_report_ctx ctx = {
		.drops = s->drops,
		.loader = s->loader,
		.syscalls = s->o->syscalls,
	};

	const struct cli_opts *o = s->o;
	const uint64_t *by_kind = s->sink->ops->by_kind(s->sink);

	report_head(stderr, s->stop_reason,
		    (double)(ftfb_mono_ns() - s->start_ns) / 1e9, by_kind,
		    events_read(s), s->drops, s->sink->err != 0);
	if (!o->all && !o->follow_children && (o->nuprobes || o->python))
		report_hint_children(stderr, by_kind);
	s->sink->ops->summary(s->sink, &ctx, stderr);
	if (s->finish)
		report_stack_copies(stderr, s->finish);
	if (ftfb_files_skipped())
		fprintf(stderr,
			"  %llu reads of traced processes' files not begun: the stop's bound had passed (their frames stay unnamed)\n",
			(unsigned long long)ftfb_files_skipped());
}

int session_close(struct session *s)
{
	/* The links are closed last (ftfb_loader_close below): recording
	 * stopped at the drain, and the kernel's release of a link can take
	 * minutes on a busy machine, which neither the trace nor the
	 * summary waits for. */
	/* (a start that failed: its reader, before the loader goes) */
	ftfb_early_reader_free(s->early);
	s->early = NULL;
	if (s->loader)
		ftfb_loader_stop_recording(s->loader);
	/* their records go before the close; their count stays */
	s->events = events_read(s);
	ftfb_ring_threads_free(s->ring_threads);
	s->ring_threads = NULL;
	if (s->have_child && !s->child.exited && s->child.go_fd > 0)
		target_abort(&s->child);
	if (s->sink) {
		s->sink->ops->close_output(s->sink);
		if (s->sink->err) {
			fprintf(stderr,
				"ftf-bpf: %s; the trace holds the whole records written before the error\n",
				s->sink->errmsg);
			s->rc = 1;
		}
		if (s->start_ns && !s->o->quiet)
			summary(s);
	}
	ftfb_sf_free(s->finish);
	ftfb_sf_maps_free(s->sf_maps);
	ftfb_loader_close(s->loader);
	if (s->sink)
		s->sink->ops->free(s->sink);
	ftfb_symbolizer_free(s->sym);
	ftfb_pyprocs_free(s->pyprocs);
	free(s->trigger_ns);
	ftfb_uprobe_set_free(&s->probes);
	ftfb_usdt_set_free(&s->usdt);
	return s->rc;
}
