// SPDX-License-Identifier: MIT
/*
 * dest_file.c - a file destination that only ever hands whole records to
 * write(), so a trace file always ends on a record boundary. If write()
 * stops short (a full disk), the file is cut back to the last record
 * boundary that reached it, and the destination stays failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dest_bufs.h"
#include "fd_write.h"
#include "ftf/destination.h"

#define DEFAULT_BUF_SIZE (1024 * 1024)

static struct ftf_dest_file *to_file(struct ftf_destination *d)
{
	return (struct ftf_dest_file *)d; /* base is the first member */
}

static inline uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

size_t ftf_whole_records_prefix(const uint8_t *data, size_t len)
{
	size_t off = 0;

	while (len - off >= 8) {
		uint64_t h = le64(data + off);
		uint64_t words = (h & 0xf) == 15 ? (h >> 4) & 0xffffffffull
						 : (h >> 4) & 0xfff;

		if (words == 0 || words > (len - off) / 8)
			break;
		off += (size_t)words * 8;
	}
	return off;
}

/* Writes n bytes (whole records). On failure, cuts the file back to the
 * last whole record that reached it and makes the error sticky. */
static int write_records(struct ftf_dest_file *f, const uint8_t *p, size_t n)
{
	size_t done;
	int err = ftf__write_all(f->fd, p, n, &done);

	if (!err) {
		f->bytes_written += n;
		return 0;
	}
	{
		size_t whole = ftf_whole_records_prefix(p, done);
		int64_t end =
			f->base_offset + (int64_t)(f->bytes_written + whole);
		const char *cut = "";

		f->bytes_written += whole;
		if (done != whole)
			cut = ftf__cut_back(f->fd, end,
					    ", file cut back to the last whole "
					    "record");
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "trace file write failed: %s (%zu of %zu bytes "
			 "written; %llu bytes of whole records in the file%s)",
			 strerror(err), done, n,
			 (unsigned long long)f->bytes_written, cut);
	}
	f->failed = -err;
	return -err;
}

static int file_next_buf(struct ftf_destination *d, size_t used,
			 size_t ensure_capacity, uint8_t **buf, size_t *len)
{
	struct ftf_dest_file *f = to_file(d);
	size_t total = f->carry + used, whole, tail;
	int err;

	if (f->failed)
		return f->failed;
	whole = ftf_whole_records_prefix(f->bufs[f->cur], total);
	err = write_records(f, f->bufs[f->cur], whole);
	if (err)
		return err;
	/* A record cut by ftf_write_bytes waits at the next buffer's start. */
	tail = total - whole;
	if (ftf__dest_bufs_fit(f->bufs, &f->buf_size, tail)) {
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "cannot allocate buffers for a record of more than "
			 "%zu bytes",
			 tail);
		f->failed = -ENOMEM;
		return f->failed;
	}
	memcpy(f->bufs[f->cur ^ 1], f->bufs[f->cur] + whole, tail);
	f->cur ^= 1;
	f->carry = tail;
	*buf = f->bufs[f->cur] + tail;
	*len = f->buf_size - tail;
	(void)ensure_capacity; /* a short buffer is the writer's error */
	return 0;
}

static void release(struct ftf_dest_file *f)
{
	free(f->bufs[0]);
	free(f->bufs[1]);
	f->bufs[0] = f->bufs[1] = NULL;
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

static int file_close(struct ftf_destination *d, size_t used)
{
	struct ftf_dest_file *f = to_file(d);
	size_t total = f->carry + used, whole;
	int err = f->failed;

	if (!err && f->bufs[f->cur]) {
		whole = ftf_whole_records_prefix(f->bufs[f->cur], total);
		err = write_records(f, f->bufs[f->cur], whole);
		if (!err && whole != total) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "dropped %zu trailing bytes that are not a "
				 "whole record",
				 total - whole);
			err = -EPROTO;
		}
	}
	f->carry = 0;
	release(f);
	return err;
}

static const char *file_errmsg(struct ftf_destination *d)
{
	return to_file(d)->errmsg;
}

int ftf_dest_file_init_fd(struct ftf_dest_file *f, int fd, int own_fd,
			  size_t buf_size)
{
	off_t off;

	memset(f, 0, sizeof(*f));
	f->base.next_buf = file_next_buf;
	f->base.close = file_close;
	f->base.errmsg = file_errmsg;
	f->fd = fd;
	f->own_fd = own_fd;
	f->buf_size = buf_size ? buf_size : DEFAULT_BUF_SIZE;
	off = lseek(fd, 0, SEEK_CUR);
	f->base_offset = off < 0 ? 0 : (int64_t)off;
	f->bufs[0] = malloc(f->buf_size);
	f->bufs[1] = malloc(f->buf_size);
	if (!f->bufs[0] || !f->bufs[1]) {
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "cannot allocate two %zu-byte buffers", f->buf_size);
		release(f);
		return -ENOMEM;
	}
	return 0;
}

int ftf_dest_file_open(struct ftf_dest_file *f, const char *path,
		       size_t buf_size)
{
	int fd;

	/* (a failed open leaves a destination whose close does nothing) */
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	fd = ftf__open_output(path, f->errmsg, sizeof(f->errmsg));
	if (fd < 0)
		return fd;
	return ftf_dest_file_init_fd(f, fd, 1, buf_size);
}
