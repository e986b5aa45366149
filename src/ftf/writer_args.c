// SPDX-License-Identifier: MIT
/*
 * writer_args.c - the FTF writer's arguments: the argument-type
 * templates, and the argument words, checked and unchecked.
 */
#include <string.h>

#include "writer_priv.h"

/* ------------------------------------------------------------------ */
/* argument-type templates                                             */
/* ------------------------------------------------------------------ */

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
	int err = ftf__check_string_length(w, len);

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
		return ftf__fail(
			w, -EPROTO,
			"too many args written for arg type signature");
	if (__builtin_expect((unsigned)name > FTF_STRING_MAX_ID, 0))
		return ftf__fail(w, -EINVAL,
				 "arg name string id out of range: %d", name);
	w->pending_args -= one;
	return 0;
}

#define ONE_WORD_ARG FTF_ARG_TYPES(0, 1, 0, 0, 0, 0)
#define TWO_WORD_ARG FTF_ARG_TYPES(1, 0, 0, 0, 0, 0)

/* The slow half of the header's inline ftf__arg_put. */
int ftf__take_arg(struct ftf_writer *w, int name, int words)
{
	return take_arg(w, name, words,
			words == 1 ? ONE_WORD_ARG : TWO_WORD_ARG);
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
		return ftf__fail(w, -EINVAL,
				 "string arg value id out of range: %d", value);
	err = take_arg(w, name, 1, ONE_WORD_ARG);
	if (!err)
		u_string(w, name, value);
	return err;
}

int ftf_arg_inline_string(struct ftf_writer *w, int name, const char *value,
			  size_t len)
{
	int words = 1 + (int)round_words(len);
	int err = ftf__check_string_length(w, len);

	if (err)
		return err;
	err = take_arg(w, name, words,
		       ftf_arg_types_add_size(ONE_WORD_ARG, words - 1));
	if (err)
		return err;
	return ftf_arg_unchecked_inline_string(w, name, value, len);
}
