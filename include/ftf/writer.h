/* SPDX-License-Identifier: MIT */
/*
 * ftf/writer.h - libftf's Fuchsia Trace Format writer.
 *
 * A C port of Jane Street's OCaml writer (tracing's writer.ml). The names
 * mirror the OCaml ones: Arg_types / Header_template -> ftf_arg_types,
 * write_duration_begin -> ftf_write_duration_begin, Expert.* -> the
 * "expert" section below, Write_arg.* -> ftf_arg_*, Write_arg_unchecked.*
 * -> ftf_arg_unchecked_*.
 *
 * Error model: every call that can fail returns 0 (or a non-negative id)
 * on success and a negative errno-style code on failure; the writer then
 * keeps a message (ftf_writer_error()) whose meaning matches the OCaml
 * failwith text. A failed call writes nothing. The library never calls
 * abort() or exit() and allocates nothing on the per-event path.
 *
 * Error codes used:
 *   -EINVAL   bad argument (slot out of range, end before start, ...)
 *   -E2BIG    over a format limit (15 args, 32 KB string, record size)
 *   -ENOSPC   out of string ids
 *   -EPROTO   arguments written do not match the declared arg types
 *   -ENOBUFS  the destination's new buffer is smaller than requested
 *   -EBADF    the writer is closed
 *   -EIO, ... whatever the destination returned (e.g. -ENOSPC from a full
 *             disk comes back as the destination's code)
 */
#ifndef FTF_WRITER_H
#define FTF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/clock.h"

/* ------------------------------------------------------------------ */
/* Argument-type templates (Header_template / Arg_types)               */
/* ------------------------------------------------------------------ */

/*
 * A template folds declared argument counts into the event header's size
 * field (bits 4..15, in words) and argument-count field (bits 20..23).
 * 8-byte arguments (int64, uint64, pointer, koid, float) take 2 words,
 * the others 1 word (plus, for inline strings, their string words, added
 * with ftf_arg_types_add_inline_string()).
 *
 * Like the OCaml int, a template is a plain integer that can be summed and
 * subtracted: the pending-argument check subtracts each written argument
 * and expects to reach exactly 0.
 */
typedef int64_t ftf_arg_types;

#define FTF_ARG_TYPES_NONE ((ftf_arg_types)0)
#define FTF_MAX_ARGS 15

/* Unchecked compile-time form; use ftf_arg_types_create() for checking. */
#define FTF_ARG_TYPES(int64s, int32s, bools, floats, interned, inlined)        \
	((ftf_arg_types)(((2 * (int64s) + 2 * (floats) + (int32s) + (bools) +  \
			   (interned) + (inlined))                             \
			  << 4) |                                              \
			 (((int64s) + (int32s) + (bools) + (floats) +          \
			   (interned) + (inlined))                             \
			  << 20)))

/* Header_template.create: -E2BIG if more than 15 arguments, -EINVAL if a
 * count is negative. int64s counts every 8-byte argument (int64, uint64,
 * pointer, kernel object id). */
int ftf_arg_types_create(ftf_arg_types *out, int int64s, int int32s,
			 int bools, int floats, int interned_strings,
			 int inlined_strings);

/* Adds the words of one inline string value of `len` bytes to a template
 * that declares it among its inlined_strings (C extension: the OCaml
 * checked path had no way to size inline strings). -E2BIG if too long. */
int ftf_arg_types_add_inline_string(ftf_arg_types *t, size_t len);

/* Header_template.add_size: adds `words` to the size field. */
static inline ftf_arg_types ftf_arg_types_add_size(ftf_arg_types t, int words)
{
	return t + ((ftf_arg_types)words << 4);
}

/* Header_template.byte_size: the size field as bytes. */
static inline size_t ftf_arg_types_byte_size(ftf_arg_types t)
{
	return (size_t)((t & 0xFFF0) >> 1);
}

/* Header_template.remove_args: t minus the template of the given counts. */
ftf_arg_types ftf_arg_types_remove_args(ftf_arg_types t, int int64s,
					int int32s, int bools, int floats,
					int interned_strings,
					int inlined_strings);

/* Header_template.check_none: 0 if t is none; else -EPROTO with *why set to
 * "too many args written for arg type signature" or "not enough args
 * written for arg type signature". */
int ftf_arg_types_check_none(ftf_arg_types t, const char **why);

/* ------------------------------------------------------------------ */
/* Destinations                                                        */
/* ------------------------------------------------------------------ */

