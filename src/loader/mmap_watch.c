// SPDX-License-Identifier: MIT
/*
 * mmap_watch.c - every executable file mapped, from the kernel's
 * PERF_RECORD_MMAP2 (see mmap_watch.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mmap_watch.h"

struct ring {
	int fd;
	void *base; /* the control page, then the data pages */
};

struct ftfb_mmap_watch {
	struct ring *rings;
	int n;
	size_t page, data_size;
	uint64_t lost;
};

/* PERF_RECORD_MMAP2's body without build id (include/uapi/linux/
 * perf_event.h), then the path, then sample_id (TID, TIME). */
struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

/* sample_id_all with PERF_SAMPLE_TID | PERF_SAMPLE_TIME: pid, tid, time */
#define SAMPLE_ID_BYTES 16
/* the largest record read (a path of PATH_MAX): larger ones are skipped */
#define REC_MAX                                                                \
	(sizeof(struct perf_event_header) + sizeof(struct mmap2_body) + 4096 + \
	 SAMPLE_ID_BYTES + 8)

static int open_one(int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap2 = 1, /* (device and inode: the file's identity) */
		.comm = 1,
		.comm_exec = 1, /* (an exec's new image: its mappings follow) */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int ftfb_mmap_watch_open(struct ftfb_mmap_watch **out, int ncpus)
{
	struct ftfb_mmap_watch *w = calloc(1, sizeof(*w));
	int err = -ENODEV;

	*out = NULL;
	if (!w || ncpus <= 0 ||
	    !(w->rings = calloc((size_t)ncpus, sizeof(*w->rings)))) {
		free(w);
		return -ENOMEM;
	}
	w->page = (size_t)sysconf(_SC_PAGESIZE);
	w->data_size = w->page * FTFB_MMAP_WATCH_PAGES;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int fd = open_one(cpu);
		void *base;

		if (fd < 0) { /* (an offline CPU: ENODEV) */
			err = fd;
			continue;
		}
		base = mmap(NULL, w->page + w->data_size,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			err = -errno;
			close(fd);
			continue;
		}
		w->rings[w->n++] = (struct ring){fd, base};
	}
	if (!w->n) {
		ftfb_mmap_watch_free(w);
		return err;
	}
	*out = w;
	return 0;
}

/* n bytes of the ring's data from offset at (wrapping) into to. */
static void copy_out(const struct ftfb_mmap_watch *w, const char *data,
		     uint64_t at, void *to, size_t n)
{
	size_t off = (size_t)(at % w->data_size);
	size_t first = n < w->data_size - off ? n : w->data_size - off;

	memcpy(to, data + off, first);
	memcpy((char *)to + first, data, n - first);
}

/* One MMAP2 record (rec, size bytes) to fn, if it is of a file. */
static void hand_mmap2(const unsigned char *rec, size_t size, ftfb_mmap_fn fn,
		       void *ctx)
{
	const size_t at = sizeof(struct perf_event_header);
	struct mmap2_body b;
	struct ftfb_mmap_rec r;
	size_t path_bytes;

	if (size < at + sizeof(b) + SAMPLE_ID_BYTES)
		return;
	memcpy(&b, rec + at, sizeof(b));
	path_bytes = size - at - sizeof(b) - SAMPLE_ID_BYTES;
	/* (the kernel pads the path with NULs to 8 bytes) */
	if (!path_bytes || !memchr(rec + at + sizeof(b), '\0', path_bytes))
		return;
	r.pid = b.pid;
	r.tid = b.tid;
	r.start = b.addr;
	r.end = b.addr + b.len;
	r.pgoff = b.pgoff;
	r.dev = (uint64_t)b.maj << 32 | b.min;
	r.ino = b.ino;
	memcpy(&r.ns, rec + size - 8, 8);
	r.path = (const char *)rec + at + sizeof(b);
	if (r.path[0] == '/')
		fn(ctx, &r);
}

/* One COMM record to fn as an exec (path NULL), if it is one. */
static void hand_exec(const struct ftfb_mmap_watch *w, const char *data,
		      uint64_t at, const struct perf_event_header *h,
		      ftfb_mmap_fn fn, void *ctx)
{
	struct ftfb_mmap_rec r = {0};
	uint32_t ids[2];

	if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) ||
	    h->size < sizeof(*h) + 8 + SAMPLE_ID_BYTES)
		return;
	copy_out(w, data, at + sizeof(*h), ids, sizeof(ids));
	copy_out(w, data, at + h->size - 8, &r.ns, 8);
	r.pid = ids[0];
	r.tid = ids[1];
	fn(ctx, &r);
}

static unsigned drain_ring(struct ftfb_mmap_watch *w, struct ring *rg,
			   ftfb_mmap_fn fn, void *ctx, unsigned char *buf)
{
	struct perf_event_mmap_page *pg = rg->base;
	const char *data = (const char *)rg->base + w->page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	unsigned n = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;

		copy_out(w, data, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break; /* (not ours to read: the kernel's bug) */
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			copy_out(w, data, tail + sizeof(h) + 8, &lost, 8);
			w->lost += lost;
		} else if (h.type == PERF_RECORD_COMM) {
			hand_exec(w, data, tail, &h, fn, ctx);
		} else if (h.type == PERF_RECORD_MMAP2 && h.size <= REC_MAX) {
			copy_out(w, data, tail, buf, h.size);
			hand_mmap2(buf, h.size, fn, ctx);
			n++;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

unsigned ftfb_mmap_watch_drain(struct ftfb_mmap_watch *w, ftfb_mmap_fn fn,
			       void *ctx)
{
	unsigned char *buf;
	unsigned n = 0;

	if (!w || !(buf = malloc(REC_MAX)))
		return 0;
	for (int i = 0; i < w->n; i++)
		n += drain_ring(w, &w->rings[i], fn, ctx, buf);
	free(buf);
	return n;
}

uint64_t ftfb_mmap_watch_lost(const struct ftfb_mmap_watch *w)
{
	return w ? w->lost : 0;
}

void ftfb_mmap_watch_free(struct ftfb_mmap_watch *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n; i++) {
		munmap(w->rings[i].base, w->page + w->data_size);
		close(w->rings[i].fd);
	}
	free(w->rings);
	free(w);
}
