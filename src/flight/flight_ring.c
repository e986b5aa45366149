/* SPDX-License-Identifier: MIT */
/*
 * flight_ring.c - the chunk list of the flight recorder (flight_ring.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "flight_ring.h"

#define MAX_CHUNK_BYTES (256u << 10)
#define MIN_CHUNK_BYTES (64u << 10)
#define REC_HDR 8 /* u32 length, u32 zero */

static size_t rec_bytes(size_t size)
{
	return REC_HDR + ((size + 7) & ~(size_t)7);
}

int ftfb_fring_init(struct ftfb_fring *r, uint64_t window_ns,
		    size_t max_bytes, ftfb_fring_evict_fn evict, void *ctx)
{
	memset(r, 0, sizeof(*r));
	/* about 1/16 of the cap a chunk: eviction takes a small slice */
	r->chunk_bytes = max_bytes / 16;
	if (r->chunk_bytes > MAX_CHUNK_BYTES)
		r->chunk_bytes = MAX_CHUNK_BYTES;
	if (r->chunk_bytes < MIN_CHUNK_BYTES)
		r->chunk_bytes = MIN_CHUNK_BYTES;
	r->max_chunks = max_bytes / r->chunk_bytes;
	if (r->max_chunks < 2)
		r->max_chunks = 2;
	r->window_ns = window_ns;
	r->evict = evict;
	r->evict_ctx = ctx;
	return 0;
}

/* Chunks are mapped, not malloc'ed: a freed one goes back to the system
 * at once, where the C library keeps a burst's chunks in its heap (RSS at
 * the peak long after the window let go of them). */
static struct ftfb_fchunk *map_chunk(const struct ftfb_fring *r)
{
	void *p = mmap(NULL, sizeof(struct ftfb_fchunk) + r->chunk_bytes,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap_chunk(const struct ftfb_fring *r, struct ftfb_fchunk *c)
{
	if (c)
		munmap(c, sizeof(struct ftfb_fchunk) + r->chunk_bytes);
}

void ftfb_fring_free(struct ftfb_fring *r)
{
	struct ftfb_fchunk *c = r->oldest;

	while (c) {
		struct ftfb_fchunk *n = c->next;

		unmap_chunk(r, c);
		c = n;
	}
	unmap_chunk(r, r->spare);
	memset(r, 0, sizeof(*r));
}

/* Hands the oldest chunk to the callback and keeps it as the spare. */
static void evict_oldest(struct ftfb_fring *r)
{
	struct ftfb_fchunk *c = r->oldest;

	if (r->evict)
		r->evict(r->evict_ctx, c);
	r->oldest = c->next;
	if (!r->oldest)
		r->newest = NULL;
	r->nchunks--;
	if (r->spare)
		unmap_chunk(r, c);
	else
		r->spare = c;
}

static int new_chunk(struct ftfb_fring *r,
		     const uint64_t drops[FTFB_EV_KIND_MAX])
{
	struct ftfb_fchunk *c;

	if (r->nchunks >= r->max_chunks) {
		evict_oldest(r);
		r->evicted_by_size++;
	}
	c = r->spare;
	r->spare = NULL;
	if (!c) {
		c = map_chunk(r);
		if (!c)
			return -ENOMEM;
	}
	c->next = NULL;
	c->first_ts = 0;
	c->last_ts = 0;
	c->since_ts = r->newest_ts;
	c->used = 0;
	c->raw = 0;
	memcpy(c->drops_before, drops, sizeof(c->drops_before));
	if (r->newest)
		r->newest->next = c;
	else
		r->oldest = c;
	r->newest = c;
	r->nchunks++;
	return 0;
}

/* The chunks whose events are all older than the window go (never the
 * one being filled). */
static void evict_by_age(struct ftfb_fring *r)
{
	while (r->oldest && r->oldest != r->newest &&
	       r->oldest->last_ts + r->window_ns < r->newest_ts) {
		evict_oldest(r);
		r->evicted_by_age++;
	}
}

uint64_t ftfb_fring_end(const struct ftfb_fring *r, uint64_t now_ns)
{
	uint64_t end = r->newest_ts;

	if (r->seen_ts == r->newest_ts && now_ns > r->seen_at)
		end += now_ns - r->seen_at;
	return end < now_ns ? end : now_ns;
}

void ftfb_fring_expire(struct ftfb_fring *r, uint64_t now_ns)
{
	uint64_t end;

	if (r->seen_ts != r->newest_ts || !r->seen_at) {
		r->seen_ts = r->newest_ts;
		r->seen_at = now_ns;
	}
	end = ftfb_fring_end(r, now_ns);
	while (r->oldest && r->oldest->last_ts + r->window_ns < end) {
		evict_oldest(r);
		r->evicted_by_age++;
	}
	/* idle: the spare is not needed soon */
	if (!r->oldest) {
		unmap_chunk(r, r->spare);
		r->spare = NULL;
	}
}

int ftfb_fring_append(struct ftfb_fring *r, const void *data, size_t size,
		      const uint64_t drops[FTFB_EV_KIND_MAX])
{
	const struct ftfb_hdr *h = data;
	size_t need = rec_bytes(size);
	struct ftfb_fchunk *c = r->newest;
	uint32_t len = (uint32_t)size;
	int err;

	if (need > r->chunk_bytes || size < sizeof(*h)) {
		r->refused++;
		return 0;
	}
	if (!c || c->used + need > r->chunk_bytes) {
		err = new_chunk(r, drops);
		if (err)
			return err;
		c = r->newest;
	}
	memcpy(c->data + c->used, &len, sizeof(len));
	memset(c->data + c->used + sizeof(len), 0, REC_HDR - sizeof(len));
	memcpy(c->data + c->used + REC_HDR, data, size);
	c->used += need;
	c->raw += size;
	if (!c->first_ts || h->ts < c->first_ts)
		c->first_ts = h->ts;
	if (h->ts > c->last_ts)
		c->last_ts = h->ts;
	if (h->ts > r->newest_ts)
		r->newest_ts = h->ts;
	if (!r->first_ts || h->ts < r->first_ts)
		r->first_ts = h->ts;
	evict_by_age(r);
	return 0;
}

int ftfb_fchunk_walk(const struct ftfb_fchunk *c, ftfb_fring_event_fn fn,
		     void *ctx)
{
	size_t off = 0;

	while (off + REC_HDR <= c->used) {
		uint32_t len;
		int err;

		memcpy(&len, c->data + off, sizeof(len));
		err = fn(ctx, c->data + off + REC_HDR, len);
		if (err)
			return err;
		off += rec_bytes(len);
	}
	return 0;
}

size_t ftfb_fring_bytes(const struct ftfb_fring *r)
{
	return (r->nchunks + (r->spare ? 1 : 0)) * (sizeof(struct ftfb_fchunk) +
						    r->chunk_bytes);
}

size_t ftfb_fring_raw_bytes(const struct ftfb_fring *r)
{
	size_t n = 0;

	for (const struct ftfb_fchunk *c = r->oldest; c; c = c->next)
		n += c->raw;
	return n;
}
