// SPDX-License-Identifier: MIT
/*
 * loader_rings.c - the ring buffers and the per-cpu uprobe buffers: created,
 * mapped, prefaulted; their records read out to the poll's callback, the
 * FTFB_EV_BATCH records of the buffered sources (bpf/ubuf.h) split into
 * their events, and at stop the buffers' tails taken.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf_loader_priv.h"
#include "ring_reader.h"
#include "sched.skel.h"
#include "ubuf.h"

/* A compact USDT hit (bpf/ubuf.h: nargs, strmask and strbytes in sp)
 * to struct ftfb_usdt; returns its size (without the unused string room)
 * or -EBADMSG. */
static int expand_usdt(struct ftfb_usdt *u, const struct ftfb_ucompact *c,
		       const unsigned char *vals)
{
	uint32_t nargs = c->sp & 0xffff, sbytes = (c->sp >> 32) & 0xffff;

	if (nargs > FTFB_USDT_MAX_ARGS || sbytes > FTFB_USDT_STR_BYTES ||
	    sbytes % 8 || nargs + sbytes / 8 != c->nvals)
		return -EBADMSG;
	u->cookie = c->cookie;
	u->nargs = (uint16_t)nargs;
	u->strmask = (uint16_t)(c->sp >> 16);
	u->strbytes = sbytes;
	u->_pad = 0;
	memcpy(u->args, vals, 8u * nargs);
	memset(u->args + nargs, 0, 8u * (FTFB_USDT_MAX_ARGS - nargs));
	memcpy(u->str, vals + 8u * nargs, sbytes);
	return (int)(offsetof(struct ftfb_usdt, str) + sbytes);
}

/* The events of an FTFB_EV_BATCH record (compact, bpf/ubuf.h) to the
 * callback, one by one, as struct ftfb_uentry / ftfb_uret. -EBADMSG for
 * a malformed record. */
static int split_batch(struct ftfb_loader *l, const unsigned char *data,
		       size_t size)
{
	struct ftfb_batch b;
	size_t off, end;

	if (size < sizeof(b))
		return -EBADMSG;
	memcpy(&b, data, sizeof(b));
	if (b.len > size - sizeof(b))
		return -EBADMSG;
	end = sizeof(b) + b.len;
	for (off = sizeof(b); off < end;) {
		struct ftfb_ucompact c;
		union {
			struct ftfb_hdr h;
			struct ftfb_uentry e;
			struct ftfb_uret r;
			struct ftfb_senter se;
			struct ftfb_sexit sx;
			struct ftfb_usdt u;
		} ev;
		size_t es;
		int r;

		if (end - off < sizeof(c))
			return -EBADMSG;
		memcpy(&c, data + off, sizeof(c));
		off += sizeof(c);
		if (c.nvals > (c.kind == FTFB_EV_USDT ? FTFB_UCOMPACT_MAX / 8
						      : FTFB_MAX_ARGS) ||
		    end - off < 8u * c.nvals)
			return -EBADMSG;
		/* (no memset of the whole union: a USDT event is 300 bytes) */
		memset(&ev, 0, sizeof(ev.e));
		ev.h.ts = c.ts;
		ev.h.kind = c.kind;
		ev.h.cpu = b.hdr.cpu;
		ev.h.tid = b.hdr.tid;
		ev.h.tgid = b.hdr.tgid;
		if (c.kind == FTFB_EV_UENTRY) {
			ev.e.cookie = c.cookie;
			ev.e.sp = c.sp;
			ev.e.nargs = c.nvals;
			memcpy(ev.e.args, data + off, 8u * c.nvals);
			es = sizeof(ev.e);
		} else if (c.kind == FTFB_EV_URET && c.nvals == 1) {
			ev.r.cookie = c.cookie;
			ev.r.sp = c.sp;
			memcpy(&ev.r.ret, data + off, 8);
			es = sizeof(ev.r);
		} else if (c.kind == FTFB_EV_SENTER) {
			ev.se.nr = c.cookie;
			ev.se.nargs = c.nvals;
			memcpy(ev.se.args, data + off, 8u * c.nvals);
			es = sizeof(ev.se);
		} else if (c.kind == FTFB_EV_SEXIT && c.nvals == 1) {
			ev.sx.nr = c.cookie;
			memcpy(&ev.sx.ret, data + off, 8);
			es = sizeof(ev.sx);
		} else if (c.kind == FTFB_EV_USDT) {
			r = expand_usdt(&ev.u, &c, data + off);
			if (r < 0)
				return r;
			es = (size_t)r;
		} else {
			return -EBADMSG;
		}
		off += 8u * c.nvals;
		r = l->fn ? l->fn(l->fn_ctx, &ev, es) : 0;
		if (r)
			return r;
		l->delivered++;
	}
	return 0;
}

