// SPDX-License-Identifier: MIT
/*
 * writer.c - the FTF writer, a C port of the seed's writer.ml.
 *
 * Every record is reserved whole (ensure_capacity) before its first word
 * is written, so buffers always end on record boundaries. Calls check
 * everything before writing, so a failing call leaves the buffer as it
 * was; the one exception is the pending-argument check, which removes the
 * record whose arguments were not all written (back to record_start) so
 * that the output stays a valid trace.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the out-of-line definitions of the inline fast paths are this file's */
#define FTF_WRITER_NO_INLINE
#include "ftf/writer.h"

#define MAGIC_WORD 0x0016547846040010ull
#define MAX_RECORD_WORDS 4095

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static int
fail(struct ftf_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
	w->err = err;
	return err;
}

static inline size_t round_words(size_t bytes)
{
	return (bytes + 7) / 8;
}

static inline size_t padding_to_word(size_t x)
{
	return (size_t)(-x) & 7;
}

/* Copies a string stream and its zero padding; capacity already reserved. */
static void put_stream(struct ftf_writer *w, const void *s, size_t len)
{
	size_t pad = padding_to_word(len);

	if (len)
		memcpy(w->buf + w->pos, s, len);
	memset(w->buf + w->pos + len, 0, pad);
	w->pos += len + pad;
}

const char *ftf_writer_error(const struct ftf_writer *w)
{
	return w->errmsg;
}

/* ------------------------------------------------------------------ */
/* argument-type templates                                             */
/* ------------------------------------------------------------------ */

#define TEMPLATE_MASK 0xF0FFF0ll /* size bits 4..15, count bits 20..23 */

static inline int64_t tmpl_count(ftf_arg_types t)
{
	return t >> 20;
}

static inline int64_t tmpl_words(ftf_arg_types t)
{
	return (t >> 4) & 0xffff;
}

int ftf_arg_types_create(ftf_arg_types *out, int int64s, int int32s, int bools,
			 int floats, int interned_strings, int inlined_strings)
{
	long n;

	if (int64s < 0 || int32s < 0 || bools < 0 || floats < 0 ||
	    interned_strings < 0 || inlined_strings < 0)
		return -EINVAL;
	n = (long)int64s + int32s + bools + floats + interned_strings +
	    inlined_strings;
	/* This also guards the words, whose bound is much larger. */
	if (n > FTF_MAX_ARGS)
		return -E2BIG;
	*out = FTF_ARG_TYPES(int64s, int32s, bools, floats, interned_strings,
			     inlined_strings);
	return 0;
}

int ftf_arg_types_add_inline_string(ftf_arg_types *t, size_t len)
{
	if (len > FTF_MAX_STRING_LEN)
		return -E2BIG;
	if (tmpl_words(*t) + (int64_t)round_words(len) > MAX_RECORD_WORDS)
		return -E2BIG;
	*t = ftf_arg_types_add_size(*t, (int)round_words(len));
	return 0;
}

ftf_arg_types ftf_arg_types_remove_args(ftf_arg_types t, int int64s, int int32s,
					int bools, int floats,
					int interned_strings,
					int inlined_strings)
{
	return t - FTF_ARG_TYPES(int64s, int32s, bools, floats,
				 interned_strings, inlined_strings);
}

int ftf_arg_types_check_none(ftf_arg_types t, const char **why)
{
	if (t == FTF_ARG_TYPES_NONE)
		return 0;
	if (why)
		*why = t < 0 ? "too many args written for arg type signature"
			     : "not enough args written for arg type signature";
	return -EPROTO;
}

/* ------------------------------------------------------------------ */
/* buffers                                                             */
/* ------------------------------------------------------------------ */

static int check_open(struct ftf_writer *w)
{
	if (w->closed)
		return fail(w, -EBADF, "FTF writer is closed");
	return 0;
}

/* flush: the pending-argument check, then the pending word. A record
 * whose arguments do not match its template is removed. */
static int flush_pending(struct ftf_writer *w)
{
	const char *why;

	if (__builtin_expect(!(w->pending_args | w->pending_word), 1))
		return 0;
	if (ftf_arg_types_check_none(w->pending_args, &why)) {
		w->pos = w->record_start;
		w->pending_args = FTF_ARG_TYPES_NONE;
		w->pending_word = false;
		return fail(w, -EPROTO,
			    "%s (the incomplete record was removed)", why);
	}
	if (w->pending_word) {
		ftf__put64(w, w->word_to_flush);
		w->pending_word = false;
	}
	return 0;
}

int ftf__switch_buffers(struct ftf_writer *w, size_t ensure_capacity)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if (w->closed)
		return fail(w, -EBADF, "FTF writer is closed");
	err = w->dest->next_buf(w->dest, w->pos, ensure_capacity, &buf, &len);
	if (err) {
		const char *m = w->dest->errmsg ? w->dest->errmsg(w->dest) : "";

		return fail(w, err < 0 ? err : -EIO, "destination failed: %s",
			    m && *m ? m : strerror(err < 0 ? -err : EIO));
	}
	w->buf = buf;
	w->pos = 0;
	w->cap = buf ? len : 0;
	w->record_start = 0;
	if (w->cap < ensure_capacity)
		return fail(w, -ENOBUFS,
			    "new buffer too small: %zu bytes < %zu requested",
			    w->cap, ensure_capacity);
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