/*
 * Where the bytes go. The writer fills one buffer at a time and asks for
 * the next one only between whole records, so a destination receives
 * whole records only (except through ftf_write_bytes()).
 *
 * next_buf: the writer is done with the current buffer, of which it filled
 *   `used` bytes (0 and buf NULL the first time); commit them and return a
 *   buffer of at least `ensure_capacity` bytes in *buf / *len. Returns 0 or
 *   a negative errno (e.g. -ENOSPC for a full disk). Returning a buffer
 *   shorter than ensure_capacity makes the writer fail with -ENOBUFS "new
 *   buffer too small".
 * close: commit the last `used` bytes and release everything. Returns 0 or
 *   a negative errno. Called once.
 * errmsg: optional; a message for the last failure ("" if none).
 */
struct ftf_destination {
	int (*next_buf)(struct ftf_destination *d, size_t used,
			size_t ensure_capacity, uint8_t **buf, size_t *len);
	int (*close)(struct ftf_destination *d, size_t used);
	const char *(*errmsg)(struct ftf_destination *d);
};

/* ------------------------------------------------------------------ */
/* The writer                                                          */
/* ------------------------------------------------------------------ */

enum ftf_event_type {
	FTF_EVENT_INSTANT = 0,
	FTF_EVENT_COUNTER = 1,
	FTF_EVENT_DURATION_BEGIN = 2,
	FTF_EVENT_DURATION_END = 3,
	FTF_EVENT_DURATION_COMPLETE = 4,
	FTF_EVENT_ASYNC_BEGIN = 5,
	FTF_EVENT_ASYNC_INSTANT = 6,
	FTF_EVENT_ASYNC_END = 7,
	FTF_EVENT_FLOW_BEGIN = 8,
	FTF_EVENT_FLOW_STEP = 9,
	FTF_EVENT_FLOW_END = 10,
};

/* Thread states of context-switch records. */
enum ftf_thread_state {
	FTF_THREAD_NEW = 0,
	FTF_THREAD_RUNNING = 1,
	FTF_THREAD_SUSPENDED = 2,
	FTF_THREAD_BLOCKED = 3,
	FTF_THREAD_DYING = 4,
	FTF_THREAD_DEAD = 5,
};

/* The string table (String_id). */
#define FTF_STRING_EMPTY 0
#define FTF_STRING_PROCESS 1
#define FTF_STRING_FIRST_DYN 2
#define FTF_STRING_FIRST_TEMP 20
#define FTF_STRING_NUM_DYN (FTF_STRING_FIRST_TEMP - FTF_STRING_FIRST_DYN)
#define FTF_STRING_MAX_ID 0x7fff
#define FTF_MAX_TEMP_STRING_SLOTS (FTF_STRING_MAX_ID - FTF_STRING_FIRST_TEMP + 1)
#define FTF_DEFAULT_NUM_TEMP_STRS 100
/* Longest string: 32000 - 1 bytes (the spec's limit, a bit under 2^15). */
#define FTF_MAX_STRING_LEN (32000 - 1)

#define FTF_MAX_THREAD_SLOT 254 /* slots 0..254 -> thread refs 1..255 */

#define FTF_DEFAULT_PROVIDER_NAME "jane_tracing"
#define FTF_REFRESH_NS 1000000000ull /* new buffer + tick init every 1 s */

struct ftf_writer_options {
	/* Provider name in the provider-info record; NULL: "jane_tracing". */
	const char *provider_name;
	/* Temporary string slots; < 0: 100. More than 32748 is an error. */
	int num_temp_strs;
	/* Every FTF_REFRESH_NS, start a new buffer and re-emit the tick
	 * initialization (the seed's refresh_buf_at_intervals). */
	bool no_refresh_buf_at_intervals;
	/* The tick source. NULL: the writer calibrates its own TSC clock.
	 * The writer keeps the pointer; it must outlive the writer. */
	const struct ftf_clock *clock;
};

/*
 * The writer's state. Its fields are visible only so the expert fast path
 * can be inlined; treat them as private.
 */
struct ftf_writer {
	uint8_t *buf;  /* current buffer */
	size_t pos;    /* bytes used in buf (Iobuf lo) */
	size_t cap;    /* bytes in buf (Iobuf hi) */
	size_t record_start; /* where the record being written began */
	struct ftf_destination *dest;
	int next_string_id;
	int num_temp_strs;
	ftf_arg_types pending_args;
	uint64_t word_to_flush;
	bool pending_word;
	bool closed;
	bool refresh_buf_at_intervals;
	uint64_t cur_buf_ticks;
	uint64_t refresh_every_ticks;
	const struct ftf_clock *clock;
	struct ftf_clock own_clock;
	/* Optional id -> string map (set_string_map_allocate_on_intern). */
	bool string_map_enabled;
	char **string_map; /* FTF_STRING_MAX_ID + 1 entries when enabled */
	uint16_t *string_map_len;
	int err;
	char errmsg[256];
};

/* Expert.create_no_header: set up a writer without writing the header. */
int ftf_writer_init_no_header(struct ftf_writer *w,
			      struct ftf_destination *dest,
			      const struct ftf_writer_options *opts);

