/* SPDX-License-Identifier: MIT */
/*
 * src/ftf/writer_priv.h - what the pieces of the FTF writer share: the
 * record limits, the argument-template fields, the reserve-before-write
 * step every checked record starts with, and the checks whose messages
 * several record kinds give (libftf-internal, not installed).
 *
 * The shared functions are hidden: libftf.so's version script exports
 * every ftf_ name, and these are not part of its interface.
 */
#ifndef FTF_WRITER_PRIV_H
#define FTF_WRITER_PRIV_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* the out-of-line definitions of the header's inline fast paths are the
 * writer's own, in these files */
#define FTF_WRITER_NO_INLINE
#include "ftf/writer.h"

#define FTF__HIDDEN __attribute__((visibility("hidden")))

#define MAX_RECORD_WORDS 4095
#define TEMPLATE_MASK 0xF0FFF0ll /* size bits 4..15, count bits 20..23 */

/* Sets the writer's error and its message; returns err. */
FTF__HIDDEN __attribute__((format(printf, 3, 4))) int
ftf__fail(struct ftf_writer *w, int err, const char *fmt, ...);

/* The checks several records share: 0, or the error with its message. */
FTF__HIDDEN int ftf__check_string_length(struct ftf_writer *w, size_t len);
FTF__HIDDEN int ftf__check_string_id(struct ftf_writer *w, const char *what,
				     int id);
FTF__HIDDEN int ftf__check_thread_ref(struct ftf_writer *w, int thread);
FTF__HIDDEN int ftf__check_template(struct ftf_writer *w, ftf_arg_types t,
				    int fixed_words);

/* A string record for id (writer_strings.c; also the header's "process"). */
FTF__HIDDEN int ftf__string_slot(struct ftf_writer *w, int id, const char *s,
				 size_t len);
/* Frees the id -> string map (at close, or a failed set-up). */
FTF__HIDDEN void ftf__free_string_map(struct ftf_writer *w);

static inline size_t round_words(size_t bytes)
{
	return (bytes + 7) / 8;
}

static inline size_t padding_to_word(size_t x)
{
	return (size_t)(-x) & 7;
}

/* Copies a string stream and its zero padding; capacity already reserved. */
static inline void put_stream(struct ftf_writer *w, const void *s, size_t len)
{
	size_t pad = padding_to_word(len);

	if (len)
		memcpy(w->buf + w->pos, s, len);
	memset(w->buf + w->pos + len, 0, pad);
	w->pos += len + pad;
}

static inline int64_t tmpl_count(ftf_arg_types t)
{
	return t >> 20;
}

static inline int64_t tmpl_words(ftf_arg_types t)
{
	return (t >> 4) & 0xffff;
}

static inline uint64_t event_header(ftf_arg_types counts, int event_type,
				    int thread, int category, int name)
{
	return 4 | (uint64_t)counts | ((uint64_t)event_type << 16) |
	       ((uint64_t)thread << 24) | ((uint64_t)category << 32) |
	       ((uint64_t)name << 48);
}

static inline int check_open(struct ftf_writer *w)
{
	if (w->closed)
		return ftf__fail(w, -EBADF, "FTF writer is closed");
	return 0;
}

/* flush: the pending-argument check, then the pending word. A record
 * whose arguments do not match its template is removed. */
static inline int flush_pending(struct ftf_writer *w)
{
	const char *why;

	if (__builtin_expect(!(w->pending_args | w->pending_word), 1))
		return 0;
	if (ftf_arg_types_check_none(w->pending_args, &why)) {
		w->pos = w->record_start;
		w->pending_args = FTF_ARG_TYPES_NONE;
		w->pending_word = false;
		return ftf__fail(w, -EPROTO,
				 "%s (the incomplete record was removed)", why);
	}
	if (w->pending_word) {
		ftf__put64(w, w->word_to_flush);
		w->pending_word = false;
	}
	return 0;
}

static inline int ensure_capacity_no_flush(struct ftf_writer *w, size_t amount)
{
	if (__builtin_expect(w->cap - w->pos < amount, 0))
		return ftf__switch_buffers(w, amount);
	return 0;
}

/* Every checked write starts here: open, flushed, `amount` bytes free. */
static inline int ensure_capacity(struct ftf_writer *w, size_t amount)
{
	int err;

	if (__builtin_expect(w->closed, 0))
		return check_open(w);
	err = flush_pending(w);
	if (err)
		return err;
	return ensure_capacity_no_flush(w, amount);
}

#endif