int ftf_flush(struct ftf_writer *w)
{
	int err = check_open(w);

	return err ? err : flush_pending(w);
}

/* ------------------------------------------------------------------ */
/* creation, header, close                                             */
/* ------------------------------------------------------------------ */

static void free_string_map(struct ftf_writer *w);

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
	free_string_map(w);
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
		fail(w, -EINVAL, "no destination");
		return init_failed(w, NULL);
	}
	n = opts->num_temp_strs < 0 ? FTF_DEFAULT_NUM_TEMP_STRS
				    : opts->num_temp_strs;
	if (n > FTF_MAX_TEMP_STRING_SLOTS) {
		fail(w, -EINVAL, "num_temp_strs too large: %d > %d", n,
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

static int string_slot(struct ftf_writer *w, int id, const char *s, size_t len);

static int write_header(struct ftf_writer *w, const char *provider)
{
	size_t name_len = strlen(provider);
	size_t rsize = 1 + round_words(name_len);
	int err;

	if (name_len > 0xff)
		return fail(w, -E2BIG,
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
	return string_slot(w, FTF_STRING_PROCESS, "process", 7);
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

static void free_string_map(struct ftf_writer *w)
{
	if (!w->string_map)
		return;
	for (int i = 0; i <= FTF_STRING_MAX_ID; i++)
		free(w->string_map[i]);
	free(w->string_map);
	free(w->string_map_len);
	w->string_map = NULL;
	w->string_map_len = NULL;
}

int ftf_writer_close(struct ftf_writer *w)
{
	int err, cerr;

	if (w->closed)
		return fail(w, -EBADF, "FTF writer is closed");
	err = flush_pending(w);
	cerr = w->dest->close(w->dest, w->pos);
	if (cerr) {
		const char *m = w->dest->errmsg ? w->dest->errmsg(w->dest) : "";

		if (!err)
			err = fail(w, cerr < 0 ? cerr : -EIO,
				   "destination close failed: %s",
				   m && *m ? m
					   : strerror(cerr < 0 ? -cerr : EIO));
	}
	w->closed = true;
	w->buf = NULL;
	w->pos = w->cap = w->record_start = 0;
	free_string_map(w);
	w->string_map_enabled = false;
	return err;
}

/* ------------------------------------------------------------------ */
/* strings                                                             */
/* ------------------------------------------------------------------ */

static int check_string_length(struct ftf_writer *w, size_t len)
{
	if (len > FTF_MAX_STRING_LEN)
		return fail(w, -E2BIG,
			    "string too long for FTF trace: %zu is over the "
			    "limit of 32kb",
			    len);
	return 0;
}

static int map_set(struct ftf_writer *w, int id, const void *s, size_t len)
{
	char *copy;

	if (!w->string_map_enabled)
		return 0;
	copy = malloc(len + 1);
	if (!copy)
		return fail(w, -ENOMEM, "out of memory for the string map");
	memcpy(copy, s, len);
	copy[len] = '\0';
	free(w->string_map[id]);
	w->string_map[id] = copy;
	w->string_map_len[id] = (uint16_t)len;
	return 0;
}

/* A string record: header, stream. Checks first, then writes. */
static int string_slot(struct ftf_writer *w, int id, const char *s, size_t len)
{
	size_t rsize = 1 + round_words(len);
	int err;

	err = check_string_length(w, len);
	if (err)
		return err;
	err = ensure_capacity(w, rsize * 8);
	if (err)
		return err;
	err = map_set(w, id, s, len);
	if (err)
		return err;
	ftf__put64(w, 2 | (rsize << 4) | ((uint64_t)id << 16) |
			      ((uint64_t)len << 32));
	put_stream(w, s, len);
	return 0;
}

static int get_slot(struct ftf_writer *w, const char *name, int slot, int first,
		    int max_num)
{
	if (slot >= max_num)
		return fail(w, -EINVAL, "%s over the limit: %d >= %d", name,
			    slot, max_num);
	if (slot < 0)
		return fail(w, -EINVAL, "%s must not be negative: slot %d < 0",
			    name, slot);
	return slot + first;
}

int ftf_set_temp_string_slot_len(struct ftf_writer *w, int slot, const char *s,
				 size_t len)
{
	int id = get_slot(w, "temp string slot", slot, FTF_STRING_FIRST_TEMP,
			  w->num_temp_strs);
	int err;

	if (id < 0)
		return id;
	err = string_slot(w, id, s, len);
	return err ? err : id;
}

int ftf_set_temp_string_slot(struct ftf_writer *w, int slot, const char *s)
{
	return ftf_set_temp_string_slot_len(w, slot, s, strlen(s));
}

int ftf_num_temp_strs(const struct ftf_writer *w)
{
	return w->num_temp_strs;
}

int ftf_intern_string_len(struct ftf_writer *w, const char *s, size_t len)
{
	int id, err;

	err = check_open(w);
	if (err)
		return err;
	/* An easy mistake to make, so a specific message. */
	if (w->pending_args != FTF_ARG_TYPES_NONE)
		return fail(w, -EPROTO,
			    "can't intern strings while you still need to "
			    "write arguments");
	id = w->next_string_id;
	if (id > FTF_STRING_MAX_ID)
		return fail(w, -ENOSPC, "ran out of FTF string IDs");
	err = string_slot(w, id, s, len);
	if (err)
		return err;
	w->next_string_id++;
	return id;
}

int ftf_intern_string(struct ftf_writer *w, const char *s)
{
	return ftf_intern_string_len(w, s, strlen(s));
}

int ftf_set_dyn_slot(struct ftf_writer *w, int slot, const char *s)
{
	int id = get_slot(w, "dynamic string slot", slot, FTF_STRING_FIRST_DYN,
			  FTF_STRING_NUM_DYN);
	int err;

	if (id < 0)
		return id;
	err = string_slot(w, id, s, strlen(s));
	return err ? err : id;
}

int ftf_set_dyn_slot_2_int64s(struct ftf_writer *w, int slot, uint64_t word1,
			      uint64_t word2)
{
	int id = get_slot(w, "dynamic string slot", slot, FTF_STRING_FIRST_DYN,
			  FTF_STRING_NUM_DYN);
	uint64_t words[2] = {word1, word2};
	int err;

	if (id < 0)
		return id;
	err = ensure_capacity(w, 24);
	if (err)
		return err;
	err = map_set(w, id, words, 16);
	if (err)
		return err;
	ftf__put64(w, 2 | (3ull << 4) | ((uint64_t)id << 16) | (16ull << 32));
	ftf__put64(w, word1);
	ftf__put64(w, word2);
	return id;
}

int ftf_set_string_slot(struct ftf_writer *w, int slot, const char *s)
{
	int err;

	if (slot <= 0)
		return fail(w, -EINVAL,
			    "string slot must be positive: slot %d <= 0", slot);
	if (slot > FTF_STRING_MAX_ID)
		return fail(w, -EINVAL, "string slot over the limit: %d > %d",
			    slot, FTF_STRING_MAX_ID);
	if (slot == FTF_STRING_PROCESS) {
		if (strcmp(s, "process") != 0)
			return fail(w, -EINVAL,
				    "tried to overwrite the slot for the "
				    "process string");
		return slot;
	}
	err = string_slot(w, slot, s, strlen(s));
	return err ? err : slot;
}

int ftf_set_string_map(struct ftf_writer *w, bool enable)
{
	if (enable && !w->string_map) {
		w->string_map = calloc(FTF_STRING_MAX_ID + 1, sizeof(char *));
		w->string_map_len =
			calloc(FTF_STRING_MAX_ID + 1, sizeof(uint16_t));
		if (!w->string_map || !w->string_map_len) {
			free(w->string_map);
			free(w->string_map_len);
			w->string_map = NULL;
			w->string_map_len = NULL;
			return fail(w, -ENOMEM,
				    "out of memory for the string map");
		}
	}
	w->string_map_enabled = enable;
	return 0;
}

const char *ftf_string_of_string_id(const struct ftf_writer *w, int id,
				    size_t *len)
{
	if (!w->string_map_enabled || !w->string_map || id < 0 ||
	    id > FTF_STRING_MAX_ID || !w->string_map[id])
		return NULL;
	if (len)
		*len = w->string_map_len[id];
	return w->string_map[id];
}

int ftf_write_string_stream(struct ftf_writer *w, const char *s, size_t len)
{
	int err = check_string_length(w, len);

	if (err)
		return err;
	err = ensure_capacity(w, len + padding_to_word(len));
	if (err)
		return err;
	put_stream(w, s, len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* threads, kernel objects, tick initialization                        */
/* ------------------------------------------------------------------ */

static int check_string_id(struct ftf_writer *w, const char *what, int id)
{
	if (id < 0 || id > FTF_STRING_MAX_ID)
		return fail(w, -EINVAL, "%s string id out of range: %d", what,
			    id);
	return 0;
}

static int check_thread_ref(struct ftf_writer *w, int thread)
{
	if (thread < 1 || thread > 255)
		return fail(w, -EINVAL,
			    "thread ref outside of valid range [1,255]: %d",
			    thread);
	return 0;
}

int ftf_set_thread_slot(struct ftf_writer *w, int slot, uint64_t pid,
			uint64_t tid)
{
	int ref = slot + 1;
	int err;

	if (slot < 0 || slot > FTF_MAX_THREAD_SLOT)
		return fail(w, -EINVAL,
			    "thread slot outside of valid range [0,254]: %d",
			    slot);
	err = ensure_capacity(w, 24);
	if (err)
		return err;
	ftf__put64(w, 3 | (3ull << 4) | ((uint64_t)ref << 16));
	ftf__put64(w, pid);
	ftf__put64(w, tid);
	return ref;
}

int ftf_set_process_name(struct ftf_writer *w, uint64_t pid, int name)
{
	int err = check_string_id(w, "process name", name);

	if (err)
		return err;
	err = ensure_capacity(w, 16);
	if (err)
		return err;
	ftf__put64(w, 7 | (2ull << 4) | (1ull << 16) | ((uint64_t)name << 24) |
			      (0ull << 40));
	ftf__put64(w, pid);
	return 0;
}

int ftf_set_thread_name(struct ftf_writer *w, uint64_t pid, uint64_t tid,
			int name)
{
	int err = check_string_id(w, "thread name", name);

	if (err)
		return err;
	err = ensure_capacity(w, 32);
	if (err)
		return err;
	ftf__put64(w, 7 | (4ull << 4) | (2ull << 16) | ((uint64_t)name << 24) |
			      (1ull << 40));
	ftf__put64(w, tid);
	/* Perfetto needs the thread's process as a koid argument. */
	ftf__put64(w, 8 | (2ull << 4) | ((uint64_t)FTF_STRING_PROCESS << 16));
	ftf__put64(w, pid);
	return 0;
}

int ftf_write_tick_initialization(struct ftf_writer *w,
				  const struct ftf_tick_translation *tt)
{
	int err = ensure_capacity(w, 32);

	if (err)
		return err;
	ftf__put64(w, 1 | (4ull << 4));
	ftf__put64(w, tt->ticks_per_second);
	ftf__put64(w, tt->base_ticks);
	ftf__put64(w, (uint64_t)tt->base_time_ns);
	return 0;
}

int ftf_make_and_write_tick_translation(struct ftf_writer *w)
{
	struct ftf_tick_translation tt;

	ftf_clock_translation(w->clock, ftf_clock_now(w->clock), &tt);
	return ftf_write_tick_initialization(w, &tt);
}

int ftf__refresh_and_write_tick_init(struct ftf_writer *w, uint64_t now)
{
	struct ftf_tick_translation tt;
	int err;

	if (w->closed)
		return check_open(w);
	/* One switch with room for the tick init (the seed asks for 1 byte
	 * and may switch again). */
	err = ftf__switch_buffers(w, 32);
	if (err)
		return err;
	w->cur_buf_ticks = now;
	ftf_clock_translation(w->clock, now, &tt);
	ftf__put64(w, 1 | (4ull << 4));
	ftf__put64(w, tt.ticks_per_second);
	ftf__put64(w, tt.base_ticks);
	ftf__put64(w, (uint64_t)tt.base_time_ns);
	return 0;
}

int ftf_refresh_buf_if_stale(struct ftf_writer *w, uint64_t now)
{
	int err = check_open(w);

	if (err)
		return err;
	if (!w->refresh_buf_at_intervals ||
	    !(now - w->cur_buf_ticks > w->refresh_every_ticks))
		return 0;
	/* A checked caller may have a pending word: settle it first. */
	err = ftf_flush(w);
	if (err)
		return err;
	return ftf__refresh_and_write_tick_init(w, now);
}

/* ------------------------------------------------------------------ */
/* events                                                              */
/* ------------------------------------------------------------------ */

static int check_template(struct ftf_writer *w, ftf_arg_types t,
			  int fixed_words)
{
	if (t < 0 || (t & ~TEMPLATE_MASK))
		return fail(w, -EINVAL, "invalid arg types 0x%llx",
			    (unsigned long long)t);
	if (tmpl_words(t) + fixed_words > MAX_RECORD_WORDS)
		return fail(w, -E2BIG, "record too large: %lld words > %d",
			    (long long)(tmpl_words(t) + fixed_words),
			    MAX_RECORD_WORDS);
	return 0;
}

static inline uint64_t event_header(ftf_arg_types counts, int event_type,
				    int thread, int category, int name)
{
	return 4 | (uint64_t)counts | ((uint64_t)event_type << 16) |
	       ((uint64_t)thread << 24) | ((uint64_t)category << 32) |
	       ((uint64_t)name << 48);
}

/* Validates, reserves the whole record, writes header and timestamp, and
 * leaves the arguments pending. (Also the slow half of the header's inline
 * ftf__write_event_fast.) */
int ftf__write_event(struct ftf_writer *w, int event_type, int extra_words,
		       ftf_arg_types arg_types, int thread, int category,
		       int name, uint64_t ticks)
{
	ftf_arg_types counts;
	int err;

	if (__builtin_expect(w->closed, 0))
		return check_open(w);
	if (__builtin_expect(arg_types < 0 || (arg_types & ~TEMPLATE_MASK) ||
				     tmpl_words(arg_types) + 2 + extra_words >
					     MAX_RECORD_WORDS ||
				     thread < 1 || thread > 255 ||
				     (unsigned)category > FTF_STRING_MAX_ID ||
				     (unsigned)name > FTF_STRING_MAX_ID,
			     0)) {
		if ((err = check_template(w, arg_types, 2 + extra_words)) ||
		    (err = check_thread_ref(w, thread)) ||
		    (err = check_string_id(w, "category", category)) ||
		    (err = check_string_id(w, "name", name)))
			return err;
	}
	counts = ftf_arg_types_add_size(arg_types, 2 + extra_words);
	err = ensure_capacity(w, ftf_arg_types_byte_size(counts));
	if (err)
		return err;
	{
		uint8_t *p = w->buf + w->pos;

		w->record_start = w->pos;
		w->pos += 16;
		w->pending_args = arg_types;
		ftf__store64(p, event_header(counts, event_type, thread,
					     category, name));
		ftf__store64(p + 8, ticks);
	}
	return 0;
}

/* (also the slow half of the header's inline duration complete) */
int ftf__write_event_word(struct ftf_writer *w, int event_type,
			  ftf_arg_types arg_types, int thread, int category,
			  int name, uint64_t ticks, uint64_t word)
{
	int err = ftf__write_event(w, event_type, 1, arg_types, thread, category,
			      name, ticks);

	if (err)
		return err;
	w->word_to_flush = word;
	w->pending_word = true;
	return 0;
}

int ftf_write_instant(struct ftf_writer *w, ftf_arg_types arg_types, int thread,
		      int category, int name, uint64_t ticks)
{
	return ftf__write_event(w, FTF_EVENT_INSTANT, 0, arg_types, thread, category,
			   name, ticks);
}

int ftf_write_counter(struct ftf_writer *w, ftf_arg_types arg_types, int thread,
		      int category, int name, uint64_t ticks,
		      uint64_t counter_id)
{
	return ftf__write_event_word(w, FTF_EVENT_COUNTER, arg_types, thread,
				category, name, ticks, counter_id);
}

int ftf_write_duration_begin(struct ftf_writer *w, ftf_arg_types arg_types,
			     int thread, int category, int name, uint64_t ticks)
{
	return ftf__write_event(w, FTF_EVENT_DURATION_BEGIN, 0, arg_types, thread,
			   category, name, ticks);
}

int ftf_write_duration_end(struct ftf_writer *w, ftf_arg_types arg_types,
			   int thread, int category, int name, uint64_t ticks)
{
	return ftf__write_event(w, FTF_EVENT_DURATION_END, 0, arg_types, thread,
			   category, name, ticks);
}

int ftf__duration_complete_checked(struct ftf_writer *w,
				   ftf_arg_types arg_types, int thread,
				   int category, int name, uint64_t ticks,
				   uint64_t ticks_end);

int ftf_write_duration_complete(struct ftf_writer *w, ftf_arg_types arg_types,
				int thread, int category, int name,
				uint64_t ticks, uint64_t ticks_end)
{
	return ftf__duration_complete_checked(w, arg_types, thread, category,
					      name, ticks, ticks_end);
}

/* (also the slow half of the header's inline duration complete) */
int ftf__duration_complete_checked(struct ftf_writer *w,
				   ftf_arg_types arg_types, int thread,
				   int category, int name, uint64_t ticks,
				   uint64_t ticks_end)
{
	if (ticks_end < ticks)
		return fail(w, -EINVAL,
			    "duration_complete event must have end tick (%llu) "
			    ">= start tick (%llu)",
			    (unsigned long long)ticks_end,
			    (unsigned long long)ticks);
	return ftf__write_event_word(w, FTF_EVENT_DURATION_COMPLETE, arg_types,
				thread, category, name, ticks, ticks_end);
}

int ftf_write_async_begin(struct ftf_writer *w, ftf_arg_types arg_types,
			  int thread, int category, int name, uint64_t ticks,
			  uint64_t async_id)
{
	return ftf__write_event_word(w, FTF_EVENT_ASYNC_BEGIN, arg_types, thread,
				category, name, ticks, async_id);
}

int ftf_write_async_instant(struct ftf_writer *w, ftf_arg_types arg_types,
			    int thread, int category, int name, uint64_t ticks,
			    uint64_t async_id)
{
	return ftf__write_event_word(w, FTF_EVENT_ASYNC_INSTANT, arg_types, thread,
				category, name, ticks, async_id);
}

int ftf_write_async_end(struct ftf_writer *w, ftf_arg_types arg_types,
			int thread, int category, int name, uint64_t ticks,
			uint64_t async_id)
{
	return ftf__write_event_word(w, FTF_EVENT_ASYNC_END, arg_types, thread,
				category, name, ticks, async_id);
}

/* Flows: empty category and name, no arguments (Perfetto ignores them). */
static int write_flow(struct ftf_writer *w, int event_type, int thread,
		      uint64_t ticks, uint64_t flow_id)
{
	int err = ftf__write_event(w, event_type, 1, FTF_ARG_TYPES_NONE, thread,
			      FTF_STRING_EMPTY, FTF_STRING_EMPTY, ticks);

	if (err)
		return err;
	ftf__put64(w, flow_id);
	return 0;
}

int ftf_write_flow_begin(struct ftf_writer *w, int thread, uint64_t ticks,
			 uint64_t flow_id)
{
	return write_flow(w, FTF_EVENT_FLOW_BEGIN, thread, ticks, flow_id);
}

int ftf_write_flow_step(struct ftf_writer *w, int thread, uint64_t ticks,
			uint64_t flow_id)
{
	return write_flow(w, FTF_EVENT_FLOW_STEP, thread, ticks, flow_id);
}

int ftf_write_flow_end(struct ftf_writer *w, int thread, uint64_t ticks,
		       uint64_t flow_id)
{
	return write_flow(w, FTF_EVENT_FLOW_END, thread, ticks, flow_id);
}

/* ------------------------------------------------------------------ */
/* scheduling, provider events, logs                                   */
/* ------------------------------------------------------------------ */

/* Scheduling records carry the argument count in bits 16..19 rather
 * than 20..23; the template still drives the pending-argument check. */
/* The slow half of the header's inline ftf_reserve_record(). */
int ftf__reserve_record_slow(struct ftf_writer *w, size_t words,
			     uint8_t **out)
{
	int err;

	if (w->closed)
		return check_open(w);
	if (words > MAX_RECORD_WORDS || words == 0)
		return fail(w, -EINVAL, "record of %zu words (1..%d)", words,
			    MAX_RECORD_WORDS);
	/* settles an owed word; arguments still pending are an error */
	err = ensure_capacity(w, words * 8);
	if (err)
		return err;
	*out = w->buf + w->pos;
	w->record_start = w->pos;
	w->pos += words * 8;
	return 0;
}

/* (also the slow half of the header's inline sched records) */
int ftf__write_sched(struct ftf_writer *w, ftf_arg_types arg_types,
		     int fixed_words, uint64_t subtype_bits,
		     const uint64_t *words, int nwords)
{
	uint64_t size;
	int err;

	if (w->closed)
		return check_open(w);
	err = check_template(w, arg_types, fixed_words);
	if (err)
		return err;
	size = (uint64_t)tmpl_words(arg_types) + (uint64_t)fixed_words;
	err = ensure_capacity(w, size * 8);
	if (err)
		return err;
	w->record_start = w->pos;
	w->pending_args = arg_types;
	ftf__put64(w, 8 | (size << 4) |
			      ((uint64_t)tmpl_count(arg_types) << 16) |
			      subtype_bits);
	for (int i = 0; i < nwords; i++)
		ftf__put64(w, words[i]);
	return 0;
}

int ftf__bad_thread_state(struct ftf_writer *w, int state)
{
	return fail(w, -EINVAL, "thread state out of range: %d", state);
}

int ftf_write_context_switch(struct ftf_writer *w, ftf_arg_types arg_types,
			     uint16_t cpu, enum ftf_thread_state out_state,
			     uint64_t out_koid, uint64_t in_koid,
			     uint64_t ticks)
{
	uint64_t words[3] = {ticks, out_koid, in_koid};

	if ((unsigned)out_state > 0xf)
		return ftf__bad_thread_state(w, (int)out_state);
	return ftf__write_sched(w, arg_types, 4,
			   ((uint64_t)cpu << 20) | ((uint64_t)out_state << 36) |
				   (1ull << 60),
			   words, 3);
}

int ftf_write_thread_wakeup(struct ftf_writer *w, ftf_arg_types arg_types,
			    uint16_t cpu, uint64_t waking_koid, uint64_t ticks)
{
	uint64_t words[2] = {ticks, waking_koid};

	return ftf__write_sched(w, arg_types, 3,
			   ((uint64_t)cpu << 20) | (2ull << 60), words, 2);
}

int ftf_write_provider_event_dropped(struct ftf_writer *w, uint32_t provider_id)
{
	int err = ensure_capacity(w, 8);

	if (err)
		return err;
	ftf__put64(w, 0 | (1ull << 4) | (3ull << 16) |
			      ((uint64_t)provider_id << 20) | (0ull << 52));
	return 0;
}

int ftf_write_log(struct ftf_writer *w, int thread, uint64_t ticks,
		  const char *msg, size_t len)
{
	size_t rsize = 2 + round_words(len);
	int err;

	if (w->closed)
		return check_open(w);
	if ((err = check_thread_ref(w, thread)) ||
	    (err = check_string_length(w, len)))
		return err;
	err = ensure_capacity(w, rsize * 8);
	if (err)
		return err;
	ftf__put64(w, 9 | (rsize << 4) | ((uint64_t)len << 16) |
			      ((uint64_t)thread << 32));
	ftf__put64(w, ticks);
	put_stream(w, msg, len);
	return 0;
}

int ftf_write_blob(struct ftf_writer *w, int name, unsigned blob_type,
		   const void *payload, size_t len)
{
	size_t rsize = 1 + round_words(len);
	int err;

	if (w->closed)
		return check_open(w);
	if (len > FTF_MAX_BLOB_LEN)
		return fail(w, -E2BIG, "blob of %zu bytes: at most %d fit a record",
			    len, FTF_MAX_BLOB_LEN);
	if (blob_type > 255)
		return fail(w, -EINVAL, "blob type %u: at most 255", blob_type);
	if ((err = check_string_id(w, "blob name", name)))
		return err;
	err = ensure_capacity(w, rsize * 8);
	if (err)
		return err;
	ftf__put64(w, 5 | (rsize << 4) | ((uint64_t)(uint16_t)name << 16) |
			      ((uint64_t)len << 32) |
			      ((uint64_t)blob_type << 48));
	put_stream(w, payload, len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* arguments                                                           */
/* ------------------------------------------------------------------ */

static inline uint64_t arg_word(int type, int size, int name)
{
	return (uint64_t)type | ((uint64_t)size << 4) |
	       ((uint64_t)(uint16_t)name << 16);
}

static inline void u_int32(struct ftf_writer *w, int name, int32_t value)
{
	ftf__put64(w, arg_word(1, 1, name) | ((uint64_t)(uint32_t)value << 32));
}

static inline void u_uint32(struct ftf_writer *w, int name, uint32_t value)
{
	ftf__put64(w, arg_word(2, 1, name) | ((uint64_t)value << 32));
}

static inline void arg_word2(struct ftf_writer *w, int type, int name,
			     uint64_t value)
{
	uint8_t *p = w->buf + w->pos;

	w->pos += 16;
	ftf__store64(p, arg_word(type, 2, name));
	ftf__store64(p + 8, value);
}

static inline void u_int64(struct ftf_writer *w, int name, int64_t value)
{
	arg_word2(w, 3, name, (uint64_t)value);
}

static inline void u_uint64(struct ftf_writer *w, int name, uint64_t value)
{
	arg_word2(w, 4, name, value);
}

static inline void u_float(struct ftf_writer *w, int name, double value)
{
	uint64_t bits;

	memcpy(&bits, &value, 8);
	arg_word2(w, 5, name, bits);
}

static inline void u_string(struct ftf_writer *w, int name, int value)
{
	ftf__put64(w, arg_word(6, 1, name) | ((uint64_t)(uint16_t)value << 32));
}

static inline void u_pointer(struct ftf_writer *w, int name, uint64_t value)
{
	arg_word2(w, 7, name, value);
}

static inline void u_koid(struct ftf_writer *w, int name, uint64_t value)
{
	arg_word2(w, 8, name, value);
}

static inline void u_bool(struct ftf_writer *w, int name, bool value)
{
	ftf__put64(w, arg_word(9, 1, name) | ((uint64_t) !!value << 32));
}

void ftf_arg_unchecked_int32(struct ftf_writer *w, int name, int32_t value)
{
	u_int32(w, name, value);
}

void ftf_arg_unchecked_int64(struct ftf_writer *w, int name, int64_t value)
{
	u_int64(w, name, value);
}

void ftf_arg_unchecked_uint64(struct ftf_writer *w, int name, uint64_t value)
{
	u_uint64(w, name, value);
}

void ftf_arg_unchecked_float(struct ftf_writer *w, int name, double value)
{
	u_float(w, name, value);
}

void ftf_arg_unchecked_string(struct ftf_writer *w, int name, int value)
{
	u_string(w, name, value);
}

void ftf_arg_unchecked_pointer(struct ftf_writer *w, int name, uint64_t value)
{
	u_pointer(w, name, value);
}

void ftf_arg_unchecked_koid(struct ftf_writer *w, int name, uint64_t value)
{
	u_koid(w, name, value);
}

void ftf_arg_unchecked_bool(struct ftf_writer *w, int name, bool value)
{
	u_bool(w, name, value);
}

int ftf_arg_unchecked_inline_string(struct ftf_writer *w, int name,
				    const char *value, size_t len)
{
	int err = check_string_length(w, len);

	if (err)
		return err;
	ftf__put64(w, arg_word(6, 1 + (int)round_words(len), name) |
			      ((uint64_t)(len | 0x8000) << 32));
	put_stream(w, value, len);
	return 0;
}

/*
 * The checked half: the argument must fit what is still pending, both in
 * count and in words, or it is refused (too many) and nothing is written.
 */
static int take_arg(struct ftf_writer *w, int name, int words,
		    ftf_arg_types one)
{
	if (__builtin_expect(w->closed, 0))
		return check_open(w);
	if (__builtin_expect(tmpl_count(w->pending_args) < 1 ||
				     tmpl_words(w->pending_args) < words,
			     0))
		return fail(w, -EPROTO,
			    "too many args written for arg type signature");
	if (__builtin_expect((unsigned)name > FTF_STRING_MAX_ID, 0))
		return fail(w, -EINVAL, "arg name string id out of range: %d",
			    name);
	w->pending_args -= one;
	return 0;
}

#define ONE_WORD_ARG FTF_ARG_TYPES(0, 1, 0, 0, 0, 0)
#define TWO_WORD_ARG FTF_ARG_TYPES(1, 0, 0, 0, 0, 0)

/* The slow half of the header's inline ftf__arg_put. */
int ftf__take_arg(struct ftf_writer *w, int name, int words)
{
	return take_arg(w, name, words, words == 1 ? ONE_WORD_ARG : TWO_WORD_ARG);
}

int ftf_arg_int32(struct ftf_writer *w, int name, int32_t value)
{
	int err = take_arg(w, name, 1, ONE_WORD_ARG);

	if (!err)
		u_int32(w, name, value);
	return err;
}

int ftf_arg_uint32(struct ftf_writer *w, int name, uint32_t value)
{
	int err = take_arg(w, name, 1, ONE_WORD_ARG);

	if (!err)
		u_uint32(w, name, value);
	return err;
}

int ftf_arg_int64(struct ftf_writer *w, int name, int64_t value)
{
	int err = take_arg(w, name, 2, TWO_WORD_ARG);

	if (!err)
		u_int64(w, name, value);
	return err;
}

int ftf_arg_uint64(struct ftf_writer *w, int name, uint64_t value)
{
	int err = take_arg(w, name, 2, TWO_WORD_ARG);

	if (!err)
		u_uint64(w, name, value);
	return err;
}

int ftf_arg_pointer(struct ftf_writer *w, int name, uint64_t value)
{
	int err = take_arg(w, name, 2, TWO_WORD_ARG);

	if (!err)
		u_pointer(w, name, value);
	return err;
}

int ftf_arg_koid(struct ftf_writer *w, int name, uint64_t value)
{
	int err = take_arg(w, name, 2, TWO_WORD_ARG);

	if (!err)
		u_koid(w, name, value);
	return err;
}

int ftf_arg_float(struct ftf_writer *w, int name, double value)
{
	int err = take_arg(w, name, 2, TWO_WORD_ARG);

	if (!err)
		u_float(w, name, value);
	return err;
}

int ftf_arg_bool(struct ftf_writer *w, int name, bool value)
{
	int err = take_arg(w, name, 1, ONE_WORD_ARG);

	if (!err)
		u_bool(w, name, value);
	return err;
}

int ftf_arg_string(struct ftf_writer *w, int name, int value)
{
	int err;

	if ((unsigned)value > FTF_STRING_MAX_ID)
		return fail(w, -EINVAL, "string arg value id out of range: %d",
			    value);
	err = take_arg(w, name, 1, ONE_WORD_ARG);
	if (!err)
		u_string(w, name, value);
	return err;
}

int ftf_arg_inline_string(struct ftf_writer *w, int name, const char *value,
			  size_t len)
{
	int words = 1 + (int)round_words(len);
	int err = check_string_length(w, len);

	if (err)
		return err;
	err = take_arg(w, name, words,
		       ftf_arg_types_add_size(ONE_WORD_ARG, words - 1));
	if (err)
		return err;
	return ftf_arg_unchecked_inline_string(w, name, value, len);
}

/* ------------------------------------------------------------------ */
/* the expert API                                                      */
/* ------------------------------------------------------------------ */

uint64_t ftf_precompute_header(enum ftf_event_type event_type, int extra_words,
			       ftf_arg_types arg_types, int thread,
			       int category, int name)
{
	ftf_arg_types counts;
	uint64_t header;

	if (arg_types < 0 || (arg_types & ~TEMPLATE_MASK) || extra_words < 0 ||
	    tmpl_words(arg_types) + 2 + extra_words > MAX_RECORD_WORDS ||
	    (unsigned)event_type > 0xf || (unsigned)thread > 255 ||
	    (unsigned)category > 0xffff || (unsigned)name > 0xffff)
		return 0;
	counts = ftf_arg_types_add_size(arg_types, 2 + extra_words);
	header = event_header(counts, event_type, thread, category, name);
	/* The fast path writes 16 bytes unchecked. */
	if (ftf_header_byte_size(header) < 16)
		return 0;
	return header;
}

int ftf_header_update_size_for_inline_string(uint64_t *header, size_t len)
{
	uint64_t cur = (*header & 0xFFF0) >> 4;
	uint64_t add = round_words(len);

	if (len > FTF_MAX_STRING_LEN || cur + add >= (1u << 12))
		return -E2BIG;
	*header = (*header & ~0xFFF0ull) | ((cur + add) << 4);
	return 0;
}

int ftf_header_update_size_for_name(uint64_t *header, size_t len)
{
	uint64_t h = *header;
	int err = ftf_header_update_size_for_inline_string(&h, len);

	if (err)
		return err;
	h &= ~(0xffffull << 48);
	h |= (uint64_t)(len | 0x8000) << 48;
	*header = h;
	return 0;
}

int ftf_set_destination(struct ftf_writer *w, struct ftf_destination *dest)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	if ((err = check_open(w)) || (err = ftf_flush(w)))
		return err;
	if (!dest || !dest->next_buf || !dest->close)
		return fail(w, -EINVAL, "no destination");
	/* Commit what the old destination's buffer holds; the caller closes
	 * the old destination (close(d, 0)). */
	err = ftf__switch_buffers(w, 0);
	if (err)
		return err;
	err = dest->next_buf(dest, 0, 0, &buf, &len);
	if (err) {
		const char *m = dest->errmsg ? dest->errmsg(dest) : "";

		return fail(w, err < 0 ? err : -EIO,
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
