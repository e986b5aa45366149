/* SPDX-License-Identifier: MIT */
/*
 * gzip_pool.h - a gzipped trace file whose compression runs on threads
 * of its own: a libftf destination (ftf/writer.h) like ftf_dest_gzip,
 * with the same file (each buffer of whole records one complete gzip
 * member, in order; a failed write cut back to the last whole member),
 * but the writer's thread only hands buffers over. Compressing costs
 * some 170 to 190 ns per event at level 2, several times what
 * translating an event costs: on the consumer's thread it would cap
 * what one trace can take; here K threads compress K buffers at once
 * and the first to finish writes them out in order.
 */
#ifndef FTFB_GZIP_POOL_H
#define FTFB_GZIP_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "ftf/destination.h"

struct ftfb_gzip_pool;

/* Compresses at zlib `level` (< 0: FTF_GZIP_DEFAULT_LEVEL) in buffers of
 * buf_size bytes (0: 1 MiB) on `threads` threads (0: one per online CPU
 * but the first, 1 to 8) into fd, which the pool closes. 0 or -errno
 * with one line in err (the fd is then the caller's). */
int ftfb_gzip_pool_new(struct ftfb_gzip_pool **out, int fd, int level,
		       size_t buf_size, unsigned threads, char *err,
		       size_t errlen);

/* The destination to give the writer; its close waits for every member
 * to be written, ends the threads and frees the pool. */
struct ftf_destination *ftfb_gzip_pool_dest(struct ftfb_gzip_pool *p);

/* Record bytes compressed into the file, and the file's bytes, so far
 * (any thread may ask). */
uint64_t ftfb_gzip_pool_bytes_in(const struct ftfb_gzip_pool *p);
uint64_t ftfb_gzip_pool_bytes_out(const struct ftfb_gzip_pool *p);

/* Frees a pool whose destination was never given to a writer. */
void ftfb_gzip_pool_free(struct ftfb_gzip_pool *p);

#endif
