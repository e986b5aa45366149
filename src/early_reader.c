// SPDX-License-Identifier: MIT
/*
 * early_reader.c - the rings read from the first attach until the run
 * loop takes over (see early_reader.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf_loader.h"
#include "early_reader.h"
#include "reader_priority.h"

#define CHUNK_BYTES (1u << 20)
/* What start-up may keep in memory: past it the thread stops reading,
 * and the rings fill and count what they lose as every overflow is. */
#define MAX_KEPT_BYTES (256ull << 20)
#define POLL_MS 20
#define REC_HDR 8

struct chunk {
	struct chunk *next;
	size_t used, cap;
	/* records: a header of REC_HDR bytes (a uint32_t size), the bytes,
	 * padding to 8: a record's bytes start 8-aligned, as in the ring
	 * (a stack's addresses are read as uint64_t where they lie) */
	unsigned char data[];
};
_Static_assert(offsetof(struct chunk, data) % 8 == 0,
	       "a chunk's records start 8-aligned");

struct ftfb_early_reader {
	struct ftfb_loader *l;
	pthread_t thread;
	bool running;
	bool stop; /* atomic: set by the session's thread */
	/* The thread appends (publishing a chunk's used and next with a
	 * release), the session's thread hands over from the head,
	 * freeing a chunk once the thread has moved past it. */
	struct chunk *head, *tail;
	size_t pos;	/* in head: handed over so far */
	uint64_t bytes; /* allocated, ever */
	uint64_t kept, lost;
};

static size_t record_bytes(size_t size)
{
	return (REC_HDR + size + 7) & ~(size_t)7;
}

static struct chunk *new_chunk(struct ftfb_early_reader *r, size_t need)
{
	size_t cap = need > CHUNK_BYTES ? need : CHUNK_BYTES;
	struct chunk *c = malloc(sizeof(*c) + cap);

	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	r->bytes += cap;
	if (r->tail)
		__atomic_store_n(&r->tail->next, c, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&r->head, c, __ATOMIC_RELEASE);
	r->tail = c;
	return c;
}

/* Never refuses: libbpf has consumed the record already (a refusal
 * would lose it uncounted); without memory it is counted lost. */
static int keep(void *ctx, const void *data, size_t size)
{
	struct ftfb_early_reader *r = ctx;
	size_t need = record_bytes(size);
	struct chunk *c = r->tail;
	uint32_t sz = (uint32_t)size;

	if (!c || c->cap - c->used < need)
		c = new_chunk(r, need);
	if (!c) {
		r->lost++;
		return 0;
	}
	memcpy(c->data + c->used, &sz, sizeof(sz));
	memcpy(c->data + c->used + REC_HDR, data, size);
	__atomic_store_n(&c->used, c->used + need, __ATOMIC_RELEASE);
	r->kept++;
	return 0;
}

static void *serve(void *arg)
{
	struct ftfb_early_reader *r = arg;
	struct timespec nap = {0, POLL_MS * 1000000L};

	/* as the run loop's: on a loaded machine the default priority lets
	 * the rings fill before this thread runs */
	ftfb_reader_priority();
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (r->bytes >= MAX_KEPT_BYTES)
			nanosleep(&nap, NULL);
		else
			ftfb_loader_poll_raw(r->l, POLL_MS, keep, r);
	}
	return NULL;
}

int ftfb_early_reader_start(struct ftfb_early_reader **out,
			    struct ftfb_loader *l)
{
	struct ftfb_early_reader *r = calloc(1, sizeof(*r));
	sigset_t all, was;
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->l = l;
	/* every signal blocked: a stop signal goes to the session's thread,
	 * whose waits (a table build, a spawn) it ends */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	err = pthread_create(&r->thread, NULL, serve, r);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (err) {
		free(r);
		return -err;
	}
	r->running = true;
	*out = r;
	return 0;
}

static void end_thread(struct ftfb_early_reader *r)
{
	if (!r->running)
		return;
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	pthread_join(r->thread, NULL);
	r->running = false;
}

static void free_chunks(struct ftfb_early_reader *r)
{
	while (r->head) {
		struct chunk *c = r->head;

		r->head = c->next;
		free(c);
	}
	r->tail = NULL;
	r->pos = 0;
}

/* Hands over what the thread has published so far: 1 once caught up,
 * or fn's non-zero return. */
static int hand_over(struct ftfb_early_reader *r, ftfb_event_fn fn, void *ctx)
{
	struct chunk *c;

	while ((c = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))) {
		size_t used = __atomic_load_n(&c->used, __ATOMIC_ACQUIRE);
		struct chunk *next;

		while (r->pos < used) {
			uint32_t sz;
			int err;

			memcpy(&sz, c->data + r->pos, sizeof(sz));
			err = ftfb_loader_deliver(r->l,
						  c->data + r->pos + REC_HDR,
						  sz, fn, ctx);
			r->pos += record_bytes(sz);
			if (err)
				return err;
		}
		next = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
		if (!next)
			return 1;
		if (__atomic_load_n(&c->used, __ATOMIC_ACQUIRE) != r->pos)
			continue; /* (written to before it moved on) */
		r->head = next;	  /* the thread writes in next from now on */
		r->pos = 0;
		free(c);
	}
	return 1;
}

int ftfb_early_reader_stop(struct ftfb_early_reader *r, ftfb_event_fn fn,
			   void *ctx)
{
	int err;

	if (!r)
		return 0;
	/* The thread reads on while what it kept is handed over (the
	 * sink may take as long as the programs took to write it): it
	 * ends once the hand-over has caught up, and the little it read
	 * meanwhile follows. */
	err = hand_over(r, fn, ctx);
	end_thread(r);
	if (err == 1)
		err = hand_over(r, fn, ctx);
	free_chunks(r);
	return err == 1 ? 0 : err;
}

uint64_t ftfb_early_reader_kept(const struct ftfb_early_reader *r)
{
	return r ? r->kept : 0;
}

uint64_t ftfb_early_reader_lost(const struct ftfb_early_reader *r)
{
	return r ? r->lost : 0;
}

void ftfb_early_reader_free(struct ftfb_early_reader *r)
{
	if (!r)
		return;
	end_thread(r);
	free_chunks(r);
	free(r);
}