/* create: set up a writer and write the header (magic, provider info,
 * provider section, the "process" string). If either init fails, the
 * writer is left closed (later calls: -EBADF) and the destination has
 * been closed, with nothing of the header in it. */
int ftf_writer_init(struct ftf_writer *w, struct ftf_destination *dest,
		    const struct ftf_writer_options *opts);

/* Flushes pending words, checks pending arguments, closes the destination
 * and frees what the writer allocated. Later writes fail with -EBADF.
 * Safe to call twice (the second returns -EBADF). */
int ftf_writer_close(struct ftf_writer *w);

/* The message of the last failure ("" if none). */
const char *ftf_writer_error(const struct ftf_writer *w);

/* The clock the writer stamps with. */
static inline const struct ftf_clock *ftf_writer_clock(const struct ftf_writer *w)
{
	return w->clock;
}

/* ---- strings ---- */

/* intern_string: a permanent id (>= 20 + num_temp_strs); -ENOSPC "ran out
 * of FTF string IDs" past 32767; -EPROTO if arguments are pending; -E2BIG
 * if longer than 31999 bytes. */
int ftf_intern_string(struct ftf_writer *w, const char *s);
int ftf_intern_string_len(struct ftf_writer *w, const char *s, size_t len);

/* set_temp_string_slot: slot 0..num_temp_strs-1; returns the string id. */
int ftf_set_temp_string_slot(struct ftf_writer *w, int slot, const char *s);
int ftf_set_temp_string_slot_len(struct ftf_writer *w, int slot,
				 const char *s, size_t len);
int ftf_num_temp_strs(const struct ftf_writer *w);

/* ---- threads and kernel objects ---- */

/* set_thread_slot: slot 0..254; returns the thread ref (slot + 1). */
int ftf_set_thread_slot(struct ftf_writer *w, int slot, uint64_t pid,
			uint64_t tid);
/* Kernel object type 1 (process) named by string id `name`. */
int ftf_set_process_name(struct ftf_writer *w, uint64_t pid, int name);
/* Kernel object type 2 (thread) with the `process` koid argument. */
int ftf_set_thread_name(struct ftf_writer *w, uint64_t pid, uint64_t tid,
			int name);

/* ---- tick initialization ---- */

int ftf_write_tick_initialization(struct ftf_writer *w,
				  const struct ftf_tick_translation *tt);
/* make_and_write_tick_translation, from the writer's clock, now. */
int ftf_make_and_write_tick_translation(struct ftf_writer *w);

/* ---- events ---- */
/*
 * Each writes the record header and timestamp; then exactly the declared
 * arguments must follow through ftf_arg_*() before the next record (the
 * pending-argument check). `thread` is a thread ref (1..255), `category`
 * and `name` string ids.
 */
int ftf_write_instant(struct ftf_writer *w, ftf_arg_types arg_types,
		      int thread, int category, int name, uint64_t ticks);
int ftf_write_counter(struct ftf_writer *w, ftf_arg_types arg_types,
		      int thread, int category, int name, uint64_t ticks,
		      uint64_t counter_id);
int ftf_write_duration_begin(struct ftf_writer *w, ftf_arg_types arg_types,
			     int thread, int category, int name,
			     uint64_t ticks);
int ftf_write_duration_end(struct ftf_writer *w, ftf_arg_types arg_types,
			   int thread, int category, int name, uint64_t ticks);
/* -EINVAL if ticks_end < ticks. */
int ftf_write_duration_complete(struct ftf_writer *w, ftf_arg_types arg_types,
				int thread, int category, int name,
				uint64_t ticks, uint64_t ticks_end);
int ftf_write_async_begin(struct ftf_writer *w, ftf_arg_types arg_types,
			  int thread, int category, int name, uint64_t ticks,
			  uint64_t async_id);
int ftf_write_async_instant(struct ftf_writer *w, ftf_arg_types arg_types,
			    int thread, int category, int name,
			    uint64_t ticks, uint64_t async_id);
int ftf_write_async_end(struct ftf_writer *w, ftf_arg_types arg_types,
			int thread, int category, int name, uint64_t ticks,
			uint64_t async_id);
/* Flows carry no name, category or arguments (Perfetto ignores them). */
int ftf_write_flow_begin(struct ftf_writer *w, int thread, uint64_t ticks,
			 uint64_t flow_id);
int ftf_write_flow_step(struct ftf_writer *w, int thread, uint64_t ticks,
			uint64_t flow_id);
int ftf_write_flow_end(struct ftf_writer *w, int thread, uint64_t ticks,
		       uint64_t flow_id);

/* ---- beyond the seed: scheduling, provider events, logs ---- */

/* Scheduling record subtype 1. Declared arguments (typically int32
 * incoming_weight and outgoing_weight) follow through ftf_arg_*(). */
