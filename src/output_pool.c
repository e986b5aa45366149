// SPDX-License-Identifier: MIT
/*
 * output_pool.c - the trace file written (and gzipped) by threads of its
 * own (see output_pool.h).
 *
 * Slots go round: FREE -> (the writer's thread fills it) FILLING ->
 * FILLED (numbered in order) -> COMPRESSING (a worker; plain: nothing to
 * do) -> COMPRESSED ->
 * (written in number order by whichever worker holds the write turn) ->
 * FREE. One mutex and one condition variable guard the states; the
 * compressing and the writing happen outside the lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "output_pool.h"
#include "ftf/fd_write.h" /* libftf-internal */

#define DEFAULT_BUF_SIZE (1024 * 1024)
#define MAX_THREADS 8
#define GZIP_WINDOW_BITS (15 + 16) /* 32 KiB window, gzip wrapper */

enum slot_state { FREE, FILLING, FILLED, COMPRESSING, COMPRESSED };

struct slot {
	enum slot_state state;
	uint64_t seq;	/* order in the file (FILLED and after) */
	uint8_t *in;	/* whole records */
	size_t in_len, in_cap;
	uint8_t *out;	/* their gzip member */
	size_t out_len, out_cap;
};

struct ftfb_output_pool {
	struct ftf_destination base;
	int fd;
	int64_t base_offset; /* where the file began */
	bool gzip;
	int level;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* any state change */
	struct slot *slots;
	unsigned nslots;
	pthread_t threads[MAX_THREADS];
	unsigned nthreads;
	unsigned cur;	      /* the slot the writer fills */
	size_t carry;	      /* a cut record's bytes at its start */
	uint64_t next_seq;    /* the number of the next FILLED slot */
	uint64_t write_seq;   /* the number of the next member to write */
	bool writing;	      /* a worker holds the write turn */
	bool closing;	      /* no more slots will be filled */
	bool closed;
	int failed;	      /* sticky -errno: nothing more is written */
	char errmsg[256];
	uint64_t bytes_in, bytes_out; /* atomic */
};

static struct ftfb_output_pool *to_pool(struct ftf_destination *d)
{
	return (struct ftfb_output_pool *)d; /* base is the first member */
}

/* The first failure (under mu). */
static void fail_locked(struct ftfb_output_pool *p, int err, const char *fmt,
			...) __attribute__((format(printf, 3, 4)));

