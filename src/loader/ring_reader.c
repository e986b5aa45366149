// SPDX-License-Identifier: MIT
/*
 * ring_reader.c - BPF ring buffers read by one thread (see ring_reader.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "monotime.h"
#include "ring_reader.h"

#define SETTLE_NS 1000000000ull

struct ftfb_ring_reader {
	struct ring_buffer *rb;
	ftfb_event_fn fn;
	void *ctx;
	int stop;	     /* fn's non-zero return */
	int delivered;
	uint64_t budget_end; /* CLOCK_MONOTONIC ns; 0: no limit */
	bool budget_hit;
	unsigned samples;
};

/* A record libbpf hands over is consumed whatever this returns: a
 * negative return only stops the consuming after it. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct ftfb_ring_reader *r = ctx;
	int err = r->fn(r->ctx, data, size);

	if (err) {
		r->stop = err;
		return -ECANCELED;
	}
	r->delivered++;
	if (r->budget_end && (++r->samples & 255) == 0 &&
	    ftfb_mono_ns() > r->budget_end) {
		r->budget_hit = true;
		return -ECANCELED;
	}
	return 0;
}

int ftfb_ring_reader_new(struct ftfb_ring_reader **out, int fd)
{
	struct ftfb_ring_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->rb = ring_buffer__new(fd, on_sample, r, NULL);
	if (!r->rb) {
		int err = errno ? -errno : -ENOMEM;

		free(r);
		return err;
	}
	*out = r;
	return 0;
}

int ftfb_ring_reader_add(struct ftfb_ring_reader *r, int fd)
{
	if (ring_buffer__add(r->rb, fd, on_sample, r))
		return errno ? -errno : -ENOMEM;
	return 0;
}

void ftfb_ring_reader_free(struct ftfb_ring_reader *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	free(r);
}

static void begin(struct ftfb_ring_reader *r, ftfb_event_fn fn, void *ctx,
		  uint64_t budget_ns)
{
	r->fn = fn;
	r->ctx = ctx;
	r->stop = 0;
	r->delivered = 0;
	r->budget_hit = false;
	r->budget_end = budget_ns ? ftfb_mono_ns() + budget_ns : 0;
}

int ftfb_ring_reader_poll(struct ftfb_ring_reader *r, int timeout_ms,
			  ftfb_event_fn fn, void *ctx)
{
	int n;

	begin(r, fn, ctx,
	      2 * (uint64_t)(timeout_ms > 0 ? timeout_ms : 100) * 1000000ull);
	n = ring_buffer__poll(r->rb, timeout_ms);
	/* (wakeups are batched: data may be there without one) */
	if (!r->stop && !r->budget_hit && n >= 0)
		n = ring_buffer__consume(r->rb);
	r->budget_end = 0;
	if (r->stop)
		return r->stop;
	if (n < 0 && !r->budget_hit)
		return n;
	return r->delivered;
}

/* Data a producer has reserved and not yet committed (libbpf stops at
 * such a record): a program that was running when recording stopped. */
static bool pending(const struct ftfb_ring_reader *r)
{
	struct ring *ring;

	for (unsigned i = 0; (ring = ring_buffer__ring(r->rb, i)); i++)
		if (ring__avail_data_size(ring) > 0)
			return true;
	return false;
}

int ftfb_ring_reader_drain(struct ftfb_ring_reader *r, ftfb_event_fn fn,
			   void *ctx)
{
	uint64_t deadline = ftfb_mono_ns() + SETTLE_NS;

	begin(r, fn, ctx, 0);
	for (;;) {
		int n = ring_buffer__consume(r->rb);

		if (r->stop)
			return r->stop;
		if (n < 0)
			return n;
		/* (a program running at the stop commits a moment later) */
		if (!pending(r) || ftfb_mono_ns() >= deadline)
			return 0;
		usleep(1000);
	}
}