int ftf_write_context_switch(struct ftf_writer *w, ftf_arg_types arg_types,
			     uint16_t cpu, enum ftf_thread_state out_state,
			     uint64_t out_koid, uint64_t in_koid,
			     uint64_t ticks);
/* Scheduling record subtype 2 (typically a `waker` koid argument). */
int ftf_write_thread_wakeup(struct ftf_writer *w, ftf_arg_types arg_types,
			    uint16_t cpu, uint64_t waking_koid,
			    uint64_t ticks);
/* Metadata provider event 0: "buffer full, records dropped". */
int ftf_write_provider_event_dropped(struct ftf_writer *w,
				     uint32_t provider_id);
/* Log record (type 9) on thread ref `thread`. -E2BIG if over 32 KB. */
int ftf_write_log(struct ftf_writer *w, int thread, uint64_t ticks,
		  const char *msg, size_t len);
/* Blob record (type 5): `len` bytes of payload of type blob_type under
 * the string id `name`. Blob type 3 is Perfetto's: its payloads are read
 * as a stream of Perfetto TracePackets (Perfetto's Fuchsia importer).
 * -E2BIG past FTF_MAX_BLOB_LEN (the record's 12-bit word count). */
#define FTF_MAX_BLOB_LEN (4094 * 8)
#define FTF_BLOB_PERFETTO 3
int ftf_write_blob(struct ftf_writer *w, int name, unsigned blob_type,
		   const void *payload, size_t len);

/* ---- arguments (Write_arg): checked against the pending template ---- */
/* `name` is a string id. Too many for the template: -EPROTO, nothing
 * written. */
int ftf_arg_int32(struct ftf_writer *w, int name, int32_t value);
int ftf_arg_uint32(struct ftf_writer *w, int name, uint32_t value);
int ftf_arg_int64(struct ftf_writer *w, int name, int64_t value);
int ftf_arg_uint64(struct ftf_writer *w, int name, uint64_t value);
int ftf_arg_pointer(struct ftf_writer *w, int name, uint64_t value);
int ftf_arg_koid(struct ftf_writer *w, int name, uint64_t value);
int ftf_arg_float(struct ftf_writer *w, int name, double value);
int ftf_arg_bool(struct ftf_writer *w, int name, bool value);
int ftf_arg_string(struct ftf_writer *w, int name, int value);
int ftf_arg_inline_string(struct ftf_writer *w, int name, const char *value,
			  size_t len);

/* ---- the expert API ---- */

/* Write_arg_unchecked: no template bookkeeping, no capacity check; the
 * caller reserved the room with the record's header. */
void ftf_arg_unchecked_int32(struct ftf_writer *w, int name, int32_t value);
void ftf_arg_unchecked_int64(struct ftf_writer *w, int name, int64_t value);
void ftf_arg_unchecked_uint64(struct ftf_writer *w, int name, uint64_t value);
void ftf_arg_unchecked_pointer(struct ftf_writer *w, int name, uint64_t value);
void ftf_arg_unchecked_koid(struct ftf_writer *w, int name, uint64_t value);
void ftf_arg_unchecked_float(struct ftf_writer *w, int name, double value);
void ftf_arg_unchecked_bool(struct ftf_writer *w, int name, bool value);
void ftf_arg_unchecked_string(struct ftf_writer *w, int name, int value);
/* -E2BIG if longer than FTF_MAX_STRING_LEN (nothing written). */
int ftf_arg_unchecked_inline_string(struct ftf_writer *w, int name,
				    const char *value, size_t len);

/* Expert.set_dyn_slot: slot 0..17 -> string id 2..19. */
int ftf_set_dyn_slot(struct ftf_writer *w, int slot, const char *s);
/* Expert.set_dyn_slot_2_int64s: a 16-byte string made of two words. */
int ftf_set_dyn_slot_2_int64s(struct ftf_writer *w, int slot, uint64_t word1,
			      uint64_t word2);
/* Expert.set_string_slot: any id > 0; id 1 only with "process". */
int ftf_set_string_slot(struct ftf_writer *w, int slot, const char *s);
/* set_string_map_allocate_on_intern / string_of_string_id. Enabling
 * allocates the map once; -ENOMEM if it cannot. */
int ftf_set_string_map(struct ftf_writer *w, bool enable);
/* NULL if unknown or the map is off; *len gets the length. */
const char *ftf_string_of_string_id(const struct ftf_writer *w, int id,
				    size_t *len);

int ftf_set_destination(struct ftf_writer *w, struct ftf_destination *dest);
int ftf_force_switch_buffers(struct ftf_writer *w);
/* Copies raw bytes in chunks of up to 4096 (may split across buffers). */
int ftf_write_bytes(struct ftf_writer *w, const void *bytes, size_t len);
/* Pads with zero bytes to a word boundary. */
int ftf_write_string_stream(struct ftf_writer *w, const char *s, size_t len);
/* flush: check pending arguments and write the pending word. If the
 * check fails the incomplete record is removed from the buffer. */
