// SPDX-License-Identifier: MIT
/*
 * writer.c - the FTF writer, a C port of the seed's writer.ml: its set-up,
 * the file header, the buffers and destinations, and close. The records
 * are by kind in writer_strings.c, writer_meta.c (threads, kernel objects,
 * tick initialization), writer_events.c, writer_records.c (scheduling,
 * logs, blobs) and writer_args.c; writer_priv.h is what they share.
 *
 * Every record is reserved whole (ensure_capacity) before its first word
 * is written, so buffers always end on record boundaries. Calls check
 * everything before writing, so a failing call leaves the buffer as it
 * was; the one exception is the pending-argument check, which removes the
 * record whose arguments were not all written (back to record_start) so
 * that the output stays a valid trace.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "writer_priv.h"

#define MAGIC_WORD 0x0016547846040010ull

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

int ftf__fail(struct ftf_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
	w->err = err;
	return err;
}

const char *ftf_writer_error(const struct ftf_writer *w)
{
	return w->errmsg;
}

/* ------------------------------------------------------------------ */
/* buffers                                                             */
/* ------------------------------------------------------------------ */

int ftf__switch_buffers(struct ftf_writer *w, size_t ensure_capacity)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if (w->closed)
		return ftf__fail(w, -EBADF, "FTF writer is closed");
	err = w->dest->next_buf(w->dest, w->pos, ensure_capacity, &buf, &len);
	if (err) {
		const char *m = w->dest->errmsg ? w->dest->errmsg(w->dest) : "";

		return ftf__fail(w, err < 0 ? err : -EIO,
				 "destination failed: %s",
				 m && *m ? m : strerror(err < 0 ? -err : EIO));
	}
	w->buf = buf;
	w->pos = 0;
	w->cap = buf ? len : 0;
	w->record_start = 0;
	if (w->cap < ensure_capacity)
		return ftf__fail(
			w, -ENOBUFS,
			"new buffer too small: %zu bytes < %zu requested",
			w->cap, ensure_capacity);
	return 0;
}

int ftf_flush(struct ftf_writer *w)
{
	int err = check_open(w);

	return err ? err : flush_pending(w);
}

/* ------------------------------------------------------------------ */
/* creation, header, close                                             */
/* ------------------------------------------------------------------ */

/*
 * A failed set-up leaves the writer closed (later calls fail with -EBADF)
 * and closes a usable destination, so the caller has nothing to release;
 * the set-up error and its message are kept.
 */
static int init_failed(struct ftf_writer *w, struct ftf_destination *dest)
{
	int err = w->err;
	char msg[sizeof(w->errmsg)];

	memcpy(msg, w->errmsg, sizeof(msg));
	if (dest)
		dest->close(dest, 0); /* drop a partial header */
	ftf__free_string_map(w);
	w->closed = true;
	w->buf = NULL;
	w->pos = w->cap = w->record_start = 0;
	w->err = err;
	memcpy(w->errmsg, msg, sizeof(msg));
	return err;
}

int ftf_writer_init_no_header(struct ftf_writer *w,
			      struct ftf_destination *dest,
			      const struct ftf_writer_options *opts)
{
	static const struct ftf_writer_options defaults = {
		.num_temp_strs = -1,
	};
	int n;

	memset(w, 0, sizeof(*w));
	if (!opts)
		opts = &defaults;
	if (!dest || !dest->next_buf || !dest->close) {
		ftf__fail(w, -EINVAL, "no destination");
		return init_failed(w, NULL);
	}
	n = opts->num_temp_strs < 0 ? FTF_DEFAULT_NUM_TEMP_STRS
				    : opts->num_temp_strs;
	if (n > FTF_MAX_TEMP_STRING_SLOTS) {
		ftf__fail(w, -EINVAL, "num_temp_strs too large: %d > %d", n,
			  FTF_MAX_TEMP_STRING_SLOTS);
		return init_failed(w, dest);
	}
	w->dest = dest;
	w->num_temp_strs = n;
	/* With the maximum number of temp slots the first permanent id is
	 * one past FTF_STRING_MAX_ID: interning then fails at once. */
	w->next_string_id = FTF_STRING_FIRST_TEMP + n;
	w->refresh_buf_at_intervals = !opts->no_refresh_buf_at_intervals;
	if (opts->clock) {
		w->clock = opts->clock;
	} else {
		ftf_clock_init(&w->own_clock, FTF_CLOCK_TSC);
		w->clock = &w->own_clock;
	}
	w->refresh_every_ticks =
		ftf_clock_ns_to_ticks_span(w->clock, FTF_REFRESH_NS);
	/* The first buffer: cap 0 makes switch_buffers call next_buf with
	 * used == 0 and buf NULL. */
	if (ftf__switch_buffers(w, 8))
		return init_failed(w, dest);
	w->cur_buf_ticks = ftf_clock_now(w->clock);
	return 0;
}

