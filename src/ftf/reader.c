// SPDX-License-Identifier: MIT
/*
 * reader.c - the libftf Fuchsia Trace Format reader.
 *
 * Every read goes through a cursor over the words of one record (or of one
 * argument inside it), which knows how many words are left: a field that
 * does not fit is an error, never a read past the record. The record
 * itself is only decoded once its whole size is known to be in the data.
 */
#include "ftf/reader.h"

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INLINE_STRING 32000

/* A window of whole words: p points at the next word, n words are left. */
struct cursor {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t bits(uint64_t w, unsigned lo, unsigned hi)
{
	unsigned width = hi - lo + 1;

	return width >= 64 ? w >> lo : (w >> lo) & ((1ull << width) - 1);
}

static inline uint64_t load_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return le64toh(w);
}

static inline size_t words_for(uint64_t bytes)
{
	return (size_t)(bytes / 8 + (bytes % 8 != 0));
}

static bool cur_word(struct cursor *c, uint64_t *w)
{
	if (c->n < 1)
		return false;
	*w = load_word(c->p);
	c->p += 8;
	c->n--;
	return true;
}

/* Takes the padded stream of `bytes` bytes. */
static bool cur_bytes(struct cursor *c, uint64_t bytes, const uint8_t **out)
{
	size_t w = words_for(bytes);

	if (bytes > (uint64_t)c->n * 8 || w > c->n)
		return false;
	*out = c->p;
	c->p += w * 8;
	c->n -= w;
	return true;
}

static bool cur_sub(struct cursor *c, size_t words, struct cursor *sub)
{
	if (words > c->n)
		return false;
	sub->p = c->p;
	sub->n = words;
	c->p += words * 8;
	c->n -= words;
	return true;
}

/* Decoding context of the record being read. */
struct ctx {
	struct ftf_reader *r;
	size_t off;   /* record start */
	size_t end;   /* record end */
};

static int rec_fail(struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A content error: the record was whole, the reader moves past it. */
static int rec_fail(struct ctx *x, const char *fmt, ...)
{
	struct ftf_reader *r = x->r;
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->errmsg, sizeof(r->errmsg), "offset %zu: %s",
		 r->base + x->off, msg);
	r->err = -EBADMSG;
	r->err_offset = r->base + x->off;
	r->err_pos = r->base + x->end;
	r->errors++;
	return -EBADMSG;
}

static int fatal_fail(struct ftf_reader *r, size_t off, size_t pos,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fatal_fail(struct ftf_reader *r, size_t off, size_t pos,
		      const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->errmsg, sizeof(r->errmsg), "offset %zu: %s", r->base + off,
		 msg);
	r->err = -EBADMSG;
	r->fatal = true;
	r->err_offset = r->base + off;
	r->err_pos = r->base + pos;
	r->errors++;
	return -EBADMSG;
}

static const char empty_str[] = "";

/* Resolves a 16-bit string ref; inline bytes are taken from c. */
static int string_ref(struct ctx *x, struct cursor *c, unsigned ref,
		      struct ftf_str *out, const char *what)
{
	const struct ftf_reader_string *s;

	if (ref == 0) {
		out->ptr = empty_str;
		out->len = 0;
		return 0;
	}
	if (ref & 0x8000) {
		unsigned len = ref & 0x7fff;
		const uint8_t *p;

		if (len > MAX_INLINE_STRING)
			return rec_fail(x, "inline %s string of %u bytes is over the %d-byte limit",
					what, len, MAX_INLINE_STRING);
		if (!cur_bytes(c, len, &p))
			return rec_fail(x, "inline %s string of %u bytes runs past the end of the record",
					what, len);
		out->ptr = (const char *)p;
		out->len = len;
		return 0;
	}
	s = &x->r->strings[ref];
	if (!s->defined)
		return rec_fail(x, "%s string ref %u was never defined", what, ref);
	out->ptr = s->ptr;
	out->len = s->len;
	return 0;
}

/* Resolves an 8-bit thread ref; inline koids are taken from c. */
static int thread_ref(struct ctx *x, struct cursor *c, unsigned ref,
		      struct ftf_pt *out)
{
	if (ref == 0) {
		if (!cur_word(c, &out->pid) || !cur_word(c, &out->tid))
			return rec_fail(x, "inline thread (process and thread koids) runs past the end of the record");
		return 0;
	}
	if (!x->r->threads[ref].defined)
		return rec_fail(x, "thread ref %u was never defined", ref);
	*out = x->r->threads[ref].pt;
	return 0;
}

