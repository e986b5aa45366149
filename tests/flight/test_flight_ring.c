// SPDX-License-Identifier: MIT
/*
 * test_flight_ring - the flight recorder's window: events come back in
 * order, whole; a chunk goes when all its events are older than the
 * window, or when a new one would pass the memory cap; every evicted
 * event reaches the eviction callback exactly once, before it is gone;
 * a chunk keeps the drop counters of its start; the window is cut on
 * the events' own clock, so a reader behind keeps the newest events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "flight_ring.h"

#define MS 1000000ull

struct seen {
	uint64_t first_ts, last_ts, n, bad;
	uint64_t next_id; /* events carry ids 0, 1, 2 ... in hdr.tid */
};

static int count_event(void *ctx, const void *data, size_t size)
{
	struct seen *s = ctx;
	struct ftfb_switch e;

	if (size != sizeof(e)) {
		s->bad++;
		return 0;
	}
	memcpy(&e, data, sizeof(e));
	if (e.hdr.tid != s->next_id || e.next_tid != e.hdr.tid * 3)
		s->bad++;
	s->next_id = e.hdr.tid + 1;
	if (!s->n)
		s->first_ts = e.hdr.ts;
	s->last_ts = e.hdr.ts;
	s->n++;
	return 0;
}

static void on_evict(void *ctx, const struct ftfb_fchunk *c)
{
	ftfb_fchunk_walk(c, count_event, ctx);
}

static void append_n(struct ftfb_fring *r, uint64_t from, uint64_t n,
		     uint64_t ts0, uint64_t step, const uint64_t *drops)
{
	for (uint64_t i = from; i < from + n; i++) {
		struct ftfb_switch e;

		memset(&e, 0, sizeof(e));
		e.hdr.kind = FTFB_EV_SWITCH;
		e.hdr.ts = ts0 + (i - from) * step;
		e.hdr.tid = (uint32_t)i;
		e.next_tid = (uint32_t)i * 3;
		assert_int_equal(ftfb_fring_append(r, &e, sizeof(e), drops), 0);
	}
}

static void walk_all(struct ftfb_fring *r, struct seen *s)
{
	for (const struct ftfb_fchunk *c = r->oldest; c; c = c->next)
		ftfb_fchunk_walk(c, count_event, s);
}

static void keeps_the_last_window_by_age(void **state)
{
	uint64_t drops[FTFB_EV_KIND_MAX] = { 0 };
	struct seen evicted = { 0 }, kept = { 0 };
	struct ftfb_fring r;
	/* 200,000 events 10 us apart (2 s), window 500 ms, no size limit
	 * near: 64 MB */
	const uint64_t n = 200000, step = 10000, t0 = 1000 * MS;

	(void)state;
	assert_int_equal(ftfb_fring_init(&r, 500 * MS, 64u << 20, on_evict,
					 &evicted), 0);
	append_n(&r, 0, n, t0, step, drops);
	kept.next_id = evicted.n;
	walk_all(&r, &kept);
	/* nothing lost, nothing twice, in order */
	assert_int_equal(evicted.bad + kept.bad, 0);
	assert_int_equal(evicted.n + kept.n, n);
	assert_int_equal(kept.last_ts, t0 + (n - 1) * step);
	/* the window: at least 500 ms kept, at most a chunk more (a 256 KiB
	 * chunk holds 5,461 of these 48-byte records: 54.6 ms) */
	assert_true(kept.last_ts - kept.first_ts >= 500 * MS);
	assert_true(kept.last_ts - kept.first_ts <= 500 * MS + 55 * MS);
	assert_true(r.evicted_by_age > 0);
	assert_int_equal(r.evicted_by_size, 0);
	ftfb_fring_free(&r);
}

/* A burst, then nothing: the ring lets go of the chunks the window has
 * moved past (evicted in order, handed to the callback) and, empty, of
 * its spare: its bytes fall to 0. */
