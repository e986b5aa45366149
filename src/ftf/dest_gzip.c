// SPDX-License-Identifier: MIT
/*
 * dest_gzip.c - a gzip file destination: the whole records of each buffer
 * the writer hands over become one complete gzip member (RFC 1952 allows
 * a file of many; gzip -d, zlib, python and Perfetto read them as one
 * stream), written with one write(). So the file is a complete gzip at
 * every moment between two buffers: a process killed mid-trace leaves a
 * file every reader opens, which decodes to whole records. A sync flush
 * would keep the dictionary across buffers, but leaves a stream without
 * its trailer that Perfetto refuses ("Compressed stream incomplete"); a
 * new member per 1 MiB buffer costs under 0.2% of the size here. A failed
 * write is cut back to the previous member.
 *
 * Compression runs on the writer's thread: at level 2 zlib deflates a busy
 * scheduling trace at about 300 MB/s here, some 20 times the rate ftf-bpf
 * writes it, so a compressor thread would buy little (README: Compressed
 * output).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "dest_bufs.h"
#include "fd_write.h"
#include "ftf/destination.h"

#define DEFAULT_BUF_SIZE (1024 * 1024)
#define GZIP_WINDOW_BITS (15 + 16) /* 32 KiB window, gzip wrapper */

static struct ftf_dest_gzip *to_gzip(struct ftf_destination *d)
{
	return (struct ftf_dest_gzip *)d; /* base is the first member */
}

static int fail(struct ftf_dest_gzip *g, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ftf_dest_gzip *g, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->errmsg, sizeof(g->errmsg), fmt, ap);
	va_end(ap);
	g->failed = err;
	return err;
}

/* Writes the compressed bytes of one member; on failure, cuts the file
 * back to the previous member (a file that still decodes whole). */
static int write_out(struct ftf_dest_gzip *g, size_t n)
{
	size_t done;
	int err = ftf__write_all(g->fd, g->out, n, &done);

	if (!err) {
		g->bytes_written += n;
		return 0;
	}
	{
		off_t end = (off_t)(g->base_offset + g->bytes_written);
		const char *cut =
			done == 0 ? ""
				  : ftf__cut_back(g->fd, end,
						  ", file cut back to the last "
						  "whole gzip member");

		return fail(
			g, -err,
			"trace file write failed: %s (%llu compressed bytes "
			"of whole records in the file%s)",
			strerror(err), (unsigned long long)g->bytes_written,
			cut);
	}
}

/* Deflates n bytes into one gzip member and writes it. The output buffer
 * grows until the member fits, so one write() carries all of it. */
static int write_member(struct ftf_dest_gzip *g, const uint8_t *p, size_t n)
{
	z_stream *zs = g->zs;
	size_t have = 0;
	int zr;

	zs->next_in = (Bytef *)p;
	zs->avail_in = (uInt)n;
	for (;;) {
		zs->next_out = g->out + have;
		zs->avail_out = (uInt)(g->out_size - have);
		zr = deflate(zs, Z_FINISH);
		have = g->out_size - zs->avail_out;
		if (zr == Z_STREAM_ERROR)
			return fail(g, -EIO, "zlib deflate failed: %s",
				    zs->msg ? zs->msg : "stream error");
		if (zr == Z_STREAM_END)
			break;
		{
			uint8_t *bigger = realloc(g->out, g->out_size * 2);

			if (!bigger)
				return fail(g, -ENOMEM,
					    "cannot grow the gzip output "
					    "buffer to %zu bytes",
					    g->out_size * 2);
			g->out = bigger;
			g->out_size *= 2;
		}
	}
	deflateReset(zs); /* the next member */
	zr = write_out(g, have);
	if (!zr)
		g->bytes_in += n;
	return zr;
}

