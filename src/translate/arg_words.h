/* SPDX-License-Identifier: MIT */
/*
 * arg_words.h - the one-word arguments of the records the translator
 * and the shards write whole (ftf_reserve_record).
 */
#ifndef FTFB_ARG_WORDS_H
#define FTFB_ARG_WORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "ftf/reader.h"
#include "ftf/writer.h"

static inline uint64_t arg_int32_word(int name, int32_t v)
{
	return ftf_arg_word(FTF_ARG_INT32, 1, name) | ((uint64_t)(uint32_t)v << 32);
}

static inline uint64_t arg_bool_word(int name, bool v)
{
	return ftf_arg_word(FTF_ARG_BOOL, 1, name) | ((uint64_t)v << 32);
}

#endif
