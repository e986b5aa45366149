/* SPDX-License-Identifier: MIT */
/*
 * flight.c - the flight recorder (see flight.h): the window of raw
 * events, the tracker of what the window's start inherits, the triggers
 * and the snapshots.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/writer.h"
#include "flight.h"
#include "flight_ring.h"
#include "output.h"
#include "trigger.h"

struct snapshot {
	char path[PATH_MAX];
	char why[160];
	uint64_t t0, t1; /* window, CLOCK_MONOTONIC ns */
	uint64_t whole_from; /* t0, or later: all of what happened since is
			      * in the snapshot (the ring's oldest since_ts) */
	pid_t pid;       /* the writing child, 0 once collected */
	bool ok;
};

#define MAX_RECORDED_SNAPSHOTS 1024

/* A destination that forgets what it is given: the tracker's writer. */
struct null_dest {
	struct ftf_destination base;
	uint8_t buf[64 * 1024];
};

struct ftfb_flight {
	struct ftfb_flight_opts o;
	struct ftfb_fring ring;
	/* the tracker: every event that leaves the window, translated into
	 * nothing, so its task table and open calls are the window's start */
	struct null_dest null;
	struct ftf_writer tw;
	struct ftfb_translator *tracker;
	bool tracker_ok;
	struct ftfb_triggers *trig;
	/* -g: every stack the kernel sent, as it came: a window's samples
	 * may name a stack whose ips came before the window */
	struct ftfb_stackstore *stack_store;
	struct ftfb_pycodes *pycodes; /* -g: Python code objects' strings */
	uint64_t drops[FTFB_EV_KIND_MAX];
	uint64_t by_kind[FTFB_EV_KIND_MAX];
	uint64_t events;
	uint64_t due_ns; /* a snapshot is due at this time (0: none) */
	char due_why[160];
	unsigned taken;    /* snapshots started */
	uint64_t not_written; /* asked for past --max-snapshots */
	uint64_t merged;      /* triggers that fell into a pending one */
	bool said_full;       /* -v: the window's limit was reported */
	struct snapshot *snaps;
};

static int null_next_buf(struct ftf_destination *d, size_t used,
			 size_t ensure, uint8_t **buf, size_t *len)
{
	struct null_dest *n = (struct null_dest *)d;

	(void)used;
	if (ensure > sizeof(n->buf))
		return -E2BIG;
	*buf = n->buf;
	*len = sizeof(n->buf);
	return 0;
}

static int null_close(struct ftf_destination *d, size_t used)
{
	(void)d;
	(void)used;
	return 0;
}

static const char *null_errmsg(struct ftf_destination *d)
{
	(void)d;
	return "";
}

/* ---- the tracker ---- */

static void feed_tracker(void *ctx, const struct ftfb_fchunk *c);

static int tracker_event(void *ctx, const void *data, size_t size)
{
	struct ftfb_flight *f = ctx;

	if (f->tracker_ok && ftfb_translator_event(f->tracker, data, size))
		f->tracker_ok = false; /* (only out of memory can fail) */
	return 0;
}

static void feed_tracker(void *ctx, const struct ftfb_fchunk *c)
{
	ftfb_fchunk_walk(c, tracker_event, ctx);
}

/* A snapshot's lookup: the tracker's table first (it knows tasks that
 * have left /proc since), then /proc. */
static int tracker_lookup(void *ctx, uint32_t tid, struct ftfb_task_info *ti)
{
	struct ftfb_flight *f = ctx;
	struct ftfb_task *k = ftfb_pt_find(ftfb_translator_tasks(f->tracker), tid);

	if (k && k->comm[0]) {
		memset(ti, 0, sizeof(*ti));
		ti->tid = k->tid;
		ti->tgid = k->tgid;
		snprintf(ti->comm, sizeof(ti->comm), "%s", k->comm);
		snprintf(ti->process_name, sizeof(ti->process_name), "%s",
			 k->pname);
		return 0;
	}
	return f->o.tr.lookup ? f->o.tr.lookup(f->o.tr.lookup_ctx, tid, ti)
			      : -ENOENT;
}

