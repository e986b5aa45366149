/* SPDX-License-Identifier: MIT */
/*
 * ftf/destination.h - the destinations libftf ships.
 *
 * Memory: every byte written collects in one growing heap array (grown on
 * buffer switches only, never per event), or in a fixed caller array.
 *
 * File: two buffers; while the writer fills one, the other's whole records
 * are written to the file. Only whole records ever reach the kernel: the
 * writer switches buffers between records, and if write() stops short (a
 * full disk), the file is cut back to the last record boundary and the
 * error (-ENOSPC, ...) is returned with a message. The file is never left
 * ending inside a record by the library.
 *
 * Gzip: as the file destination, but the whole records of each buffer
 * become one complete gzip member (zlib), written with one write(); a
 * file of many members is one gzip stream to gzip -d, zlib, python and
 * Perfetto. The file is a complete gzip between any two buffers: a
 * process killed mid-trace leaves a file that decodes, in every reader,
 * up to its last whole record. A failed write is cut back to the previous
 * member. The writer hands a buffer over when it is full (1 MiB) or a
 * second old at its refresh (the fast path refreshes by itself; users of
 * the checked calls call ftf_refresh_buf_if_stale(), or
 * ftf_force_switch_buffers() to flush now), so data reaches the file at
 * least every second while events come.
 */
#ifndef FTF_DESTINATION_H
#define FTF_DESTINATION_H

#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"

struct ftf_dest_mem {
	struct ftf_destination base;
	uint8_t *data;    /* all bytes committed so far, then the open chunk */
	size_t len;       /* bytes committed */
	size_t alloc;     /* bytes allocated */
	size_t chunk;     /* bytes handed out per next_buf (at least) */
	size_t fixed_cap; /* fixed mode: hand out at most this in total */
	int fixed;
	char errmsg[128];
};

/* A growing memory destination handing out `chunk` bytes per buffer
 * (0: 64 KiB). Free with ftf_dest_mem_free() after the writer is closed. */
void ftf_dest_mem_init(struct ftf_dest_mem *m, size_t chunk);
/* A memory destination over a caller array: next_buf hands out the rest
 * of the array (possibly less than asked, to test "new buffer too small").
 */
void ftf_dest_mem_init_fixed(struct ftf_dest_mem *m, uint8_t *array,
			     size_t cap);
void ftf_dest_mem_free(struct ftf_dest_mem *m);

struct ftf_dest_file {
	struct ftf_destination base;
	int fd;
	int own_fd;
	uint8_t *bufs[2];
	size_t buf_size;
	int cur;
	uint64_t bytes_written; /* committed to the file */
	char errmsg[256];
	/* Added by the implementation (additive): */
	size_t carry;        /* bytes of an unfinished record (from
			      * ftf_write_bytes) kept at the buffer start */
	int64_t base_offset; /* file offset where this destination began */
	int failed;          /* sticky negative errno after a failed write */
};

/* Opens `path` for writing (O_CREAT|O_TRUNC|O_NOFOLLOW|O_CLOEXEC, 0644)
 * with buffers of `buf_size` bytes (0: 1 MiB). Returns 0 or -errno with
 * a message in f->errmsg. */
int ftf_dest_file_open(struct ftf_dest_file *f, const char *path,
		       size_t buf_size);
/* Uses an open fd (not closed by the destination unless own_fd). */
int ftf_dest_file_init_fd(struct ftf_dest_file *f, int fd, int own_fd,
			  size_t buf_size);

#define FTF_GZIP_DEFAULT_LEVEL 2

struct ftf_dest_gzip {
	struct ftf_destination base;
	int fd;
	int own_fd;
	int level;
	uint8_t *bufs[2];
	size_t buf_size;
	int cur;
	size_t carry;          /* bytes of an unfinished record, as in the file
				* destination */
	uint8_t *out;          /* the compressed bytes of one flush */
	size_t out_size;
	void *zs;              /* zlib's z_stream (private) */
	int64_t base_offset;   /* file offset where this destination began */
	uint64_t bytes_in;     /* record bytes compressed so far */
	uint64_t bytes_written; /* compressed bytes in the file */
	int failed;            /* sticky negative errno after a failure */
	char errmsg[256];
};

/* Opens `path` as ftf_dest_file_open does and writes gzip to it at zlib
 * `level` (0..9; < 0: FTF_GZIP_DEFAULT_LEVEL) with buffers of `buf_size`
 * bytes (0: 1 MiB). 0 or -errno with a message in g->errmsg. */
int ftf_dest_gzip_open(struct ftf_dest_gzip *g, const char *path,
		       size_t buf_size, int level);
/* Uses an open fd (closed by the destination at close if own_fd). If this
 * fails, the fd stays the caller's. */
int ftf_dest_gzip_init_fd(struct ftf_dest_gzip *g, int fd, int own_fd,
			  size_t buf_size, int level);

/* The length of the longest prefix of `data` made of whole records
 * (header size fields, large records included). Used to cut a short write
 * back to a record boundary. */
size_t ftf_whole_records_prefix(const uint8_t *data, size_t len);

#endif