int ftf_flush(struct ftf_writer *w);
/* If refresh is on and the current buffer is older than 1 s at `now`,
 * switch buffers and write a new tick initialization. As in the seed, only
 * the fast path (ftf_write_from_header_and_get_tsc) does this by itself;
 * users of the checked ftf_write_*() calls call this now and then. */
int ftf_refresh_buf_if_stale(struct ftf_writer *w, uint64_t now);

/* Header words for the fast path. Returns 0 (never a valid header) and
 * sets nothing if the arguments are invalid (size < 16 bytes). */
uint64_t ftf_precompute_header(enum ftf_event_type event_type, int extra_words,
			       ftf_arg_types arg_types, int thread,
			       int category, int name);
static inline uint64_t ftf_header_set_name(uint64_t header, int name)
{
	return (header & 0x0000ffffffffffffull) | ((uint64_t)name << 48);
}
static inline size_t ftf_header_byte_size(uint64_t header)
{
	return (size_t)((header & 0xFFF0) >> 1);
}
/* Grows the size field for an inline string of `len` bytes; -E2BIG
 * "Cannot update event size for inline string: maximum size exceeded"
 * (header unchanged) if the record would reach 4096 words. */
int ftf_header_update_size_for_inline_string(uint64_t *header, size_t len);
/* The same, and makes the name ref an inline ref of length `len`. */
int ftf_header_update_size_for_name(uint64_t *header, size_t len);

/* Slow half of the fast path (not inline). */
int ftf__switch_buffers(struct ftf_writer *w, size_t ensure_capacity);
int ftf__refresh_and_write_tick_init(struct ftf_writer *w, uint64_t now);

static inline void ftf__store64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	__builtin_memcpy(p, &v, 8);
}

static inline void ftf__put64(struct ftf_writer *w, uint64_t v)
{
	ftf__store64(w->buf + w->pos, v);
	w->pos += 8;
}

/*
 * Expert.write_from_header_and_get_tsc: stamps `now` from the writer's
 * clock, refreshes the buffer if stale, reserves the header's whole size and
 * writes the header and timestamp. The caller then writes exactly the
 * record's remaining words (unchecked args, ftf_write_async_id, ...).
 * Returns 0 and the timestamp in *ticks_out (may be NULL), or a negative
 * code with nothing written.
 */
static inline int ftf_write_from_header_and_get_tsc(struct ftf_writer *w,
						    uint64_t header,
						    uint64_t *ticks_out)
{
	uint64_t now = ftf_clock_now(w->clock);
	size_t need = ftf_header_byte_size(header);

	/* A checked event before this one may still owe its last word
	 * (counter id, async id, end time) or its arguments: settle that
	 * first, or this record would overwrite the word. */
	if (__builtin_expect(w->pending_word || w->pending_args, 0)) {
		int err = ftf_flush(w);
		if (err)
			return err;
	}
	if (w->refresh_buf_at_intervals &&
	    now - w->cur_buf_ticks > w->refresh_every_ticks) {
		int err = ftf__refresh_and_write_tick_init(w, now);
		if (err)
			return err;
	}
	if (__builtin_expect(w->cap - w->pos < need, 0)) {
		int err = ftf__switch_buffers(w, need);
		if (err)
			return err;
	}
	{
		/* one position update: byte stores may alias w->pos */
		uint8_t *p = w->buf + w->pos;

		w->record_start = w->pos;
		w->pos += 16;
		ftf__store64(p, header);
		ftf__store64(p + 8, now);
	}
	if (ticks_out)
		*ticks_out = now;
	return 0;
}

/*
 * The checked event calls' fast path, inline: when the writer is open,
 * owes nothing (no pending word or arguments), the arguments are in range
 * and the record fits the buffer, the header and timestamp are stored
 * here; anything else goes to the out-of-line ftf__write_event(), which
 * checks and reports as before. ftf_write_instant, _duration_begin and
 * _duration_end below are GNU "extern inline" definitions of the library
 * functions of the same names: calls are inlined, their addresses and the
 * library's symbols stay as they were (define FTF_WRITER_NO_INLINE before
 * including this header to call the library instead). The same for the
 * int32, int64, uint64 and koid arguments (ftf__arg_put).
 */
int ftf__write_event(struct ftf_writer *w, int event_type, int extra_words,
		     ftf_arg_types arg_types, int thread, int category,
		     int name, uint64_t ticks);
/* The checks of a 1- or 2-word argument, out of line (its message). */
int ftf__take_arg(struct ftf_writer *w, int name, int words);

#if (defined(__GNUC__) || defined(__clang__)) && !defined(FTF_WRITER_NO_INLINE)
#define FTF__EXTERN_INLINE                                                     \
	extern inline __attribute__((gnu_inline, always_inline))