int ftfb_flight_open(struct ftfb_flight **out,
		     const struct ftfb_flight_opts *o, char *err,
		     size_t errlen)
{
	struct ftf_writer_options wo = { .provider_name = "ftf-bpf",
					 .num_temp_strs = -1,
					 .clock = o->clock };
	struct ftfb_translator_opts to = o->tr;
	struct ftfb_flight *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f || !(f->snaps = calloc(MAX_RECORDED_SNAPSHOTS,
				      sizeof(*f->snaps)))) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->o = *o;
	ftfb_fring_init(&f->ring, o->window_ns, o->max_bytes, feed_tracker, f);
	f->null.base.next_buf = null_next_buf;
	f->null.base.close = null_close;
	f->null.base.errmsg = null_errmsg;
	to.w = &f->tw; /* (the lookup the session gives: /proc) */
	if (ftf_writer_init(&f->tw, &f->null.base, &wo) ||
	    ftfb_translator_new(&f->tracker, &to)) {
		snprintf(err, errlen, "cannot set up the flight recorder: %s",
			 ftf_writer_error(&f->tw));
		ftfb_flight_close(f);
		return -ENOMEM;
	}
	f->tracker_ok = true;
	if (o->stacks && (ftfb_stackstore_new(&f->stack_store) ||
			  ftfb_pycodes_new(&f->pycodes))) {
		snprintf(err, errlen, "out of memory");
		ftfb_flight_close(f);
		return -ENOMEM;
	}
	f->trig = ftfb_triggers_new(o->trigger_ns, o->tr.nfuncs);
	if (o->trigger_ns && !f->trig) {
		snprintf(err, errlen, "out of memory");
		ftfb_flight_close(f);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

void ftfb_flight_close(struct ftfb_flight *f)
{
	if (!f)
		return;
	ftfb_fring_free(&f->ring);
	ftfb_translator_destroy(f->tracker);
	ftf_writer_close(&f->tw);
	ftfb_triggers_free(f->trig);
	ftfb_stackstore_free(f->stack_store);
	ftfb_pycodes_free(f->pycodes);
	free(f->snaps);
	free(f);
}

int ftfb_flight_add_task(struct ftfb_flight *f,
			 const struct ftfb_task_info *ti)
{
	return ftfb_translator_add_task(f->tracker, ti);
}

void ftfb_flight_set_drops(struct ftfb_flight *f,
			   const uint64_t drops[FTFB_EV_KIND_MAX])
{
	memcpy(f->drops, drops, sizeof(f->drops));
}

static void ask(struct ftfb_flight *f, uint64_t at_ns, const char *why)
{
	if (f->due_ns) {
		f->merged++;
		return;
	}
	if (f->taken >= f->o.max_snapshots) {
		f->not_written++;
		return;
	}
	f->due_ns = at_ns ? at_ns : 1;
	snprintf(f->due_why, sizeof(f->due_why), "%s", why);
}

void ftfb_flight_request(struct ftfb_flight *f, const char *why)
{
	ask(f, 1, why);
}

/* -v: once the window is full, which limit decides it. */
static void say_full(struct ftfb_flight *f)
{
	const struct ftfb_fring *r = &f->ring;

	if (!r->evicted_by_age && !r->evicted_by_size)
		return;
	f->said_full = true;
	if (r->evicted_by_size)
		fprintf(stderr,
			"ftf-bpf: flight recorder: the window is full at %.1f MB, --flight-size decides it: it holds %.3f s (less than -F %.3f s)\n",
			(double)ftfb_fring_bytes(r) / 1e6,
			(double)(r->newest_ts - r->oldest->first_ts) / 1e9,
			(double)f->o.window_ns / 1e9);
	else
		fprintf(stderr,
			"ftf-bpf: flight recorder: the window is full at %.3f s, -F decides it (%.1f MB held, --flight-size %.1f MB)\n",
			(double)f->o.window_ns / 1e9,
			(double)ftfb_fring_bytes(r) / 1e6,
			(double)f->o.max_bytes / 1e6);
}

/* -g: the ips a stack sample carries (the first of its stacks'), kept
 * for the snapshots. */
static int keep_stacks(struct ftfb_flight *f, const void *data, size_t size)
{
	const uint64_t *ips = (const void *)((const char *)data +
					      sizeof(struct ftfb_stack));
	struct ftfb_stack e;
	int err;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (!ftfb_stack_event_ok(&e, size, ips))
		return 0;
	err = ftfb_stackstore_add(f->stack_store, e.uhash, ips, e.nu);
	if (!err)
		err = ftfb_stackstore_add(f->stack_store, e.khash, ips + e.nu,
					  e.nk);
	if (!err && e.py.n)
		err = ftfb_stackstore_add(f->stack_store, e.py.hash,
					  ips + e.nu + e.nk, e.py.n);
	/* Symbols are looked up when a snapshot is written, when the
	 * process may be gone (the snapshot at the stop of a command that
	 * exited): read its maps and files now, with its first stacks. */
	for (uint32_t i = 0; i < e.nu; i++) {
		struct ftfb_frame_sym fs;

		f->o.stacks->symbolize(f->o.stacks->symbolize_ctx, e.hdr.tgid,
				       ips[i], false, i == 0, &fs);
	}
	return err;
}

int ftfb_flight_event(struct ftfb_flight *f, const void *data, size_t size)
{
	const struct ftfb_hdr *h = data;
	char why[160];
	int err;

	f->events++;
	if (h->kind < FTFB_EV_KIND_MAX)
		f->by_kind[h->kind]++;
	/* a code object's strings are sent once: kept for every window */
	if (f->pycodes && h->kind == FTFB_EV_PYCODE &&
	    size >= sizeof(struct ftfb_pycode)) {
		struct ftfb_pycode pc;

		memcpy(&pc, data, sizeof(pc));
		if ((err = ftfb_pycodes_add(f->pycodes, &pc)))
			return err;
	}
	if (f->stack_store && (h->kind == FTFB_EV_STACK_ON ||
			       h->kind == FTFB_EV_STACK_OFF ||
			       h->kind == FTFB_EV_STACK_WAKER) &&
	    (err = keep_stacks(f, data, size)))
		return err;
	/* an exec: the process's maps are another image's from now on (its
	 * exit keeps them: a snapshot may need them after it) */
	if (f->stack_store && h->kind == FTFB_EV_EXEC && f->o.stacks->forget)
		f->o.stacks->forget(f->o.stacks->symbolize_ctx, h->tgid,
				    h->ts);
	err = ftfb_fring_append(&f->ring, data, size, f->drops);
	if (err)
		return err;
	if (f->o.verbose && !f->said_full)
		say_full(f);
	if (f->trig && ftfb_triggers_event(f->trig, data, size, why,
					   sizeof(why), f->o.tr.funcs))
		ask(f, h->ts + f->o.post_ns, why);
	return 0;
}

/* ---- snapshots ---- */

void ftfb_flight_snapshot_path(const char *output, unsigned n, char *buf,
			       size_t len)
{
	size_t ol = strlen(output);

	if (ol > 4 && !strcmp(output + ol - 4, ".fxt"))
		snprintf(buf, len, "%.*s-%u.fxt", (int)(ol - 4), output, n);
	else if (ol > 7 && !strcmp(output + ol - 7, ".fxt.gz"))
		snprintf(buf, len, "%.*s-%u.fxt.gz", (int)(ol - 7), output, n);
	else if (ol > 3 && !strcmp(output + ol - 3, ".gz"))
		snprintf(buf, len, "%.*s-%u.gz", (int)(ol - 3), output, n);
	else
		snprintf(buf, len, "%s-%u", output, n);
}

struct window_walk {
	struct ftfb_flight *f;
	struct ftfb_translator *t;
	uint64_t start;
	bool before; /* feed the events before start (to the tracker) */
	uint64_t n;  /* events fed */
};

static int window_event(void *ctx, const void *data, size_t size)
{
	struct window_walk *w = ctx;
	const struct ftfb_hdr *h = data;

	if ((h->ts < w->start) != w->before)
		return 0;
	w->n++;
	if (w->before)
		return tracker_event(w->f, data, size);
	return ftfb_translator_event(w->t, data, size);
}

static int walk_ring(struct ftfb_flight *f, struct window_walk *w)
{
	for (const struct ftfb_fchunk *c = f->ring.oldest; c; c = c->next) {
		int err = ftfb_fchunk_walk(c, window_event, w);

		if (err)
			return err;
	}
	return 0;
}

struct open_call {
	uint32_t tid, tgid, cookie;
	uint64_t sp;
};

struct open_calls {
	struct open_call *v;
	size_t n, cap;
	bool oom;
};

static void collect_open(struct ftfb_task *k, void *ctx)
{
	struct open_calls *oc = ctx;

	if (k->exited)
		return;
	for (uint32_t i = 0; i < k->depth; i++) {
		if (oc->n == oc->cap) {
			size_t cap = oc->cap ? oc->cap * 2 : 64;
			struct open_call *v = realloc(oc->v, cap * sizeof(*v));

			if (!v) {
				oc->oom = true;
				return;
			}
			oc->v = v;
			oc->cap = cap;
		}
		oc->v[oc->n++] = (struct open_call){ k->tid, k->tgid,
						     k->stack[i].cookie,
						     k->stack[i].sp };
	}
}

/* The calls open at the window's start, begun at it (outermost first,
 * as the tracker's stacks hold them). */
static int open_inherited_calls(struct ftfb_flight *f,
				struct ftfb_translator *t, uint64_t start)
{
	struct open_calls oc = { 0 };
	int err = 0;

	ftfb_pt_for_each(ftfb_translator_tasks(f->tracker), collect_open, &oc);
	for (size_t i = 0; !err && i < oc.n; i++) {
		struct ftfb_uentry e;

		memset(&e, 0, sizeof(e));
		e.hdr.kind = FTFB_EV_UENTRY;
		e.hdr.ts = start;
		e.hdr.tid = oc.v[i].tid;
		e.hdr.tgid = oc.v[i].tgid;
		e.cookie = oc.v[i].cookie;
		e.nargs = FTFB_UENTRY_BEFORE_WINDOW;
		e.sp = oc.v[i].sp;
		err = ftfb_translator_event(t, &e, sizeof(e));
	}
	free(oc.v);
	return err ? err : oc.oom ? -ENOMEM : 0;
}

static uint64_t window_start(const struct ftfb_flight *f, uint64_t end)
{
	uint64_t start = end > f->o.window_ns ? end - f->o.window_ns : 0;

	if (f->ring.oldest && f->ring.oldest->first_ts > start)
		start = f->ring.oldest->first_ts;
	return start;
}

/* The drops inside the window: now minus when its oldest chunk began. */
static void window_drops(const struct ftfb_flight *f,
			 uint64_t out[FTFB_EV_KIND_MAX])
{
	for (int k = 0; k < FTFB_EV_KIND_MAX; k++)
		out[k] = f->drops[k] - (f->ring.oldest
					? f->ring.oldest->drops_before[k]
					: 0);
}

/* The window from start to end into w; *n: how many events it holds. */
static int write_window(struct ftfb_flight *f, struct ftf_writer *w,
			uint64_t start, uint64_t end, uint64_t *n)
{
	struct ftfb_translator_opts to = f->o.tr;
	struct ftfb_translator *t;
	struct window_walk ww = {f, NULL, start, true, 0};
	uint64_t drops[FTFB_EV_KIND_MAX];
	int err;

	walk_ring(f, &ww); /* the tracker reaches the window's start */
	to.w = w;
	to.lookup = tracker_lookup;
	to.lookup_ctx = f;
	to.stacks = NULL;
	if (f->o.stacks) {
		struct ftfb_stackprof_opts so = *f->o.stacks;

		so.w = w;
		so.store = f->stack_store;
		so.pycodes = f->pycodes;
		so.forget = NULL; /* the maps were read while recording */
		if ((err = ftfb_stackprof_new(&to.stacks, &so)))
			return err;
	}
	err = ftfb_translator_new(&t, &to);
	if (err) {
		ftfb_stackprof_free(to.stacks);
		return err;
	}
	err = open_inherited_calls(f, t, start);
	if (!err)
		err = ftfb_translator_usdt_inherit(f->tracker, t, start);
	ww.t = t;
	ww.before = false;
	ww.n = 0;
	if (!err)
		err = walk_ring(f, &ww);
	*n = ww.n;
	window_drops(f, drops);
	if (!err)
		err = ftfb_translator_drops(t, end, drops);
	if (!err)
		err = ftfb_translator_finish(t, end);
	ftfb_translator_destroy(t);
	ftfb_stackprof_free(to.stacks);
	return err;
}

/* Where the trace's time starts for the lines that say where a window
 * is: the start, or the first event if earlier (the scheduling programs
 * record while the others are still attaching: with -g for 0.4 s, which
 * put a window's start at -0.432 s). */
static uint64_t trace_origin(const struct ftfb_flight *f)
{
	uint64_t first = f->ring.first_ts;

	return first && first < f->o.start_ns ? first : f->o.start_ns;
}

/* Seconds from the trace's start to t, signed (a window that has not
 * filled yet would reach back before it). */
static double since(uint64_t t, uint64_t start)
{
	return (double)(int64_t)(t - start) / 1e9;
}

/* The line that says what a snapshot written holds: its window, or
 * that it holds nothing (never a window it does not contain). */
static void say_written(const struct ftfb_flight *f, const struct snapshot *sn,
			uint64_t n)
{
	double from = since(sn->whole_from, trace_origin(f));
	double to = since(sn->t1, trace_origin(f));

	if (f->o.quiet)
		return;
	if (!n)
		fprintf(stderr,
			"ftf-bpf: snapshot %s: empty, no event recorded from "
			"%.3f s to %.3f s of the trace: %s\n",
			sn->path, from, to, sn->why);
	else
		fprintf(stderr,
			"ftf-bpf: snapshot %s: %.3f s to %.3f s of the trace "
			"(%.3f s, %llu events): %s\n",
			sn->path, from, to,
			(double)(sn->t1 - sn->whole_from) / 1e9,
			(unsigned long long)n, sn->why);
}

/* Writes snapshot sn; 0 or -errno with one line printed. A snapshot
 * whose writing failed (a full disk) is kept, as the trace is, with the
 * whole records written before the error, and the line says so. */
static int write_snapshot(struct ftfb_flight *f, struct snapshot *sn)
{
	struct ftf_writer_options wo = {.provider_name = "ftf-bpf",
					.num_temp_strs = -1,
					.clock = f->o.clock};
	struct ftfb_output out;
	struct ftf_writer w;
	char err[PATH_MAX + 128];
	uint64_t n = 0;
	int r, c;

	/* (gzip on this thread: a snapshot is written by a forked child) */
	r = ftfb_output_open(&out, sn->path, f->o.compress, false, err,
			     sizeof(err));
	if (r) {
		fprintf(stderr, "ftf-bpf: snapshot: %s\n", err);
		return r;
	}
	r = ftf_writer_init(&w, ftfb_output_dest(&out), &wo);
	if (!r)
		r = write_window(f, &w, sn->t0, sn->t1, &n);
	if (ftf_writer_close(&w) && !r)
		r = -EIO;
	/* (one with nothing in it is not a trace: removed) */
	c = r && !ftfb_output_file_bytes(&out)
		    ? -ENOSPC
		    : ftfb_output_commit(&out, err, sizeof(err));
	ftfb_output_discard(&out); /* (one that could not be put in place) */
	if (r)
		fprintf(stderr, "ftf-bpf: writing snapshot %s failed: %s; %s\n",
			sn->path, ftf_writer_error(&w),
			c ? "it was removed"
			  : "it holds the whole records written before the error");
	else if (c)
		fprintf(stderr, "ftf-bpf: snapshot: %s\n", err);
	if (!r && !c)
		say_written(f, sn, n);
	return r ? r : c ? -EIO : 0;
}

static struct snapshot *next_snapshot(struct ftfb_flight *f, uint64_t end,
				      const char *why)
{
	struct snapshot *sn;

	if (f->taken >= f->o.max_snapshots ||
	    f->taken >= MAX_RECORDED_SNAPSHOTS)
		return NULL;
	sn = &f->snaps[f->taken++];
	ftfb_flight_snapshot_path(f->o.output, f->taken, sn->path,
				  sizeof(sn->path));
	snprintf(sn->why, sizeof(sn->why), "%.*s", (int)sizeof(sn->why) - 1,
		 why);
	sn->t1 = ftfb_fring_end(&f->ring, end); /* (a reader behind: earlier) */
	sn->t0 = window_start(f, sn->t1);
	sn->whole_from = f->ring.oldest && f->ring.oldest->since_ts > sn->t0
				 ? f->ring.oldest->since_ts
				 : sn->t0;
	return sn;
}

/* A child writes it from a copy of this instant's memory, so recording
 * goes on. Ctrl-C reaches the child too: it ignores it and finishes its
 * file, which the parent waits for at the stop. */
static void start_snapshot(struct ftfb_flight *f, uint64_t now)
{
	struct snapshot *sn = next_snapshot(f, now, f->due_why);
	pid_t pid;

	f->due_ns = 0;
	if (!sn) {
		f->not_written++;
		return;
	}
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		prctl(PR_SET_NAME, "ftf-bpf-snap", 0, 0, 0);
		_exit(write_snapshot(f, sn) ? 1 : 0);
	}
	if (pid < 0) {
		/* (written here, it would take the tracker past the window's
		 * start while the window still holds those events) */
		fprintf(stderr, "ftf-bpf: cannot fork to write snapshot %s: %s\n",
			sn->path, strerror(errno));
		return;
	}
	sn->pid = pid;
}

