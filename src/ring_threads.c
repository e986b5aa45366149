// SPDX-License-Identifier: MIT
/*
 * ring_threads.c - the consumer threads of --rings N (see ring_threads.h).
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

#include "ring_threads.h"
#include "reader_priority.h"
#include "bpf_loader.h"
#include "monotime.h"
#include "ring_reader.h"

#define RING_THREAD_POLL_MS 100
#define COLLECT_EVERY_US 1000

struct ring_thread {
	struct ftfb_ring_threads *set;
	unsigned idx; /* the sink's shard; ring idx + 1 */
	struct ftfb_ring_reader *reader;
	pthread_t thread;
	bool started;
	uint64_t events; /* read by other threads: atomic */
	int err;	 /* the first failure (its own thread writes it) */
	bool done;	 /* atomic: it handed over its last records */
};

struct ftfb_ring_threads {
	struct ftfb_sink *sink;
	unsigned n;
	bool stop; /* atomic: the loader drained, read what is left */
	bool stopped;
	struct ring_thread t[];
};

static int on_ring_event(void *ctx, const void *data, size_t size)
{
	struct ring_thread *t = ctx;
	struct ftfb_sink *sink = t->set->sink;

	__atomic_fetch_add(&t->events, 1, __ATOMIC_RELAXED);
	return sink->ops->shard_event(sink, t->idx, data, size);
}

static void thread_failed(struct ring_thread *t, int err)
{
	if (!t->err)
		t->err = err;
}

static void *thread_main(void *arg)
{
	struct ring_thread *t = arg;
	struct ftfb_sink *sink = t->set->sink;
	char name[16];

	/* (top -H, perf and /proc show which ring a thread reads) */
	snprintf(name, sizeof(name), "ftf-bpf ring %u", t->idx + 1);
	pthread_setname_np(pthread_self(), name);
	ftfb_reader_priority(); /* (kept as it is without CAP_SYS_NICE) */

	while (!t->err && !__atomic_load_n(&t->set->stop, __ATOMIC_ACQUIRE)) {
		int r = ftfb_ring_reader_poll(t->reader, RING_THREAD_POLL_MS,
					      on_ring_event, t);

		if (r < 0 && r != -EINTR)
			thread_failed(t, r);
		sink->ops->shard_tick(sink, t->idx, ftfb_mono_ns());
	}
	/* recording has stopped: what the ring holds belongs to the trace */
	if (!t->err) {
		int r = ftfb_ring_reader_drain(t->reader, on_ring_event, t);

		if (r < 0)
			thread_failed(t, r);
	}
	sink->ops->shard_done(sink, t->idx);
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Signals go to the loop's thread (its stop conditions), never a ring thread's:
 * the threads start with every signal blocked. */
static int spawn(struct ring_thread *t)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&t->thread, NULL, thread_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->started = err == 0;
	return -err;
}

static int open_threads(struct ftfb_ring_threads *ls, const int *fds, char *err,
		      size_t errlen)
{
	struct ftfb_sink *sink = ls->sink;
	int r;

	if (sink->ops->shards_open(sink, ls->n, err, errlen))
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

int ftfb_ring_threads_start(struct ftfb_ring_threads **out, struct ftfb_loader *l,
		     struct ftfb_sink *sink, char *err, size_t errlen)
{
	int fds[FTFB_MAX_RINGS];
	struct ftfb_ring_threads *ls;
	int n;

	*out = NULL;
	if (!sink->ops->shards_open)
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
	return open_threads(ls, fds, err, errlen);
}

uint64_t ftfb_ring_threads_events(const struct ftfb_ring_threads *ls)
{
	uint64_t sum = 0;

	for (unsigned i = 0; ls && i < ls->n; i++)
		sum += __atomic_load_n(&ls->t[i].events, __ATOMIC_RELAXED);
	return sum;
}

static bool all_done(const struct ftfb_ring_threads *ls)
{
	for (unsigned i = 0; i < ls->n; i++)
		if (ls->t[i].started &&
		    !__atomic_load_n(&ls->t[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

int ftfb_ring_threads_stop(struct ftfb_ring_threads *ls, char *err, size_t errlen)
{
	struct ftfb_sink *sink;

	if (!ls || ls->stopped)
		return 0;
	sink = ls->sink;
	ls->stopped = true;
	__atomic_store_n(&ls->stop, true, __ATOMIC_RELEASE);
	/* A ring thread may wait for room in the relay: collect while they end.
	 * Each ends within its ring's drain (at most about a second). */
	while (!all_done(ls)) {
		sink->ops->shards_collect(sink);
		usleep(COLLECT_EVERY_US);
	}
	for (unsigned i = 0; i < ls->n; i++)
		if (ls->t[i].started)
			pthread_join(ls->t[i].thread, NULL);
	sink->ops->shards_collect(sink);
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

void ftfb_ring_threads_free(struct ftfb_ring_threads *ls)
{
	char err[256];

	if (!ls)
		return;
	ftfb_ring_threads_stop(ls, err, sizeof(err));
	for (unsigned i = 0; i < ls->n; i++)
		ftfb_ring_reader_free(ls->t[i].reader);
	free(ls);
}