/* Whether an event record of `fixed` words before its arguments needs the
 * checked path: the writer closed or owing, a field out of range, or no
 * room for `need` bytes. */
FTF__EXTERN_INLINE int ftf__event_unusual(const struct ftf_writer *w,
					  ftf_arg_types arg_types, int fixed,
					  int thread, int category, int name,
					  size_t need)
{
	return w->closed | w->pending_word | (w->pending_args != 0) |
	       (arg_types < 0) | ((arg_types & ~0xF0FFF0ll) != 0) |
	       (((arg_types >> 4) & 0xfff) > 4095 - fixed) | (thread < 1) |
	       (thread > 255) | ((unsigned)category > 0x7fff) |
	       ((unsigned)name > 0x7fff) | (w->cap - w->pos < need);
}

/* An event record's header and time at the writer's position (room
 * checked by the caller), its arguments left pending. */
FTF__EXTERN_INLINE void ftf__event_start(struct ftf_writer *w, uint64_t h,
					 uint64_t ticks,
					 ftf_arg_types arg_types)
{
	uint8_t *p = w->buf + w->pos;

	w->record_start = w->pos;
	w->pos += 16;
	w->pending_args = arg_types;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap64(h);
	ticks = __builtin_bswap64(ticks);
#endif
	__builtin_memcpy(p, &h, 8);
	__builtin_memcpy(p + 8, &ticks, 8);
}

FTF__EXTERN_INLINE int
ftf__write_event_fast(struct ftf_writer *w, int event_type,
		      ftf_arg_types arg_types, int thread, int category,
		      int name, uint64_t ticks)
{
	/* (no static helpers here: an extern inline function may not call
	 * them) */
	size_t need = (size_t)((arg_types & 0xFFF0) >> 1) + 16;
	uint64_t h = 4 | (uint64_t)(arg_types + (2 << 4)) |
		     ((uint64_t)event_type << 16) | ((uint64_t)thread << 24) |
		     ((uint64_t)category << 32) | ((uint64_t)name << 48);

	if (__builtin_expect(ftf__event_unusual(w, arg_types, 2, thread,
						category, name, need),
			     0))
		return ftf__write_event(w, event_type, 0, arg_types, thread,
					category, name, ticks);
	ftf__event_start(w, h, ticks, arg_types);
	return 0;
}

FTF__EXTERN_INLINE int ftf_write_instant(struct ftf_writer *w,
					 ftf_arg_types arg_types, int thread,
					 int category, int name, uint64_t ticks)
{
	return ftf__write_event_fast(w, FTF_EVENT_INSTANT, arg_types, thread,
				     category, name, ticks);
}

FTF__EXTERN_INLINE int ftf_write_duration_begin(struct ftf_writer *w,
						ftf_arg_types arg_types,
						int thread, int category,
						int name, uint64_t ticks)
{
	return ftf__write_event_fast(w, FTF_EVENT_DURATION_BEGIN, arg_types,
				     thread, category, name, ticks);
}

FTF__EXTERN_INLINE int ftf_write_duration_end(struct ftf_writer *w,
					      ftf_arg_types arg_types,
					      int thread, int category,
					      int name, uint64_t ticks)
{
	return ftf__write_event_fast(w, FTF_EVENT_DURATION_END, arg_types,
				     thread, category, name, ticks);
}

/* The checked halves of the fast paths below, out of line: a scheduling
 * record (context switch, wakeup) and a record owing one word after its
 * arguments (duration complete's end time). */
int ftf__write_sched(struct ftf_writer *w, ftf_arg_types arg_types,
		     int fixed_words, uint64_t subtype_bits,
		     const uint64_t *words, int nwords);
int ftf__write_event_word(struct ftf_writer *w, int event_type,
			  ftf_arg_types arg_types, int thread, int category,
			  int name, uint64_t ticks, uint64_t word);
int ftf__duration_complete_checked(struct ftf_writer *w,
				   ftf_arg_types arg_types, int thread,
				   int category, int name, uint64_t ticks,
				   uint64_t ticks_end);
/* -EINVAL "thread state out of range" */
int ftf__bad_thread_state(struct ftf_writer *w, int state);

/* A scheduling record of the header word and n (2 or 3) words, inline
 * when the writer owes nothing and the record fits; else the checks. */