static void collect(struct ftfb_flight *f, bool wait)
{
	for (unsigned i = 0; i < f->taken; i++) {
		struct snapshot *sn = &f->snaps[i];
		int st;
		pid_t r;

		if (!sn->pid)
			continue;
		do
			r = waitpid(sn->pid, &st, wait ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			continue;
		sn->ok = r == sn->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		sn->pid = 0;
	}
}

void ftfb_flight_tick(struct ftfb_flight *f, uint64_t now_ns)
{
	if (f->due_ns && now_ns >= f->due_ns)
		start_snapshot(f, now_ns);
	collect(f, false);
	/* (after a snapshot is started: a window that ends now keeps all
	 * these chunks would lose) */
	ftfb_fring_expire(&f->ring, now_ns);
}

int ftfb_flight_finish(struct ftfb_flight *f, uint64_t now_ns,
		       const char *why)
{
	struct snapshot *sn;
	char reason[400];

	collect(f, true);
	if (f->due_ns) {
		/* a trigger's --post cut short by the stop: this snapshot
		 * covers it */
		snprintf(reason, sizeof(reason), "%.160s (at the stop: %.160s)",
			 f->due_why, why);
		f->due_ns = 0;
	} else {
		snprintf(reason, sizeof(reason), "stop (%.160s)", why);
	}
	sn = next_snapshot(f, now_ns, reason);
	if (!sn)
		f->not_written++;
	else
		sn->ok = write_snapshot(f, sn) == 0;
	for (unsigned i = 0; i < f->taken; i++)
		if (!f->snaps[i].ok) /* (an earlier one, refused or failed) */
			return -EIO;
	return 0;
}

const uint64_t *ftfb_flight_by_kind(const struct ftfb_flight *f)
{
	return f->by_kind;
}

uint64_t ftfb_flight_events(const struct ftfb_flight *f)
{
	return f->events;
}

size_t ftfb_flight_held_bytes(const struct ftfb_flight *f)
{
	return ftfb_fring_bytes(&f->ring);
}

void ftfb_flight_summary(const struct ftfb_flight *f, FILE *out)
{
	const struct ftfb_fring *r = &f->ring;

	fprintf(out,
		"  flight recorder: window %.3f s or %.1f MB, whichever is reached first; %s; %.1f MB held at the end for %.1f MB of events\n",
		(double)f->o.window_ns / 1e9, (double)f->o.max_bytes / 1e6,
		r->evicted_by_size ? "the size limit decided the window (raise --flight-size for the whole duration)"
		: r->evicted_by_age ? "the duration decided the window"
				    : "the window never filled",
		(double)ftfb_fring_bytes(r) / 1e6,
		(double)ftfb_fring_raw_bytes(r) / 1e6);
	for (unsigned i = 0; i < f->taken; i++)
		fprintf(out, "  snapshot %s%s: %s\n", f->snaps[i].path,
			f->snaps[i].ok ? "" : " (FAILED)", f->snaps[i].why);
	if (!f->taken)
		fprintf(out, "  no snapshot written\n");
	if (f->not_written)
		fprintf(out,
			"  %llu more snapshots asked for and not written (--max-snapshots %u)\n",
			(unsigned long long)f->not_written,
			f->o.max_snapshots);
	if (f->merged)
		fprintf(out,
			"  %llu triggers came while a snapshot was pending and are in it\n",
			(unsigned long long)f->merged);
}