static void an_idle_window_gives_its_chunks_back(void **state)
{
	uint64_t drops[FTFB_EV_KIND_MAX] = {0};
	struct seen evicted = {0}, kept = {0};
	struct ftfb_fring r;
	/* 100,000 events 1 us apart (100 ms), window 500 ms */
	const uint64_t n = 100000, step = 1000, t0 = 1000 * MS;
	const uint64_t last = t0 + (n - 1) * step;

	(void)state;
	assert_int_equal(
		ftfb_fring_init(&r, 500 * MS, 64u << 20, on_evict, &evicted),
		0);
	append_n(&r, 0, n, t0, step, drops);
	/* the run loop's tick as it reads the last of them */
	ftfb_fring_expire(&r, last);
	/* 48-byte records, 4.8 MB in 256 KiB chunks: at least 18 */
	assert_true(ftfb_fring_bytes(&r) >= 18 * (256u << 10));
	/* a window ending at t0 + 500 ms holds all of it */
	ftfb_fring_expire(&r, t0 + 500 * MS);
	assert_int_equal(evicted.n, 0);
	/* at t0 + 550 ms the window starts at t0 + 50 ms: the chunks all
	 * older go, the rest stay (a chunk: 5,461 records, 5.5 ms) */
	ftfb_fring_expire(&r, t0 + 550 * MS);
	assert_true(evicted.n > 0 && evicted.n < n);
	assert_true(evicted.last_ts < t0 + 50 * MS);
	kept.next_id = evicted.n;
	walk_all(&r, &kept);
	assert_int_equal(evicted.n + kept.n, n);
	assert_true(kept.first_ts >= t0 + 50 * MS - 6 * MS);
	ftfb_fring_expire(&r, last + 501 * MS);
	assert_int_equal(evicted.bad, 0);
	assert_int_equal(evicted.n, n);
	assert_null(r.oldest);
	assert_int_equal(ftfb_fring_bytes(&r), 0);
	ftfb_fring_free(&r);
}

static void the_size_cap_decides_when_smaller(void **state)
{
	uint64_t drops[FTFB_EV_KIND_MAX] = { 0 };
	struct seen evicted = { 0 }, kept = { 0 };
	struct ftfb_fring r;

	(void)state;
	/* 4 MiB cap: 16 chunks of 256 KiB, far less than the 10 s window */
	assert_int_equal(ftfb_fring_init(&r, 10000 * MS, 4u << 20, on_evict,
					 &evicted), 0);
	append_n(&r, 0, 300000, MS, 1000, drops);
	kept.next_id = evicted.n;
	walk_all(&r, &kept);
	assert_int_equal(evicted.bad + kept.bad, 0);
	assert_int_equal(evicted.n + kept.n, 300000);
	assert_true(r.evicted_by_size > 0);
	assert_int_equal(r.evicted_by_age, 0);
	assert_true(r.nchunks <= 16);
	assert_true(ftfb_fring_bytes(&r) <= (4u << 20) + (1u << 20));
	/* 40 of every 48 bytes are the events' own */
	assert_int_equal(ftfb_fring_raw_bytes(&r), kept.n * 40);
	ftfb_fring_free(&r);
}

static void chunks_keep_the_drops_of_their_start(void **state)
{
	uint64_t drops[FTFB_EV_KIND_MAX] = { 0 };
	struct ftfb_fring r;

	(void)state;
	assert_int_equal(ftfb_fring_init(&r, 10000 * MS, 64u << 20, NULL,
					 NULL), 0);
	append_n(&r, 0, 10, MS, 1000, drops);
	drops[FTFB_EV_SWITCH] = 7;
	/* a new chunk starts only when one is full: fill the first */
	append_n(&r, 10, 30000, 2 * MS, 1000, drops);
	assert_non_null(r.oldest->next);
	assert_int_equal(r.oldest->drops_before[FTFB_EV_SWITCH], 0);
	assert_int_equal(r.newest->drops_before[FTFB_EV_SWITCH], 7);
	ftfb_fring_free(&r);
}

static int first_id(void *ctx, const void *data, size_t size)
{
	const struct ftfb_hdr *h = data;

	(void)size;
	*(uint64_t *)ctx = h->tid;
	return 1; /* the first event is enough */
}

/* A chunk knows from when everything that happened is in it or after
 * it: the newest time seen before it began (0 for the first), which an
 * event stamped earlier (an off-CPU sample carries the time its thread
 * blocked) does not move, while it moves first_ts. */
