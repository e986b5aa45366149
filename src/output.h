/* SPDX-License-Identifier: MIT */
/*
 * output.h - the trace file a writer writes to: plain (.fxt) or gzipped
 * (.fxt.gz, --compress), written under a temporary name and put in place
 * (an existing file kept as .old) by ftfb_output_commit; a symlink or any
 * file that is not regular refused.
 */
#ifndef FTFB_OUTPUT_H
#define FTFB_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/destination.h"
#include "output_pool.h"

struct ftfb_output {
	bool gzip;
	struct ftfb_output_pool *pool; /* written on threads of its own */
	char path[PATH_MAX];
	char tmp[PATH_MAX]; /* the file written, until committed ("") */
	union {
		struct ftf_dest_file file;
		struct ftf_dest_gzip gz;
	} d;
};

/* Creates path and sets up its destination: written (and gzipped) by
 * threads of its own (output_pool.h) with threaded, by the writer's
 * thread without (a flight-recorder snapshot's child). 0, or a negative
 * errno with one line in err. */
int ftfb_output_open(struct ftfb_output *out, const char *path, bool gzip,
		     bool threaded, char *err, size_t errlen);

/* Frees what the output holds once its writer is closed (its counts
 * stay readable until then). */
void ftfb_output_free(struct ftfb_output *out);

/* The trace put at its path (the one there before kept as .old): 0, or a
 * negative errno with one line in err. */
int ftfb_output_commit(struct ftfb_output *out, char *err, size_t errlen);

/* Removes the trace if it was never committed: the only file removed is
 * one this output created. */
void ftfb_output_discard(struct ftfb_output *out);

/* The destination to give the writer (which closes it). */
static inline struct ftf_destination *ftfb_output_dest(struct ftfb_output *out)
{
	if (out->pool)
		return ftfb_output_pool_dest(out->pool);
	return out->gzip ? &out->d.gz.base : &out->d.file.base;
}

/* Bytes in the file so far (compressed, for gzip). */
static inline uint64_t ftfb_output_file_bytes(const struct ftfb_output *out)
{
	if (out->pool)
		return ftfb_output_pool_bytes_out(out->pool);
	return out->gzip ? out->d.gz.bytes_written : out->d.file.bytes_written;
}

/* Record bytes handed to the file so far (before compression). */
static inline uint64_t ftfb_output_record_bytes(const struct ftfb_output *out)
{
	if (out->pool)
		return ftfb_output_pool_bytes_in(out->pool);
	return out->gzip ? out->d.gz.bytes_in : out->d.file.bytes_written;
}

#endif