static int read_args(struct ctx *x, struct cursor *c, unsigned count,
		     struct ftf_args *args)
{
	args->count = 0;
	args->skipped = 0;
	for (unsigned i = 0; i < count; i++) {
		struct ftf_arg *a = &args->a[args->count];
		struct cursor ac;
		uint64_t h, w;
		size_t size;
		unsigned type;
		int err;

		if (!cur_word(c, &h))
			return rec_fail(x, "argument %u of %u: header runs past the end of the record",
					i + 1, count);
		size = bits(h, 4, 15);
		type = bits(h, 0, 3);
		if (size == 0)
			return rec_fail(x, "argument %u of %u has size 0", i + 1, count);
		if (!cur_sub(c, size - 1, &ac))
			return rec_fail(x, "argument %u of %u: size %zu words runs past the end of the record (%zu words left)",
					i + 1, count, size, c->n);
		err = string_ref(x, &ac, bits(h, 16, 31), &a->name, "argument name");
		if (err)
			return err;
		a->type = type;
		switch (type) {
		case FTF_ARG_NULL:
			break;
		case FTF_ARG_INT32:
			a->v.i32 = (int32_t)(uint32_t)bits(h, 32, 63);
			break;
		case FTF_ARG_UINT32:
			a->v.u32 = (uint32_t)bits(h, 32, 63);
			break;
		case FTF_ARG_INT64:
		case FTF_ARG_UINT64:
		case FTF_ARG_DOUBLE:
		case FTF_ARG_POINTER:
		case FTF_ARG_KOID:
			if (!cur_word(&ac, &w))
				return rec_fail(x, "argument %u of %u (type %u): value word runs past the end of the argument",
						i + 1, count, type);
			if (type == FTF_ARG_DOUBLE)
				memcpy(&a->v.d, &w, sizeof(w));
			else
				a->v.u64 = w;
			break;
		case FTF_ARG_STRING:
			err = string_ref(x, &ac, bits(h, 32, 47), &a->v.str,
					 "argument value");
			if (err)
				return err;
			break;
		case FTF_ARG_BOOL:
			a->v.b = bits(h, 32, 32);
			break;
		case FTF_ARG_BLOB: {
			uint64_t len = bits(h, 32, 63);
			const uint8_t *p;

			if (!cur_bytes(&ac, len, &p))
				return rec_fail(x, "argument %u of %u: blob of %llu bytes runs past the end of the argument",
						i + 1, count, (unsigned long long)len);
			a->v.blob.ptr = p;
			a->v.blob.len = len;
			break;
		}
		default:
			/* Unknown argument type: skipped by its size. */
			args->skipped++;
			continue;
		}
		args->count++;
	}
	return 0;
}

static int read_metadata(struct ctx *x, struct cursor *c, uint64_t h,
			 struct ftf_record *rec)
{
	const uint8_t *p;
	unsigned len;

	rec->u.meta.meta_type = bits(h, 16, 19);
	switch (rec->u.meta.meta_type) {
	case FTF_META_PROVIDER_INFO:
		rec->u.meta.provider_id = bits(h, 20, 51);
		len = bits(h, 52, 59);
		if (!cur_bytes(c, len, &p))
			return rec_fail(x, "provider name of %u bytes runs past the end of the record",
					len);
		rec->u.meta.provider_name.ptr = (const char *)p;
		rec->u.meta.provider_name.len = len;
		break;
	case FTF_META_PROVIDER_SECTION:
		rec->u.meta.provider_id = bits(h, 20, 51);
		break;
	case FTF_META_PROVIDER_EVENT:
		rec->u.meta.provider_id = bits(h, 20, 51);
		rec->u.meta.event_id = bits(h, 52, 55);
		break;
	case FTF_META_TRACE_INFO:
		rec->u.meta.trace_info_type = bits(h, 20, 23);
		if (rec->u.meta.trace_info_type == 0)
			rec->u.meta.magic = bits(h, 24, 55);
		else
			rec->unknown = true;
		break;
	default:
		rec->unknown = true;
		break;
	}
	return 0;
}