/* One ring (or iterator) record to the callback; non-zero stops. */
static int deliver(struct ftfb_loader *l, const void *data, size_t size)
{
	const struct ftfb_hdr *h = data;
	int r;

	if (size >= sizeof(*h) && h->kind == FTFB_EV_BATCH)
		return split_batch(l, data, size);
	r = l->fn ? l->fn(l->fn_ctx, data, size) : 0;
	if (!r)
		l->delivered++;
	return r;
}

/* A ring record, read by l->reader: its events to l->fn. Non-zero (fn's
 * return, kept in l->stop) stops the reading after it. */
int ftfb_ld_on_record(void *ctx, const void *data, size_t size)
{
	struct ftfb_loader *l = ctx;
	int r = deliver(l, data, size);

	if (r)
		l->stop = r;
	return r;
}

int ftfb_ld_create_rings(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	int outer = bpf_map__fd(l->sched->maps.rings);

	for (int i = 0; i < l->nr_rings; i++) {
		__u32 key = i;
		int err, fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ftfb_ring",
					     0, 0, l->opts.ring_bytes, NULL);

		if (fd < 0) {
			err = -errno;
			ftfb_ld_set_err(
				errmsg, errlen,
				"creating a %zu-byte ring buffer failed: %s",
				l->opts.ring_bytes, ftfb_ld_errstr(err));
			return err;
		}
		l->ring_fds[i] = fd;
		if (bpf_map_update_elem(outer, &key, &fd, BPF_ANY)) {
			err = -errno;
			ftfb_ld_set_err(errmsg, errlen,
					"storing ring buffer %d failed: %s", i,
					ftfb_ld_errstr(err));
			return err;
		}
		if (i == 0)
			err = ftfb_ring_reader_new(&l->reader, fd);
		else
			err = ftfb_ring_reader_add(l->reader, fd);
		if (err) {
			ftfb_ld_set_err(errmsg, errlen,
					"mapping ring buffer %d failed: %s", i,
					ftfb_ld_errstr(err));
			return err;
		}
	}
	return 0;
}

int ftfb_ld_map_ubufs(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	l->ubuf_stride = (bpf_map__value_size(l->sched->maps.ubufs) + 7) & ~7ul;
	if (l->ubuf_stride < sizeof(struct ftfb_ubuf)) {
		ftfb_ld_set_err(errmsg, errlen,
				"ubufs map: value of %zu bytes, "
				"expected %zu",
				l->ubuf_stride, sizeof(struct ftfb_ubuf));
		return -EINVAL;
	}
	l->ubufs_len = (l->ubuf_stride * l->ncpus + page - 1) & ~(page - 1);
	p = mmap(NULL, l->ubufs_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(l->sched->maps.ubufs), 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		ftfb_ld_set_err(errmsg, errlen,
				"mapping the uprobe buffers failed: %s",
				ftfb_ld_errstr(err));
		return err;
	}
	l->ubufs = p;
	return 0;
}

/* Write every ring page once (see ftfb_prefault in bpf/sched.bpf.c) and
 * consume the filler. Only a speed-up: failures are ignored. */
void ftfb_ld_prefault_rings(struct ftfb_loader *l)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);

	if (bpf_prog_test_run_opts(
		    bpf_program__fd(l->sched->progs.ftfb_prefault), &topts))
		return;
	l->fn = NULL;
	ftfb_ring_reader_drain(l->reader, ftfb_ld_on_record, l);
}

/* Take what is left in cpu's buffer (its uprobe links are gone) and
 * deliver it. The sched programs flush buffers too and hold them briefly
 * (busy): wait for them. -EBUSY if a buffer stays busy. */
int ftfb_ld_take_ubuf(struct ftfb_loader *l, int cpu)
{
	struct ftfb_ubuf *b = (void *)(l->ubufs + cpu * l->ubuf_stride);
	__u64 free_ = 0;
	int err = 0, tries = 0;

	while (!__atomic_compare_exchange_n(
		&b->busy, &free_, FTFB_UBUF_FLUSHING, false, __ATOMIC_ACQUIRE,
		__ATOMIC_RELAXED)) {
		free_ = 0;
		if (++tries > 1000)
			return -EBUSY;
		usleep(100);
	}
	if (b->batch.len) {
		b->batch.hdr.kind = FTFB_EV_BATCH;
		if (b->batch.len > FTFB_UBUF_BYTES)
			err = -EBADMSG;
		else
			err = split_batch(l, (const void *)&b->batch,
					  sizeof(b->batch) + b->batch.len);
		if (!err) {
			b->batch.len = 0;
			memset(b->n, 0, sizeof(b->n));
		}
	}
	__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
	return err;
}
