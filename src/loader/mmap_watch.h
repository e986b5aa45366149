/* SPDX-License-Identifier: MIT */
/*
 * mmap_watch.h - the kernel's own record of each executable file mapped,
 * by any process, as it is mapped: a dummy perf event per CPU asking for
 * PERF_RECORD_MMAP2 (path, device, inode, address, offset, time), as
 * perf record does.
 *
 * Why: the unwind loader learns a process's mappings from
 * /proc/PID/maps, and a library mapped and unmapped between two reads
 * is never seen there: binutils' ar and ranlib dlopen their bfd plugins
 * and dlclose them within a millisecond or so, and their samples in the
 * plugin stopped "address in no mapping" (ranlib 91% complete beside a
 * build). With this record the loader builds the plugin's table, and
 * the samples held with a copy of their stack are walked with the
 * mapping the process had when they were taken (mapped_log.h).
 *
 * The path is what the kernel printed at the mmap, in the mapping
 * process's mount namespace: it names the file for the builder, which
 * opens it as proc_file.h does (the process's root, its device and
 * inode checked), never as the path says now.
 */
#ifndef FTFB_MMAP_WATCH_H
#define FTFB_MMAP_WATCH_H

#include <stdint.h>

struct ftfb_mmap_rec {
	uint32_t pid, tid;
	uint64_t start, end, pgoff;
	uint64_t dev; /* major << 32 | minor, as /proc/PID/maps gives it */
	uint64_t ino;
	uint64_t ns;	  /* CLOCK_MONOTONIC, BPF's clock */
	const char *path; /* NUL-terminated, valid during the callback */
};

/* r->path NULL: not a mapping, pid's exec at r->ns (its new image's
 * mappings follow) */
typedef void (*ftfb_mmap_fn)(void *ctx, const struct ftfb_mmap_rec *r);

struct ftfb_mmap_watch;

/* One event per possible CPU (ncpus), each with its ring of
 * FTFB_MMAP_WATCH_PAGES pages: 0, or -errno (no perf events). */
#define FTFB_MMAP_WATCH_PAGES 16
int ftfb_mmap_watch_open(struct ftfb_mmap_watch **out, int ncpus);
/* Hands each record waiting to fn, in each CPU's order; returns how
 * many. Bounded: at most what the rings hold. */
unsigned ftfb_mmap_watch_drain(struct ftfb_mmap_watch *w, ftfb_mmap_fn fn,
			       void *ctx);
/* Records the kernel dropped (a ring full while the reader built a
 * table). */
uint64_t ftfb_mmap_watch_lost(const struct ftfb_mmap_watch *w);
void ftfb_mmap_watch_free(struct ftfb_mmap_watch *w);

#endif