static int read_init(struct ctx *x, struct cursor *c, struct ftf_record *rec)
{
	uint64_t tps;

	if (!cur_word(c, &tps))
		return rec_fail(x, "initialization record has no ticks-per-second word");
	if (tps == 0)
		return rec_fail(x, "initialization record with 0 ticks per second");
	rec->u.init.ticks_per_second = tps;
	if (c->n >= 2) {
		rec->u.init.has_base = true;
		cur_word(c, &rec->u.init.base_ticks);
		cur_word(c, &rec->u.init.base_time);
	}
	x->r->ticks_per_second = tps;
	return 0;
}

static int read_string(struct ctx *x, struct cursor *c, uint64_t h,
		       struct ftf_record *rec)
{
	unsigned index = bits(h, 16, 30);
	unsigned len = bits(h, 32, 46);
	struct ftf_reader_string *s;
	const uint8_t *p;

	if (index == 0)
		return rec_fail(x, "string record with index 0 (reserved for the empty string)");
	if (len > MAX_INLINE_STRING)
		return rec_fail(x, "string record of %u bytes is over the %d-byte limit",
				len, MAX_INLINE_STRING);
	if (!cur_bytes(c, len, &p))
		return rec_fail(x, "string of %u bytes runs past the end of the record",
				len);
	rec->u.string.index = index;
	rec->u.string.text.ptr = (const char *)p;
	rec->u.string.text.len = len;
	s = &x->r->strings[index];
	s->ptr = (const char *)p;
	if (x->r->owned) {
		struct ftf_reader_owned *o = &x->r->owned[index];

		if (o->cap < len) {
			char *bigger = realloc(o->text, len);

			if (!bigger)
				return rec_fail(x, "out of memory for a string of %u bytes",
						len);
			o->text = bigger;
			o->cap = len;
		}
		if (len) /* (an empty string's text may be NULL) */
			memcpy(o->text, p, len);
		s->ptr = o->text;
	}
	s->len = len;
	s->defined = true;
	return 0;
}

static int read_thread(struct ctx *x, struct cursor *c, uint64_t h,
		       struct ftf_record *rec)
{
	unsigned index = bits(h, 16, 23);
	struct ftf_reader_thread *t;

	if (index == 0)
		return rec_fail(x, "thread record with index 0 (reserved for inline threads)");
	if (!cur_word(c, &rec->u.thread.pt.pid) ||
	    !cur_word(c, &rec->u.thread.pt.tid))
		return rec_fail(x, "thread record too short for its two koids");
	rec->u.thread.index = index;
	t = &x->r->threads[index];
	t->pt = rec->u.thread.pt;
	t->defined = true;
	return 0;
}

static int read_event(struct ctx *x, struct cursor *c, uint64_t h,
		      struct ftf_record *rec)
{
	unsigned type = bits(h, 16, 19);
	int err;

	rec->u.event.event_type = type;
	if (type > 10) {
		rec->unknown = true;
		return 0;
	}
	rec->u.event.thread_ref = bits(h, 24, 31);
	if (!cur_word(c, &rec->u.event.ts))
		return rec_fail(x, "event record has no timestamp word");
	err = thread_ref(x, c, rec->u.event.thread_ref, &rec->u.event.pt);
	if (!err)
		err = string_ref(x, c, bits(h, 32, 47), &rec->u.event.category,
				 "category");
	if (!err)
		err = string_ref(x, c, bits(h, 48, 63), &rec->u.event.name,
				 "name");
	if (!err)
		err = read_args(x, c, bits(h, 20, 23), &rec->u.event.args);
	if (err)
		return err;
	if (type == 0) {
		/* Instant: Fuchsia's reader expects a scope word, the spec
		 * and the seed writer have none; take it if present. */
		rec->u.event.has_extra = cur_word(c, &rec->u.event.extra);
	} else if (type == 1 || type >= 4) {
		static const char *const what[] = {
			[1] = "counter id", [4] = "end timestamp",
			[5] = "async id", [6] = "async id", [7] = "async id",
			[8] = "flow id", [9] = "flow id", [10] = "flow id",
		};
		if (!cur_word(c, &rec->u.event.extra))
			return rec_fail(x, "event record too short for its %s word",
					what[type]);
		rec->u.event.has_extra = true;
	}
	return 0;
}