static int write_header(struct ftf_writer *w, const char *provider)
{
	size_t name_len = strlen(provider);
	size_t rsize = 1 + round_words(name_len);
	int err;

	if (name_len > 0xff)
		return ftf__fail(w, -E2BIG,
				 "provider name too long: %zu bytes > 255",
				 name_len);
	/* magic, provider info, provider section and the "process" string,
	 * reserved at once: the header is written whole or not at all */
	err = ensure_capacity(w, 8 + rsize * 8 + 8 + 16);
	if (err)
		return err;
	ftf__put64(w, MAGIC_WORD);
	ftf__put64(w, 0 | (rsize << 4) | (1ull << 16) | (0ull << 20) |
			      ((uint64_t)name_len << 52));
	put_stream(w, provider, name_len);
	ftf__put64(w, 0 | (1ull << 4) | (2ull << 16) | (0ull << 20));
	return ftf__string_slot(w, FTF_STRING_PROCESS, "process", 7);
}

int ftf_writer_init(struct ftf_writer *w, struct ftf_destination *dest,
		    const struct ftf_writer_options *opts)
{
	const char *provider = opts && opts->provider_name
				       ? opts->provider_name
				       : FTF_DEFAULT_PROVIDER_NAME;
	int err = ftf_writer_init_no_header(w, dest, opts);

	if (err)
		return err;
	err = write_header(w, provider);
	if (err)
		return init_failed(w, w->dest);
	return 0;
}

int ftf_writer_close(struct ftf_writer *w)
{
	int err, cerr;

	if (w->closed)
		return ftf__fail(w, -EBADF, "FTF writer is closed");
	err = flush_pending(w);
	cerr = w->dest->close(w->dest, w->pos);
	if (cerr) {
		const char *m = w->dest->errmsg ? w->dest->errmsg(w->dest) : "";

		if (!err)
			err = ftf__fail(
				w, cerr < 0 ? cerr : -EIO,
				"destination close failed: %s",
				m && *m ? m : strerror(cerr < 0 ? -cerr : EIO));
	}
	w->closed = true;
	w->buf = NULL;
	w->pos = w->cap = w->record_start = 0;
	ftf__free_string_map(w);
	w->string_map_enabled = false;
	return err;
}

int ftf_set_destination(struct ftf_writer *w, struct ftf_destination *dest)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if ((err = check_open(w)) || (err = ftf_flush(w)))
		return err;
	if (!dest || !dest->next_buf || !dest->close)
		return ftf__fail(w, -EINVAL, "no destination");
	/* Commit what the old destination's buffer holds; the caller closes
	 * the old destination (close(d, 0)). */
	err = ftf__switch_buffers(w, 0);
	if (err)
		return err;
	err = dest->next_buf(dest, 0, 0, &buf, &len);
	if (err) {
		const char *m = dest->errmsg ? dest->errmsg(dest) : "";

		return ftf__fail(w, err < 0 ? err : -EIO,
				 "new destination failed: %s",
				 m && *m ? m : strerror(err < 0 ? -err : EIO));
	}
	w->dest = dest;
	w->buf = buf;
	w->pos = 0;
	w->cap = buf ? len : 0;
	w->record_start = 0;
	return 0;
}

int ftf_force_switch_buffers(struct ftf_writer *w)
{
	int err;

	if ((err = check_open(w)) || (err = ftf_flush(w)))
		return err;
	return ftf__switch_buffers(w, 1);
}

int ftf_write_bytes(struct ftf_writer *w, const void *bytes, size_t len)
{
	const uint8_t *p = bytes;
	size_t i = 0;

	while (i < len) {
		size_t n = len - i < 4096 ? len - i : 4096;
		int err = ensure_capacity(w, n);

		if (err)
			return err;
		memcpy(w->buf + w->pos, p + i, n);
		w->pos += n;
		i += n;
	}
	return 0;
}