static void chunks_know_since_when_they_hold_everything(void **state)
{
	uint64_t drops[FTFB_EV_KIND_MAX] = { 0 };
	struct ftfb_fring r;
	uint64_t k = 0;
	struct ftfb_switch e;

	(void)state;
	assert_int_equal(ftfb_fring_init(&r, 10000 * MS, 64u << 20, NULL,
					 NULL), 0);
	/* event i at 1 ms + i us, until a second chunk began */
	append_n(&r, 0, 30000, MS, 1000, drops);
	assert_non_null(r.oldest->next);
	assert_int_equal(r.oldest->since_ts, 0);
	ftfb_fchunk_walk(r.oldest->next, first_id, &k);
	assert_true(k > 0);
	assert_int_equal(r.oldest->next->since_ts, MS + (k - 1) * 1000);
	/* one stamped 0.5 ms, arriving now, in the newest chunk */
	ftfb_fchunk_walk(r.newest, first_id, &k);
	memset(&e, 0, sizeof(e));
	e.hdr.kind = FTFB_EV_SWITCH;
	e.hdr.ts = MS / 2;
	assert_int_equal(ftfb_fring_append(&r, &e, sizeof(e), drops), 0);
	assert_int_equal(r.newest->first_ts, MS / 2);
	assert_int_equal(r.newest->since_ts, MS + (k - 1) * 1000);
	ftfb_fring_free(&r);
}

/* The reader 10 s behind the kernel (seen: -F 5s -a -g under heavy
 * churn), its ticks on the reading clock: the window is cut on the
 * events' own clock, so it keeps the newest 500 ms of events read, not
 * none (it used to expire every chunk as it was read), and ends at the
 * newest event. Only once no newer event comes does the window move on
 * with the reading clock, and an idle ring gives its chunks back. */
static void a_reader_far_behind_keeps_the_newest_window(void **state)
{
	uint64_t drops[FTFB_EV_KIND_MAX] = {0};
	struct seen evicted = {0}, kept = {0};
	struct ftfb_fring r;
	/* 200,000 events 10 us apart (2 s), read in batches of 1,000 (10 ms
	 * of events) each 10 s after they happened; window 500 ms */
	const uint64_t n = 200000, step = 10000, t0 = 1000 * MS;
	const uint64_t batch = 1000, behind = 10000 * MS;
	const uint64_t last = t0 + (n - 1) * step;

	(void)state;
	assert_int_equal(
		ftfb_fring_init(&r, 500 * MS, 64u << 20, on_evict, &evicted),
		0);
	for (uint64_t i = 0; i < n; i += batch) {
		append_n(&r, i, batch, t0 + i * step, step, drops);
		ftfb_fring_expire(&r, t0 + (i + batch - 1) * step + behind);
	}
	assert_int_equal(ftfb_fring_end(&r, last + behind), last);
	kept.next_id = evicted.n;
	walk_all(&r, &kept);
	assert_int_equal(evicted.bad + kept.bad, 0);
	assert_int_equal(evicted.n + kept.n, n);
	/* the newest 500 ms, whole: at most a chunk (54.6 ms) more */
	assert_int_equal(kept.last_ts, last);
	assert_true(kept.last_ts - kept.first_ts >= 500 * MS);
	assert_true(kept.last_ts - kept.first_ts <= 500 * MS + 55 * MS);
	/* then nothing new for 200 ms: the window ends 200 ms later */
	assert_int_equal(ftfb_fring_end(&r, last + behind + 200 * MS),
			 last + 200 * MS);
	ftfb_fring_expire(&r, last + behind + 200 * MS);
	assert_true(r.oldest &&
		    r.oldest->last_ts + 500 * MS >= last + 200 * MS);
	/* and 501 ms after the last event, none of it is in the window */
	ftfb_fring_expire(&r, last + behind + 501 * MS);
	assert_null(r.oldest);
	assert_int_equal(evicted.n, n);
	ftfb_fring_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_the_last_window_by_age),
		cmocka_unit_test(an_idle_window_gives_its_chunks_back),
		cmocka_unit_test(the_size_cap_decides_when_smaller),
		cmocka_unit_test(chunks_keep_the_drops_of_their_start),
		cmocka_unit_test(chunks_know_since_when_they_hold_everything),
		cmocka_unit_test(a_reader_far_behind_keeps_the_newest_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