static int read_blob(struct ctx *x, struct cursor *c, uint64_t h,
		     struct ftf_record *rec)
{
	size_t size = bits(h, 32, 46);
	int err;

	err = string_ref(x, c, bits(h, 16, 31), &rec->u.blob.name, "blob name");
	if (err)
		return err;
	rec->u.blob.blob_type = bits(h, 48, 55);
	rec->u.blob.size = size;
	if (!cur_bytes(c, size, &rec->u.blob.payload))
		return rec_fail(x, "blob payload of %zu bytes runs past the end of the record",
				size);
	return 0;
}

static int read_uobj(struct ctx *x, struct cursor *c, uint64_t h,
		     struct ftf_record *rec)
{
	int err;

	rec->u.uobj.thread_ref = bits(h, 16, 23);
	if (!cur_word(c, &rec->u.uobj.pointer))
		return rec_fail(x, "userspace object record has no pointer word");
	err = thread_ref(x, c, rec->u.uobj.thread_ref, &rec->u.uobj.pt);
	if (!err)
		err = string_ref(x, c, bits(h, 24, 39), &rec->u.uobj.name,
				 "object name");
	if (!err)
		err = read_args(x, c, bits(h, 40, 43), &rec->u.uobj.args);
	return err;
}

static int read_kobj(struct ctx *x, struct cursor *c, uint64_t h,
		     struct ftf_record *rec)
{
	int err;

	rec->u.kobj.obj_type = bits(h, 16, 23);
	if (!cur_word(c, &rec->u.kobj.koid))
		return rec_fail(x, "kernel object record has no koid word");
	err = string_ref(x, c, bits(h, 24, 39), &rec->u.kobj.name,
			 "object name");
	if (!err)
		err = read_args(x, c, bits(h, 40, 43), &rec->u.kobj.args);
	return err;
}

static int read_sched(struct ctx *x, struct cursor *c, uint64_t h,
		      struct ftf_record *rec)
{
	unsigned sub = bits(h, 60, 63);
	int err;

	rec->u.sched.sched_type = sub;
	switch (sub) {
	case FTF_SCHED_LEGACY_SWITCH:
		rec->u.sched.cpu = bits(h, 16, 23);
		rec->u.sched.out_state = bits(h, 24, 27);
		rec->u.sched.out_prio = bits(h, 44, 51);
		rec->u.sched.in_prio = bits(h, 52, 59);
		if (!cur_word(c, &rec->u.sched.ts))
			return rec_fail(x, "context switch record has no timestamp word");
		err = thread_ref(x, c, bits(h, 28, 35), &rec->u.sched.out_pt);
		if (!err)
			err = thread_ref(x, c, bits(h, 36, 43),
					 &rec->u.sched.in_pt);
		if (err)
			return err;
		rec->u.sched.out_koid = rec->u.sched.out_pt.tid;
		rec->u.sched.in_koid = rec->u.sched.in_pt.tid;
		return 0;
	case FTF_SCHED_CONTEXT_SWITCH:
		rec->u.sched.cpu = bits(h, 20, 35);
		rec->u.sched.out_state = bits(h, 36, 39);
		if (!cur_word(c, &rec->u.sched.ts) ||
		    !cur_word(c, &rec->u.sched.out_koid) ||
		    !cur_word(c, &rec->u.sched.in_koid))
			return rec_fail(x, "context switch record too short for its timestamp and koids");
		return read_args(x, c, bits(h, 16, 19), &rec->u.sched.args);
	case FTF_SCHED_WAKEUP:
		rec->u.sched.cpu = bits(h, 20, 35);
		if (!cur_word(c, &rec->u.sched.ts) ||
		    !cur_word(c, &rec->u.sched.in_koid))
			return rec_fail(x, "thread wakeup record too short for its timestamp and koid");
		return read_args(x, c, bits(h, 16, 19), &rec->u.sched.args);
	default:
		rec->unknown = true;
		return 0;
	}
}

static int read_log(struct ctx *x, struct cursor *c, uint64_t h,
		    struct ftf_record *rec)
{
	unsigned len = bits(h, 16, 30);
	const uint8_t *p;
	int err;