static void fail_locked(struct ftfb_output_pool *p, int err, const char *fmt,
			...)
{
	va_list ap;

	if (p->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
	p->failed = err;
	pthread_cond_broadcast(&p->cv);
}

/* ---- a worker: compress, then write in order ---- */

static int deflate_slot(z_stream *zs, struct slot *s)
{
	size_t bound = deflateBound(zs, s->in_len) + 64;
	int zr;

	if (s->out_cap < bound) {
		uint8_t *o = realloc(s->out, bound);

		if (!o)
			return -ENOMEM;
		s->out = o;
		s->out_cap = bound;
	}
	zs->next_in = s->in;
	zs->avail_in = (uInt)s->in_len;
	zs->next_out = s->out;
	zs->avail_out = (uInt)s->out_cap;
	zr = deflate(zs, Z_FINISH);
	s->out_len = s->out_cap - zs->avail_out;
	deflateReset(zs); /* the next member */
	return zr == Z_STREAM_END ? 0 : -EIO;
}

/* Writes one buffer (its gzip member, or its records); on failure cuts
 * the file back to the last whole member or record and says so in why
 * (called without mu: the write turn is this thread's). */
static int write_slot(struct ftfb_output_pool *p, const struct slot *s,
		      char *why, size_t whylen)
{
	uint64_t before = __atomic_load_n(&p->bytes_out, __ATOMIC_RELAXED);
	const uint8_t *data = p->gzip ? s->out : s->in;
	size_t len = p->gzip ? s->out_len : s->in_len, done = 0, whole;
	const char *cut = "";
	int err = ftf__write_all(p->fd, data, len, &done);

	if (!err) {
		__atomic_fetch_add(&p->bytes_out, len, __ATOMIC_RELAXED);
		__atomic_fetch_add(&p->bytes_in, s->in_len, __ATOMIC_RELAXED);
		return 0;
	}
	if (p->gzip) {
		if (done)
			cut = ftf__cut_back(
				p->fd, (off_t)(p->base_offset + (int64_t)before),
				", file cut back to the last whole gzip member");
		snprintf(why, whylen,
			 "trace file write failed: %s (%llu compressed bytes of whole records in the file%s)",
			 strerror(err), (unsigned long long)before, cut);
		return -err;
	}
	whole = ftf_whole_records_prefix(s->in, done);
	if (done != whole)
		cut = ftf__cut_back(
			p->fd,
			(off_t)(p->base_offset + (int64_t)(before + whole)),
			", file cut back to the last whole record");
	__atomic_fetch_add(&p->bytes_out, whole, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->bytes_in, whole, __ATOMIC_RELAXED);
	snprintf(why, whylen,
		 "trace file write failed: %s (%zu of %zu bytes written; %llu bytes of whole records in the file%s)",
		 strerror(err), done, len,
		 (unsigned long long)(before + whole), cut);
	return -err;
}

static struct slot *slot_numbered(struct ftfb_output_pool *p, uint64_t seq,
				  enum slot_state state)
{
	for (unsigned i = 0; i < p->nslots; i++)
		if (p->slots[i].state == state && p->slots[i].seq == seq)
			return &p->slots[i];
	return NULL;
}

/* With the write turn: the compressed members next in order, each
 * written outside the lock (after a failure, dropped). */
static void write_in_order(struct ftfb_output_pool *p)
{
	struct slot *s;

	p->writing = true;
	while ((s = slot_numbered(p, p->write_seq, COMPRESSED))) {
		char why[sizeof(p->errmsg)];
		int err = 0;

		if (!p->failed) {
			pthread_mutex_unlock(&p->mu);
			err = write_slot(p, s, why, sizeof(why));
			pthread_mutex_lock(&p->mu);
		}
		if (err)
			fail_locked(p, err, "%s", why);
		s->state = FREE;
		p->write_seq++;
		pthread_cond_broadcast(&p->cv);
	}
	p->writing = false;
}

/* The filled slot numbered lowest (NULL: none). */
static struct slot *oldest_filled(struct ftfb_output_pool *p)
{
	struct slot *best = NULL;

	for (unsigned i = 0; i < p->nslots; i++)
		if (p->slots[i].state == FILLED &&
		    (!best || p->slots[i].seq < best->seq))
			best = &p->slots[i];
	return best;
}

static void *worker(void *arg)
{
	struct ftfb_output_pool *p = arg;
	z_stream zs;
	bool zok;

	memset(&zs, 0, sizeof(zs));
	zok = !p->gzip || deflateInit2(&zs, p->level, Z_DEFLATED,
				       GZIP_WINDOW_BITS, 8,
				       Z_DEFAULT_STRATEGY) == Z_OK;
	pthread_mutex_lock(&p->mu);
	if (!zok)
		fail_locked(p, -ENOMEM, "zlib could not start a compressor");
	for (;;) {
		struct slot *s = oldest_filled(p);
		int err;

		if (!s) {
			if (p->closing && p->write_seq == p->next_seq)
				break;
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		/* (dropped after a failure; plain: nothing to compress) */
		bool skip = p->failed || !zok || !p->gzip;

		s->state = COMPRESSING;
		pthread_mutex_unlock(&p->mu);
		err = skip ? 0 : deflate_slot(&zs, s);
		pthread_mutex_lock(&p->mu);
		if (err)
			fail_locked(p, err, "zlib deflate failed: %s",
				    strerror(-err));
		s->state = COMPRESSED;
		if (!p->writing)
			write_in_order(p);
		pthread_cond_broadcast(&p->cv);
	}
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (zok && p->gzip)
		deflateEnd(&zs);
	return NULL;
}

/* ---- the writer's side ---- */

/* Room for at least `need` bytes (a cut record twice over) in s->in;
 * 0 or -ENOMEM. */
static int fit_slot(struct slot *s, size_t need)
{
	size_t cap = s->in_cap;
	uint8_t *in;

	if (need <= cap)
		return 0;
	while (cap < need)
		cap *= 2;
	in = realloc(s->in, cap);
	if (!in)
		return -ENOMEM;
	s->in = in;
	s->in_cap = cap;
	return 0;
}

/* Hands the writer's slot over with its `whole` bytes (under mu). */
static void hand_over(struct ftfb_output_pool *p, size_t whole)
{
	struct slot *s = &p->slots[p->cur];

	s->in_len = whole;
	s->seq = p->next_seq++;
	s->state = FILLED;
	pthread_cond_broadcast(&p->cv);
}

/* A free slot for the writer, now FILLING (under mu; waits for one): its
 * index, or -1 after a failure. */
static int take_free(struct ftfb_output_pool *p)
{
	for (;;) {
		if (p->failed)
			return -1;
		for (unsigned i = 0; i < p->nslots; i++) {
			if (p->slots[i].state == FREE) {
				p->slots[i].state = FILLING;
				return (int)i;
			}
		}
		pthread_cond_wait(&p->cv, &p->mu);
	}
}

static int pool_next_buf(struct ftf_destination *d, size_t used,
			 size_t ensure_capacity, uint8_t **buf, size_t *len)
{
	struct ftfb_output_pool *p = to_pool(d);
	struct slot *s = &p->slots[p->cur], *n;
	size_t total = p->carry + used;
	size_t whole = ftf_whole_records_prefix(s->in, total);
	size_t tail = total - whole;
	/* room for the cut record's tail twice over, and for what the
	 * writer asks (a record larger than a buffer) */
	size_t room = tail + ensure_capacity > 2 * tail ? tail + ensure_capacity
							: 2 * tail;
	int next, err;

	pthread_mutex_lock(&p->mu);
	if (whole) {
		hand_over(p, whole);
		next = take_free(p);
	} else {
		next = (int)p->cur; /* nothing whole yet: keep filling */
	}
	err = p->failed;
	pthread_mutex_unlock(&p->mu);
	if (err)
		return err;
	n = &p->slots[next];
	if (fit_slot(n, room)) {
		pthread_mutex_lock(&p->mu);
		fail_locked(p, -ENOMEM,
			    "cannot allocate buffers for a record of more than %zu bytes",
			    room / 2);
		pthread_mutex_unlock(&p->mu);
		return -ENOMEM;
	}
	/* (the slot just handed over may be written and free again by now,
	 * and come back: its tail is still there, after its records) */
	memmove(n->in, s->in + whole, tail);
	p->cur = (unsigned)next;
	p->carry = tail;
	*buf = n->in + tail;
	*len = n->in_cap - tail;
	return 0;
}

static void release(struct ftfb_output_pool *p)
{
	for (unsigned i = 0; p->slots && i < p->nslots; i++) {
		free(p->slots[i].in);
		free(p->slots[i].out);
	}
	free(p->slots);
	p->slots = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* The last buffer handed over (an empty member if the file has none: a
 * valid gzip), every member written, the threads ended. */
static int pool_close(struct ftf_destination *d, size_t used)
{
	struct ftfb_output_pool *p = to_pool(d);
	size_t total = p->slots ? p->carry + used : 0;
	size_t whole = total ? ftf_whole_records_prefix(p->slots[p->cur].in,
							total)
			     : 0;
	int err;

	pthread_mutex_lock(&p->mu);
	if (!p->failed && (whole || p->next_seq == 0))
		hand_over(p, whole);
	p->closing = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	p->nthreads = 0;
	err = p->failed;
	if (!err && whole != total) {
		snprintf(p->errmsg, sizeof(p->errmsg),
			 "dropped %zu trailing bytes that are not a whole record",
			 total - whole);
		err = p->failed = -EPROTO;
	}
	release(p);
	p->closed = true;
	return err;
}

static const char *pool_errmsg(struct ftf_destination *d)
{
	return to_pool(d)->errmsg;
}

/* ---- life ---- */

/* gzip: one per CPU but the first (1 to 8); plain: one writes */
static unsigned auto_threads(bool gzip)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;

	if (!gzip)
		return 1;
	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

static int alloc_slots(struct ftfb_output_pool *p, size_t buf_size)
{
	p->slots = calloc(p->nslots, sizeof(*p->slots));
	if (!p->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < p->nslots; i++) {
		p->slots[i].in = malloc(buf_size);
		if (!p->slots[i].in)
			return -ENOMEM;
		p->slots[i].in_cap = buf_size;
	}
	p->slots[0].state = FILLING;
	return 0;
}

static int start_threads(struct ftfb_output_pool *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		int err = pthread_create(&p->threads[i], NULL, worker, p);

		if (err)
			return -err;
		p->nthreads = i + 1;
	}
	return 0;
}

int ftfb_output_pool_new(struct ftfb_output_pool **out, int fd,
			 const struct ftfb_output_pool_opts *o, char *err,
			 size_t errlen)
{
	struct ftfb_output_pool *p = calloc(1, sizeof(*p));
	off_t off = lseek(fd, 0, SEEK_CUR);
	unsigned threads;
	int r;

	*out = NULL;
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	p->base.next_buf = pool_next_buf;
	p->base.close = pool_close;
	p->base.errmsg = pool_errmsg;
	p->fd = -1;
	p->base_offset = off < 0 ? 0 : (int64_t)off;
	p->gzip = o->gzip;
	p->level = o->level < 0 ? FTF_GZIP_DEFAULT_LEVEL : o->level;
	threads = o->threads ? o->threads : auto_threads(o->gzip);
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	/* (one per thread, the writer's, and one more so the writer need
	 * not wait while the oldest is written) */
	p->nslots = threads + 2;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	r = p->level > 9 ? -EINVAL
			 : alloc_slots(p, o->buf_size ? o->buf_size
						      : DEFAULT_BUF_SIZE);
	if (!r) {
		p->fd = fd;
		r = start_threads(p, threads);
	}
	if (r) {
		snprintf(err, errlen, "cannot set up the output's threads: %s",
			 strerror(-r));
		p->fd = -1; /* the caller keeps its fd */
		p->failed = r;
		pool_close(&p->base, 0);
		ftfb_output_pool_free(p);
		return r;
	}
	*out = p;
	return 0;
}

struct ftf_destination *ftfb_output_pool_dest(struct ftfb_output_pool *p)
{
	return &p->base;
}

uint64_t ftfb_output_pool_bytes_in(const struct ftfb_output_pool *p)
{
	return __atomic_load_n(&p->bytes_in, __ATOMIC_RELAXED);
}

uint64_t ftfb_output_pool_bytes_out(const struct ftfb_output_pool *p)
{
	return __atomic_load_n(&p->bytes_out, __ATOMIC_RELAXED);
}

void ftfb_output_pool_free(struct ftfb_output_pool *p)
{
	if (!p)
		return;
	if (!p->closed)
		pool_close(&p->base, 0);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