FTF__EXTERN_INLINE int ftf__sched_fast(struct ftf_writer *w,
				       ftf_arg_types arg_types,
				       uint64_t subtype_bits, int n,
				       uint64_t w0, uint64_t w1, uint64_t w2)
{
	uint64_t size = (uint64_t)((arg_types >> 4) & 0xfff) + 1 + (uint64_t)n;
	uint64_t h = 8 | (size << 4) |
		     ((uint64_t)((arg_types >> 20) & 0xf) << 16) | subtype_bits;
	uint8_t *p;

	if (__builtin_expect(w->closed | w->pending_word |
				     (w->pending_args != 0) | (arg_types < 0) |
				     ((arg_types & ~0xF0FFF0ll) != 0) |
				     (size > 4095) |
				     (w->cap - w->pos < size * 8),
			     0)) {
		uint64_t words[3] = {w0, w1, w2};

		return ftf__write_sched(w, arg_types, n + 1, subtype_bits,
					words, n);
	}
	p = w->buf + w->pos;
	w->record_start = w->pos;
	w->pos += 8 * (size_t)(n + 1);
	w->pending_args = arg_types;
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap64(h);
	w0 = __builtin_bswap64(w0);
	w1 = __builtin_bswap64(w1);
	w2 = __builtin_bswap64(w2);
#endif
	__builtin_memcpy(p, &h, 8);
	__builtin_memcpy(p + 8, &w0, 8);
	__builtin_memcpy(p + 16, &w1, 8);
	if (n == 3)
		__builtin_memcpy(p + 24, &w2, 8);
	return 0;
}

FTF__EXTERN_INLINE int ftf_write_context_switch(struct ftf_writer *w,
						ftf_arg_types arg_types,
						uint16_t cpu,
						enum ftf_thread_state out_state,
						uint64_t out_koid,
						uint64_t in_koid,
						uint64_t ticks)
{
	if (__builtin_expect((unsigned)out_state > 0xf, 0))
		return ftf__bad_thread_state(w, (int)out_state);
	return ftf__sched_fast(w, arg_types,
			       ((uint64_t)cpu << 20) |
				       ((uint64_t)out_state << 36) | (1ull << 60),
			       3, ticks, out_koid, in_koid);
}

FTF__EXTERN_INLINE int ftf_write_thread_wakeup(struct ftf_writer *w,
					       ftf_arg_types arg_types,
					       uint16_t cpu,
					       uint64_t waking_koid,
					       uint64_t ticks)
{
	return ftf__sched_fast(w, arg_types,
			       ((uint64_t)cpu << 20) | (2ull << 60), 2, ticks,
			       waking_koid, 0);
}

/* Duration complete: its end time follows the arguments, so it is owed
 * (pending_word) until the last one is written (ftf__arg_put). */
FTF__EXTERN_INLINE int ftf_write_duration_complete(struct ftf_writer *w,
						   ftf_arg_types arg_types,
						   int thread, int category,
						   int name, uint64_t ticks,
						   uint64_t ticks_end)
{
	size_t need = (size_t)((arg_types & 0xFFF0) >> 1) + 24;
	uint64_t h = 4 | (uint64_t)(arg_types + (3 << 4)) |
		     ((uint64_t)FTF_EVENT_DURATION_COMPLETE << 16) |
		     ((uint64_t)thread << 24) | ((uint64_t)category << 32) |
		     ((uint64_t)name << 48);

	if (__builtin_expect(ftf__event_unusual(w, arg_types, 3, thread,
						category, name, need) |
				     (ticks_end < ticks),
			     0))
		return ftf__duration_complete_checked(w, arg_types, thread,
						      category, name, ticks,
						      ticks_end);
	ftf__event_start(w, h, ticks, arg_types);
	if (arg_types == 0) {
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		ticks_end = __builtin_bswap64(ticks_end);
#endif
		__builtin_memcpy(w->buf + w->pos, &ticks_end, 8);
		w->pos += 8;
	} else {
		w->word_to_flush = ticks_end;
		w->pending_word = true;
	}
	return 0;
}

/* One argument of `words` (1 or 2) words w0, w1, taken from the pending
 * template when it declares one; otherwise ftf__take_arg() says why. */
FTF__EXTERN_INLINE int ftf__arg_put(struct ftf_writer *w, int name, int words,
				    uint64_t w0, uint64_t w1)
{
	ftf_arg_types pa = w->pending_args;
	uint8_t *p;

	if (__builtin_expect(w->closed | ((pa >> 20) < 1) |
				     (((pa >> 4) & 0xffff) < words) |
				     ((unsigned)name > 0x7fff),
			     0)) {
		int err = ftf__take_arg(w, name, words);

		if (err)
			return err;
	} else {
		w->pending_args = pa - (((ftf_arg_types)words << 4) | (1ll << 20));
	}
	w0 |= ((uint64_t)words << 4) | ((uint64_t)(uint16_t)name << 16);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	w0 = __builtin_bswap64(w0);
	w1 = __builtin_bswap64(w1);
#endif
	p = w->buf + w->pos;
	w->pos += 8 * (size_t)words;
	__builtin_memcpy(p, &w0, 8);
	if (words == 2)
		__builtin_memcpy(p + 8, &w1, 8);
	if (__builtin_expect(w->pending_word, 0) && w->pending_args == 0) {
		/* the last argument: the word the record owes (its room was
		 * reserved with the record) */
		uint64_t owed = w->word_to_flush;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
		owed = __builtin_bswap64(owed);
#endif
		__builtin_memcpy(w->buf + w->pos, &owed, 8);
		w->pos += 8;
		w->pending_word = false;
	}
	return 0;
}