	rec->u.log.thread_ref = bits(h, 32, 39);
	if (!cur_word(c, &rec->u.log.ts))
		return rec_fail(x, "log record has no timestamp word");
	err = thread_ref(x, c, rec->u.log.thread_ref, &rec->u.log.pt);
	if (err)
		return err;
	if (!cur_bytes(c, len, &p))
		return rec_fail(x, "log message of %u bytes runs past the end of the record",
				len);
	rec->u.log.message.ptr = (const char *)p;
	rec->u.log.message.len = len;
	return 0;
}

static int read_large(struct ctx *x, struct cursor *c, uint64_t h,
		      struct ftf_record *rec)
{
	uint64_t fh, size;
	int err;

	rec->u.large.large_type = bits(h, 36, 39);
	rec->u.large.format = bits(h, 40, 43);
	if (rec->u.large.large_type != 0 || rec->u.large.format > 1) {
		rec->unknown = true;
		return 0;
	}
	if (!cur_word(c, &fh))
		return rec_fail(x, "large blob record has no format header word");
	err = string_ref(x, c, bits(fh, 0, 15), &rec->u.large.category,
			 "category");
	if (!err)
		err = string_ref(x, c, bits(fh, 16, 31), &rec->u.large.name,
				 "name");
	if (err)
		return err;
	if (rec->u.large.format == 0) {
		rec->u.large.thread_ref = bits(fh, 36, 43);
		if (!cur_word(c, &rec->u.large.ts))
			return rec_fail(x, "large blob event has no timestamp word");
		err = thread_ref(x, c, rec->u.large.thread_ref,
				 &rec->u.large.pt);
		if (!err)
			err = read_args(x, c, bits(fh, 32, 35),
					&rec->u.large.args);
		if (err)
			return err;
	}
	if (!cur_word(c, &size))
		return rec_fail(x, "large blob record has no blob size word");
	if (!cur_bytes(c, size, &rec->u.large.payload))
		return rec_fail(x, "large blob payload of %llu bytes runs past the end of the record",
				(unsigned long long)size);
	rec->u.large.size = size;
	return 0;
}

int ftf_reader_init(struct ftf_reader *r, const uint8_t *data, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->strings = calloc(FTF_READER_MAX_STRINGS, sizeof(*r->strings));
	if (!r->strings) {
		snprintf(r->errmsg, sizeof(r->errmsg),
			 "out of memory for the string table");
		r->err = -ENOMEM;
		r->fatal = true;
		return -ENOMEM;
	}
	r->data = data;
	r->len = data ? len : 0;
	return 0;
}

int ftf_reader_reset(struct ftf_reader *r, const uint8_t *data, size_t len)
{
	struct ftf_reader_string *strings = r->strings;
	struct ftf_reader_owned *owned = r->owned;

	if (!strings)
		return -EINVAL;
	memset(strings, 0, FTF_READER_MAX_STRINGS * sizeof(*strings));
	memset(r, 0, sizeof(*r));
	r->strings = strings;
	r->owned = owned;
	r->data = data;
	r->len = data ? len : 0;
	return 0;
}

int ftf_reader_own_strings(struct ftf_reader *r)
{
	if (r->owned)
		return 0;
	r->owned = calloc(FTF_READER_MAX_STRINGS, sizeof(*r->owned));
	return r->owned ? 0 : -ENOMEM;
}

int ftf_reader_feed(struct ftf_reader *r, const uint8_t *data, size_t len,
		    size_t base)
{
	if (!r->strings)
		return -EINVAL;
	r->data = data;
	r->len = data ? len : 0;
	r->pos = 0;
	r->base = base;
	return 0;
}

void ftf_reader_free(struct ftf_reader *r)
{
	if (r->owned)
		for (size_t i = 0; i < FTF_READER_MAX_STRINGS; i++)
			free(r->owned[i].text);
	free(r->owned);
	r->owned = NULL;
	free(r->strings);
	r->strings = NULL;
}

const char *ftf_reader_error(const struct ftf_reader *r)
{
	return r->err ? r->errmsg : "";
}

const struct ftf_reader_string *ftf_reader_string(const struct ftf_reader *r,
						  unsigned index)
{
	if (!r->strings || index >= FTF_READER_MAX_STRINGS ||
	    !r->strings[index].defined)
		return NULL;
	return &r->strings[index];
}

