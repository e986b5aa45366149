// SPDX-License-Identifier: MIT
/*
 * stream.c - record by record over a plain or gzip trace file in bounded
 * memory: the mapped file for plain traces, an inflated window for gzip.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ftf/stream.h"

#define RELEASE_EVERY ((size_t)64 << 20)
#define GZREAD_CHUNK (64u << 10)
#define WINDOW_MIN ((size_t)1 << 20)
/* The largest record a gzip trace may hold in the window: a large blob
 * may claim up to 32 GiB; a record past this is refused, not allocated. */
#define WINDOW_MAX ((size_t)1 << 30)

static int stream_fail(struct ftf_stream *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A stream-level problem becomes the reader's framing error. */
static int stream_fail(struct ftf_stream *s, const char *fmt, ...)
{
	struct ftf_reader *r = &s->r;
	size_t off = s->base + r->pos;
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->errmsg, sizeof(r->errmsg), "offset %zu: %s", off, msg);
	r->err = -EBADMSG;
	r->fatal = true;
	r->err_offset = off;
	r->err_pos = off;
	r->errors++;
	return -EBADMSG;
}

bool ftf_is_gzip_file(const char *path)
{
	uint8_t m[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool gz;

	if (fd < 0)
		return false;
	gz = read(fd, m, 2) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	close(fd);
	return gz;
}

/* The gzip window over an open zlib file, plain or gzip. */
static int open_window(struct ftf_stream *s)
{
	int err;

	gzbuffer(s->gz, 256 * 1024);
	/* (zlib reads a stream that is not gzip through unchanged) */
	s->gzip = !gzdirect(s->gz);
	s->cap = WINDOW_MIN;
	s->buf = malloc(s->cap);
	err = s->buf ? ftf_reader_init(&s->r, s->buf, 0) : -ENOMEM;
	if (!err)
		err = ftf_reader_own_strings(&s->r);
	if (err)
		ftf_stream_close(s);
	return err;
}

int ftf_stream_open(struct ftf_stream *s, const char *path)
{
	uint8_t m[2];
	struct stat st;
	int fd, err;
	bool gz;

	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		/* a pipe or a FIFO: read once, from this fd (a second open
		 * would lose what was already read), plain or gzip alike */
		errno = 0;
		s->gz = gzdopen(fd, "rb");
		if (!s->gz) {
			err = errno ? -errno : -ENOMEM;
			close(fd);
			return err;
		}
		return open_window(s);
	}
	gz = pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
	close(fd);
	if (!gz) {
		err = ftf_file_open(&s->file, path);
		if (err)
			return err;
		err = ftf_reader_init(&s->r, s->file.data, s->file.len);
		if (err)
			ftf_file_close(&s->file);
		return err;
	}
	errno = 0;
	s->gz = gzopen(path, "rbe");
	if (!s->gz)
		return errno ? -errno : -ENOMEM;
	return open_window(s);
}

/* Bytes the next record needs in the window (at least its header). */
static size_t next_need(const struct ftf_stream *s)
{
	size_t avail = s->len - s->r.pos;
	uint64_t h;

	if (avail < 8)
		return 8;
	memcpy(&h, s->buf + s->r.pos, 8);
	h = le64toh(h);
	if ((h & 0xf) == 15)
		return (size_t)((h >> 4) & 0xffffffffull) * 8;
	return (size_t)((h >> 4) & 0xfff) * 8;
}

/* Reads what gzread gives; at its end, whether the stream was finished. */
static int inflate_more(struct ftf_stream *s)
{
	while (s->len < s->cap) {
		size_t want = s->cap - s->len;
		/* small reads: on damaged data zlib drops what the failing
		 * call had inflated */
		int n = gzread(s->gz, s->buf + s->len,
			       want > GZREAD_CHUNK ? GZREAD_CHUNK
						   : (unsigned)want);
		int zerr;
		const char *msg;

		if (n > 0) {
			s->len += (size_t)n;
			continue;
		}
		/* a stream cut short reads as an end, with Z_BUF_ERROR kept */
		s->eof = true;
		msg = gzerror(s->gz, &zerr);
		if (n == 0 && zerr == Z_OK)
			return 0;
		if (zerr == Z_BUF_ERROR) { /* input ended inside the stream */
			s->gzip_unfinished = true;
			snprintf(s->note, sizeof(s->note),
				 "the gzip stream ends without its trailer "
				 "(its writer was stopped before closing it, "
				 "e.g. killed); read up to where it ends");
			return 0;
		}
		/* reported once the records before it are read */
		snprintf(s->gz_error, sizeof(s->gz_error), "gzip: %s", msg);
		return 0;
	}
	return 0;
}

/* Makes the window hold `need` bytes from the reader's position (or all
 * that is left). */
static int refill(struct ftf_stream *s, size_t need)
{
	size_t avail = s->len - s->r.pos;
	int err;

	memmove(s->buf, s->buf + s->r.pos, avail);
	s->base += s->r.pos;
	s->len = avail;
	s->r.pos = 0; /* stays consistent if growing fails */
	if (need > s->cap) {
		size_t cap = s->cap;
		uint8_t *bigger;

		if (need > WINDOW_MAX)
			return stream_fail(
				s,
				"record of %zu bytes is larger than the %zu "
				"MiB this reader holds in memory",
				need, WINDOW_MAX >> 20);
		while (cap < need)
			cap *= 2;
		bigger = realloc(s->buf, cap);
		if (!bigger)
			return stream_fail(
				s, "out of memory for a record of %zu bytes",
				need);
		s->buf = bigger;
		s->cap = cap;
	}
	err = inflate_more(s);
	ftf_reader_feed(&s->r, s->buf, s->len, s->base);
	return err;
}

int ftf_stream_next(struct ftf_stream *s, struct ftf_record *rec)
{
	int ret;

	if (!s->gz) { /* the mapped file */
		ret = ftf_reader_next(&s->r, rec);
		if (ret > 0 && rec->offset - s->file.released >= RELEASE_EVERY)
			ftf_file_release(&s->file, rec->offset);
		return ret;
	}
	if (s->r.fatal)
		return s->r.err;
	for (;;) {
		size_t avail = s->len - s->r.pos, need = next_need(s);

		/* a size 0 is the reader's to report */
		if (avail >= 8 && (need == 0 || avail >= need))
			break;
		if (s->eof && s->gz_error[0])
			return stream_fail(s, "%s", s->gz_error);
		if (s->eof)
			break; /* the reader says: clean end or cut record */
		ret = refill(s, need);
		if (ret)
			return ret;
	}
	return ftf_reader_next(&s->r, rec);
}

size_t ftf_stream_bytes(const struct ftf_stream *s)
{
	return s->gz ? s->base + s->r.pos : s->r.pos;
}

const char *ftf_stream_note(const struct ftf_stream *s)
{
	return s->note;
}

void ftf_stream_close(struct ftf_stream *s)
{
	ftf_reader_free(&s->r);
	if (s->gz)
		gzclose(s->gz);
	s->gz = NULL;
	free(s->buf);
	s->buf = NULL;
	ftf_file_close(&s->file);
}
