// SPDX-License-Identifier: MIT
/*
 * lanes.c - the consumer threads of --rings N (see lanes.h).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lanes.h"
#include "reader_priority.h"
#include "bpf_loader.h"
#include "monotime.h"
#include "ring_reader.h"

#define LANE_POLL_MS 100
#define COLLECT_EVERY_US 1000

struct lane_thread {
	struct ftfb_lanes *set;
	unsigned idx; /* the sink's lane; ring idx + 1 */
	struct ftfb_ring_reader *reader;
	pthread_t thread;
	bool started;
	uint64_t events; /* read by other threads: atomic */
	int err;	 /* the first failure (its own thread writes it) */
	bool done;	 /* atomic: it handed over its last records */
};

struct ftfb_lanes {
	struct ftfb_sink *sink;
	unsigned n;
	bool stop; /* atomic: the loader drained, read what is left */
	bool stopped;
	struct lane_thread t[];
};

static int on_lane_event(void *ctx, const void *data, size_t size)
{
	struct lane_thread *t = ctx;
	struct ftfb_sink *sink = t->set->sink;

	__atomic_fetch_add(&t->events, 1, __ATOMIC_RELAXED);
	return sink->ops->lane_event(sink, t->idx, data, size);
}

static void lane_failed(struct lane_thread *t, int err)
{
	if (!t->err)
		t->err = err;
}

static void *lane_main(void *arg)
{
	struct lane_thread *t = arg;
	struct ftfb_sink *sink = t->set->sink;
	char name[16];

	/* (top -H, perf and /proc show which ring a thread reads) */
	snprintf(name, sizeof(name), "ftf-bpf ring %u", t->idx + 1);
	pthread_setname_np(pthread_self(), name);
	ftfb_reader_priority(); /* (kept as it is without CAP_SYS_NICE) */

	while (!t->err && !__atomic_load_n(&t->set->stop, __ATOMIC_ACQUIRE)) {
		int r = ftfb_ring_reader_poll(t->reader, LANE_POLL_MS,
					      on_lane_event, t);

		if (r < 0 && r != -EINTR)
			lane_failed(t, r);
		sink->ops->lane_tick(sink, t->idx, ftfb_mono_ns());
	}
	/* recording has stopped: what the ring holds belongs to the trace */
	if (!t->err) {
		int r = ftfb_ring_reader_drain(t->reader, on_lane_event, t);

		if (r < 0)
			lane_failed(t, r);
	}
	sink->ops->lane_done(sink, t->idx);
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Signals go to the loop's thread (its stop conditions), never a lane's:
 * the threads start with every signal blocked. */
static int spawn(struct lane_thread *t)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->thread, NULL, lane_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->started = err == 0;
	return -err;
}

static int open_lanes(struct ftfb_lanes *ls, const int *fds, char *err,
		      size_t errlen)
{
	struct ftfb_sink *sink = ls->sink;
	int r;

	if (sink->ops->lanes_open(sink, ls->n, err, errlen))
		return -1;
	for (unsigned i = 0; i < ls->n; i++) {
		ls->t[i].set = ls;
		ls->t[i].idx = i;
		r = ftfb_ring_reader_new(&ls->t[i].reader, fds[i]);
		if (r) {
			snprintf(err, errlen, "mapping ring buffer %u failed: %s",
				 i + 1, strerror(-r));
			return -1;
		}
	}
	for (unsigned i = 0; i < ls->n; i++) {
		r = spawn(&ls->t[i]);
		if (r) {
			snprintf(err, errlen,
				 "cannot start the thread of ring buffer %u: %s",
				 i + 1, strerror(-r));
			return -1;
		}
	}
	return 0;
}

int ftfb_lanes_start(struct ftfb_lanes **out, struct ftfb_loader *l,
		     struct ftfb_sink *sink, char *err, size_t errlen)
{
	int fds[FTFB_MAX_RINGS];
	struct ftfb_lanes *ls;
	int n;

	*out = NULL;
	if (!sink->ops->lanes_open)
		return 0; /* the loop's thread reads every ring */
	n = ftfb_loader_split_rings(l, fds);
	if (n < 0) {
		snprintf(err, errlen, "mapping ring buffer 0 failed: %s",
			 strerror(-n));
		return -1;
	}
	if (n == 0)
		return 0;
	ls = calloc(1, sizeof(*ls) + (size_t)n * sizeof(ls->t[0]));
	if (!ls) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ls->sink = sink;
	ls->n = (unsigned)n;
	*out = ls;
	return open_lanes(ls, fds, err, errlen);
}

uint64_t ftfb_lanes_events(const struct ftfb_lanes *ls)
{
	uint64_t sum = 0;

	for (unsigned i = 0; ls && i < ls->n; i++)
		sum += __atomic_load_n(&ls->t[i].events, __ATOMIC_RELAXED);
	return sum;
}

static bool all_done(const struct ftfb_lanes *ls)
{
	for (unsigned i = 0; i < ls->n; i++)
		if (ls->t[i].started &&
		    !__atomic_load_n(&ls->t[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

int ftfb_lanes_stop(struct ftfb_lanes *ls, char *err, size_t errlen)
{
	struct ftfb_sink *sink;

	if (!ls || ls->stopped)
		return 0;
	sink = ls->sink;
	ls->stopped = true;
	__atomic_store_n(&ls->stop, true, __ATOMIC_RELEASE);
	/* A lane may wait for room in the relay: collect while they end.
	 * Each ends within its ring's drain (at most about a second). */
	while (!all_done(ls)) {
		sink->ops->lanes_collect(sink);
		usleep(COLLECT_EVERY_US);
	}
	for (unsigned i = 0; i < ls->n; i++)
		if (ls->t[i].started)
			pthread_join(ls->t[i].thread, NULL);
	sink->ops->lanes_collect(sink);
	for (unsigned i = 0; i < ls->n; i++) {
		if (ls->t[i].err) {
			snprintf(err, errlen,
				 "reading ring buffer %u failed: %s", i + 1,
				 strerror(-ls->t[i].err));
			return -1;
		}
	}
	return 0;
}

void ftfb_lanes_free(struct ftfb_lanes *ls)
{
	char err[256];

	if (!ls)
		return;
	ftfb_lanes_stop(ls, err, sizeof(err));
	for (unsigned i = 0; i < ls->n; i++)
		ftfb_ring_reader_free(ls->t[i].reader);
	free(ls);
}