/* The record's body by its type; an unknown type is marked and
 * skipped. */
static int read_body(struct ctx *x, struct cursor *c, uint64_t h,
		     unsigned type, struct ftf_record *rec)
{
	switch (type) {
	case FTF_REC_METADATA:
		return read_metadata(x, c, h, rec);
	case FTF_REC_INIT:
		return read_init(x, c, rec);
	case FTF_REC_STRING:
		return read_string(x, c, h, rec);
	case FTF_REC_THREAD:
		return read_thread(x, c, h, rec);
	case FTF_REC_EVENT:
		return read_event(x, c, h, rec);
	case FTF_REC_BLOB:
		return read_blob(x, c, h, rec);
	case FTF_REC_USERSPACE_OBJECT:
		return read_uobj(x, c, h, rec);
	case FTF_REC_KERNEL_OBJECT:
		return read_kobj(x, c, h, rec);
	case FTF_REC_SCHED:
		return read_sched(x, c, h, rec);
	case FTF_REC_LOG:
		return read_log(x, c, h, rec);
	case FTF_REC_LARGE:
		return read_large(x, c, h, rec);
	}
	rec->unknown = true;
	return 0;
}

/* The next record's header word and size in words: 1, 0 at the end of
 * the data, or a fatal error (a partial or impossible record). */
static int read_header(struct ftf_reader *r, uint64_t *h, size_t *size)
{
	size_t left = r->len - r->pos;
	unsigned type;

	if (left == 0)
		return 0;
	if (left < 8)
		return fatal_fail(r, r->pos, r->pos,
				  "%zu trailing bytes are not a whole record",
				  left);
	*h = load_word(r->data + r->pos);
	type = bits(*h, 0, 3);
	*size = type == FTF_REC_LARGE ? bits(*h, 4, 35) : bits(*h, 4, 15);
	if (*size == 0)
		return fatal_fail(r, r->pos, r->pos + 8,
				  "record of type %u has size 0", type);
	if (*size > left / 8)
		return fatal_fail(r, r->pos, r->pos,
				  "record size %zu words runs past the end of the data (%zu bytes left)",
				  *size, left);
	return 1;
}

int ftf_reader_next(struct ftf_reader *r, struct ftf_record *rec)
{
	size_t size = 0;
	struct cursor c;
	struct ctx x;
	uint64_t h = 0;
	unsigned type;
	int err;

	if (r->fatal)
		return r->err;
	if (!r->strings)
		return fatal_fail(r, r->pos, r->pos, "reader not initialised");
	err = read_header(r, &h, &size);
	if (err <= 0)
		return err;
	type = bits(h, 0, 3);
	memset(rec, 0, sizeof(*rec));
	rec->offset = r->base + r->pos;
	rec->type = type;
	rec->size_words = size;
	rec->header = h;
	c.p = r->data + r->pos + 8;
	c.n = size - 1;
	x.r = r;
	x.off = r->pos;
	x.end = r->pos + size * 8;
	/* The record is whole: whatever its content, the next one follows. */
	r->pos = x.end;
	err = read_body(&x, &c, h, type, rec);
	if (err)
		return err;
	if (rec->unknown)
		r->skipped++;
	r->records++;
	return 1;
}

const char *ftf_obj_type_name(unsigned t)
{
	/* Zircon's ZX_OBJ_TYPE_* numbering, as Fuchsia's reader names them. */
	static const char *const names[] = {
		[1] = "process", [2] = "thread", [3] = "vmo", [4] = "channel",
		[5] = "event", [6] = "port", [9] = "interrupt",
		[11] = "pci-device", [12] = "log", [14] = "socket",
		[15] = "resource", [16] = "event-pair", [17] = "job",
		[18] = "vmar", [19] = "fifo", [20] = "guest", [21] = "vcpu",
		[22] = "timer", [23] = "iommu", [24] = "bti", [25] = "profile",
		[26] = "pmt", [27] = "suspend-token", [28] = "pager",
		[29] = "exception",
	};

	return t < sizeof(names) / sizeof(names[0]) ? names[t] : NULL;
}

const char *ftf_thread_state_name(unsigned s)
{
	static const char *const names[] = {
		"new", "running", "suspended", "blocked", "dying", "dead",
	};

	return s < 6 ? names[s] : NULL;
}
