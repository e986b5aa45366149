/* SPDX-License-Identifier: MIT */
/*
 * output_pool.h - the trace file written by threads of its own: a libftf
 * destination (ftf/writer.h) whose next_buf only hands the writer's
 * buffer over and takes a free one. Worker threads write the buffers to
 * the file in order, gzipped (each buffer of whole records one complete
 * gzip member, as ftf_dest_gzip writes them) or plain (as
 * ftf_dest_file). A failed write is cut back to the last whole member or
 * record, and the writer's next call fails with one line that says so.
 *
 * Why: compressing costs some 170 to 500 ns per event at level 2, and a
 * plain write() 13 to 17 ns, against about 25 to 35 ns to translate an
 * event; on the consumer's thread they would cap what one trace takes.
 * Here K threads compress K buffers at once, and whichever finishes
 * writes the members that are next in order.
 */
#ifndef FTFB_OUTPUT_POOL_H
#define FTFB_OUTPUT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/destination.h"

struct ftfb_output_pool;

struct ftfb_output_pool_opts {
	bool gzip;	  /* else plain records */
	int level;	  /* zlib level; < 0: FTF_GZIP_DEFAULT_LEVEL */
	size_t buf_size;  /* 0: 1 MiB */
	unsigned threads; /* 0: gzip, one per online CPU but the first
			   * (1 to 8); plain, 1 */
};

/* Writes into fd, which the pool closes. 0 or -errno with one line in
 * err (the fd is then the caller's). */
int ftfb_output_pool_new(struct ftfb_output_pool **out, int fd,
			 const struct ftfb_output_pool_opts *o, char *err,
			 size_t errlen);

/* The destination to give the writer; its close waits for every buffer
 * to be written and ends the threads. */
struct ftf_destination *ftfb_output_pool_dest(struct ftfb_output_pool *p);

/* Record bytes written to the file, and the file's bytes (compressed for
 * gzip), so far (any thread may ask). */
uint64_t ftfb_output_pool_bytes_in(const struct ftfb_output_pool *p);
uint64_t ftfb_output_pool_bytes_out(const struct ftfb_output_pool *p);

/* Frees the pool (closing it first if its writer never did). */
void ftfb_output_pool_free(struct ftfb_output_pool *p);

#endif