static int gzip_next_buf(struct ftf_destination *d, size_t used,
			 size_t ensure_capacity, uint8_t **buf, size_t *len)
{
	struct ftf_dest_gzip *g = to_gzip(d);
	size_t total = g->carry + used, whole, tail;
	int err;

	if (g->failed)
		return g->failed;
	whole = ftf_whole_records_prefix(g->bufs[g->cur], total);
	if (whole) {
		err = write_member(g, g->bufs[g->cur], whole);
		if (err)
			return err;
	}
	/* A record cut by ftf_write_bytes waits at the next buffer's start. */
	tail = total - whole;
	if (ftf__dest_bufs_fit(g->bufs, &g->buf_size, tail))
		return fail(g, -ENOMEM,
			    "cannot allocate buffers for a record of more "
			    "than %zu bytes",
			    tail);
	memcpy(g->bufs[g->cur ^ 1], g->bufs[g->cur] + whole, tail);
	g->cur ^= 1;
	g->carry = tail;
	*buf = g->bufs[g->cur] + tail;
	*len = g->buf_size - tail;
	(void)ensure_capacity; /* a short buffer is the writer's error */
	return 0;
}

static void release(struct ftf_dest_gzip *g)
{
	if (g->zs) {
		deflateEnd(g->zs);
		free(g->zs);
		g->zs = NULL;
	}
	free(g->bufs[0]);
	free(g->bufs[1]);
	free(g->out);
	g->bufs[0] = g->bufs[1] = g->out = NULL;
	if (g->own_fd && g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

static int gzip_close(struct ftf_destination *d, size_t used)
{
	struct ftf_dest_gzip *g = to_gzip(d);
	size_t total = g->carry + used, whole = 0;
	int err = g->failed;

	if (!err && g->bufs[g->cur]) {
		whole = ftf_whole_records_prefix(g->bufs[g->cur], total);
		/* an empty member if the file has none: a valid gzip */
		if (whole || !g->bytes_written)
			err = write_member(g, g->bufs[g->cur], whole);
		if (!err && whole != total)
			err = fail(g, -EPROTO,
				   "dropped %zu trailing bytes that are not a "
				   "whole record",
				   total - whole);
	}
	g->carry = 0;
	release(g);
	return err;
}

static const char *gzip_errmsg(struct ftf_destination *d)
{
	return to_gzip(d)->errmsg;
}

int ftf_dest_gzip_init_fd(struct ftf_dest_gzip *g, int fd, int own_fd,
			  size_t buf_size, int level)
{
	off_t off;

	memset(g, 0, sizeof(*g));
	g->base.next_buf = gzip_next_buf;
	g->base.close = gzip_close;
	g->base.errmsg = gzip_errmsg;
	g->fd = fd;
	g->own_fd = own_fd;
	g->buf_size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	g->level = level < 0 ? FTF_GZIP_DEFAULT_LEVEL : level;
	off = lseek(fd, 0, SEEK_CUR);
	g->base_offset = off < 0 ? 0 : (int64_t)off;
	if (g->level > 9) {
		snprintf(g->errmsg, sizeof(g->errmsg),
			 "gzip level %d is out of range (0..9)", g->level);
		g->fd = -1; /* the caller keeps its fd */
		return -EINVAL;
	}
	g->bufs[0] = malloc(g->buf_size);
	g->bufs[1] = malloc(g->buf_size);
	g->zs = calloc(1, sizeof(z_stream));
	if (g->zs && deflateInit2(g->zs, g->level, Z_DEFLATED, GZIP_WINDOW_BITS,
				  8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g->zs);
		g->zs = NULL;
	}
	g->out_size = g->zs ? deflateBound(g->zs, g->buf_size) + 64 : 0;
	g->out = g->zs ? malloc(g->out_size) : NULL;
	if (!g->bufs[0] || !g->bufs[1] || !g->out) {
		snprintf(g->errmsg, sizeof(g->errmsg),
			 "cannot allocate the gzip buffers (%zu bytes each)",
			 g->buf_size);
		g->own_fd = 0; /* the caller keeps its fd */
		release(g);
		return -ENOMEM;
	}
	return 0;
}

int ftf_dest_gzip_open(struct ftf_dest_gzip *g, const char *path,
		       size_t buf_size, int level)
{
	int fd, err;

	/* (a failed open leaves a destination whose close does nothing) */
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	fd = ftf__open_output(path, g->errmsg, sizeof(g->errmsg));
	if (fd < 0)
		return fd;
	err = ftf_dest_gzip_init_fd(g, fd, 1, buf_size, level);
	if (err)
		close(fd);
	return err;
}