FTF__EXTERN_INLINE int ftf_arg_int32(struct ftf_writer *w, int name,
				     int32_t value)
{
	return ftf__arg_put(w, name, 1, 1 | ((uint64_t)(uint32_t)value << 32),
			    0);
}

FTF__EXTERN_INLINE int ftf_arg_int64(struct ftf_writer *w, int name,
				     int64_t value)
{
	return ftf__arg_put(w, name, 2, 3, (uint64_t)value);
}

FTF__EXTERN_INLINE int ftf_arg_uint64(struct ftf_writer *w, int name,
				      uint64_t value)
{
	return ftf__arg_put(w, name, 2, 4, value);
}

FTF__EXTERN_INLINE int ftf_arg_koid(struct ftf_writer *w, int name,
				    uint64_t value)
{
	return ftf__arg_put(w, name, 2, 8, value);
}
#undef FTF__EXTERN_INLINE
#endif

/*
 * Expert, whole records (a C extension, for callers that write millions of
 * records of a few fixed shapes and check their fields themselves):
 * ftf_reserve_record() gives room for one record of `words` 8-byte words
 * at the writer's position, and the caller stores every word of it, the
 * header first, with ftf_record_put(). The words are not checked: the
 * header must say `words` and the arguments must be what it declares
 * (ftf_arg_word() builds an argument's first word). The writer must owe
 * nothing (no record of the checked calls left with arguments pending).
 * 0, or a negative code with nothing reserved (closed writer, destination
 * full, more than 4095 words, arguments still pending).
 */
int ftf__reserve_record_slow(struct ftf_writer *w, size_t words,
			     uint8_t **out);

static inline int ftf_reserve_record(struct ftf_writer *w, size_t words,
				     uint8_t **out)
{
	if (__builtin_expect(w->closed | w->pending_word |
				     (w->pending_args != 0) | (words > 4095) |
				     (w->cap - w->pos < words * 8),
			     0))
		return ftf__reserve_record_slow(w, words, out);
	*out = w->buf + w->pos;
	w->record_start = w->pos;
	w->pos += words * 8;
	return 0;
}

/* Word i of a reserved record. */
static inline void ftf_record_put(uint8_t *rec, size_t i, uint64_t v)
{
	ftf__store64(rec + 8 * i, v);
}

/* An argument's first word: its type (enum ftf_arg_type of ftf/reader.h:
 * FTF_ARG_INT32, ...), its size in words (with its value's), its interned
 * name (1..0x7fff); an int32, uint32 or bool value goes in the upper half
 * (value << 32). */
static inline uint64_t ftf_arg_word(unsigned type, unsigned words, int name)
{
	return (uint64_t)type | ((uint64_t)words << 4) |
	       ((uint64_t)(uint16_t)name << 16);
}

/* An event record's header (thread ref, interned category and name) for
 * `words` words in all and `nargs` arguments. */
static inline uint64_t ftf_event_header(enum ftf_event_type type,
					unsigned words, unsigned nargs,
					int thread, int category, int name)
{
	return 4 | ((uint64_t)words << 4) | ((uint64_t)nargs << 20) |
	       ((uint64_t)type << 16) | ((uint64_t)(uint8_t)thread << 24) |
	       ((uint64_t)(uint16_t)category << 32) |
	       ((uint64_t)(uint16_t)name << 48);
}

/* A context switch's header (3 words follow it: time, outgoing and
 * incoming koids, then the arguments) and a wakeup's (2: time, koid). */
static inline uint64_t ftf_context_switch_header(unsigned words,
						 unsigned nargs, uint16_t cpu,
						 enum ftf_thread_state out)
{
	return 8 | ((uint64_t)words << 4) | ((uint64_t)nargs << 16) |
	       ((uint64_t)cpu << 20) | ((uint64_t)(out & 0xf) << 36) |
	       (1ull << 60);
}

static inline uint64_t ftf_thread_wakeup_header(unsigned words,
						unsigned nargs, uint16_t cpu)
{
	return 8 | ((uint64_t)words << 4) | ((uint64_t)nargs << 16) |
	       ((uint64_t)cpu << 20) | (2ull << 60);
}

/* Expert.write_async_id: 8 more bytes of the current record. */
static inline void ftf_write_async_id(struct ftf_writer *w, uint64_t id)
{
	ftf__put64(w, id);
}

/* Expert.write_tsc: a timestamp word of the current record. */
static inline void ftf_write_tsc(struct ftf_writer *w, uint64_t ticks)
{
	ftf__put64(w, ticks);
}

#endif
