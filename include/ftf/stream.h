/* SPDX-License-Identifier: MIT */
/*
 * ftf/stream.h - reads a trace file record by record, plain or gzip
 * (recognised by its magic bytes 1f 8b, whatever its name), in bounded
 * memory, so traces larger than memory can be read.
 *
 * A plain file is mapped and read in place (its passed pages given back
 * every 64 MiB); a gzip file is inflated into a window that holds at least
 * the record being read, with the reader's string table copied out of it
 * (ftf_reader_own_strings). A pipe or FIFO (/dev/stdin, <(cmd)) is opened
 * once and read through the same window, plain or gzip. Offsets in records
 * and messages are offsets in the decompressed stream.
 *
 * A file of many gzip members (libftf's gzip destination writes one per
 * buffer) is one stream. A gzip stream that ends without its trailer (a
 * file cut short, or a writer that does not end members) is read up to
 * where it stops: if that is a record boundary, the records
 * read are all there is and the end is clean (ftf_stream_note() says the
 * trailer is missing); if it stops inside a record, that is the reader's
 * usual framing error for a truncated trace. Damaged gzip data is a
 * framing error ("gzip: ...").
 */
#ifndef FTF_STREAM_H
#define FTF_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/reader.h"

struct ftf_stream {
	struct ftf_reader r; /* its counts, tables and error are the stream's */
	bool gzip;            /* the data is gzip-compressed */
	bool gzip_unfinished; /* the gzip stream had no trailer */
	/* plain: the mapped file */
	struct ftf_file file;
	/* gzip or a pipe (gz set): the window [buf, buf + len) holds stream
	 * bytes from base on */
	void *gz; /* zlib's gzFile */
	uint8_t *buf;
	size_t cap, len, base;
	bool eof;
	char note[160];
	char gz_error[160]; /* damaged gzip data, reported where it starts */
};

/* Opens path for reading (a file, plain or gzip, or a pipe). 0, or a
 * negative errno (-ENOENT, -EISDIR, -ENOMEM, ...) with *s left closed. */
int ftf_stream_open(struct ftf_stream *s, const char *path);

/* The next record, as ftf_reader_next() (1, 0 at the end, negative on
 * malformed input, with ftf_reader_error(&s->r)). Pointers into the
 * record's bytes (inline strings, blob payloads) are valid until the next
 * call; table strings until the index is redefined. */
int ftf_stream_next(struct ftf_stream *s, struct ftf_record *rec);

/* The bytes of the record just returned (rec->size_words * 8 of them),
 * valid until the next call. */
static inline const uint8_t *ftf_stream_record_data(const struct ftf_stream *s,
						    const struct ftf_record *rec)
{
	return s->r.data + (rec->offset - s->r.base);
}

/* Decompressed bytes read so far (at the end: the trace's size). */
size_t ftf_stream_bytes(const struct ftf_stream *s);

/* "" or a note about how the stream ended (a gzip without trailer). */
const char *ftf_stream_note(const struct ftf_stream *s);

void ftf_stream_close(struct ftf_stream *s);

/* True if the file starts with gzip's magic bytes. */
bool ftf_is_gzip_file(const char *path);

#endif
