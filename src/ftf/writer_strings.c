// SPDX-License-Identifier: MIT
/*
 * writer_strings.c - the FTF writer's strings: the string records, the
 * interned and slotted string ids, and the optional map from id back to
 * string.
 */
#include <stdlib.h>
#include <string.h>

#include "writer_priv.h"

int ftf__check_string_length(struct ftf_writer *w, size_t len)
{
	if (len > FTF_MAX_STRING_LEN)
		return ftf__fail(
			w, -E2BIG,
			"string too long for FTF trace: %zu is over the "
			"limit of 32kb",
			len);
	return 0;
}

void ftf__free_string_map(struct ftf_writer *w)
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

static int map_set(struct ftf_writer *w, int id, const void *s, size_t len)
{
	char *copy;

	if (!w->string_map_enabled)
		return 0;
	copy = malloc(len + 1);
	if (!copy)
		return ftf__fail(w, -ENOMEM,
				 "out of memory for the string map");
	memcpy(copy, s, len);
	copy[len] = '\0';
	free(w->string_map[id]);
	w->string_map[id] = copy;
	w->string_map_len[id] = (uint16_t)len;
	return 0;
}

/* A string record: header, stream. Checks first, then writes. */
int ftf__string_slot(struct ftf_writer *w, int id, const char *s, size_t len)
{
	size_t rsize = 1 + round_words(len);
	int err;

	err = ftf__check_string_length(w, len);
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
		return ftf__fail(w, -EINVAL, "%s over the limit: %d >= %d",
				 name, slot, max_num);
	if (slot < 0)
		return ftf__fail(w, -EINVAL,
				 "%s must not be negative: slot %d < 0", name,
				 slot);
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
	err = ftf__string_slot(w, id, s, len);
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
		return ftf__fail(w, -EPROTO,
				 "can't intern strings while you still need to "
				 "write arguments");
	id = w->next_string_id;
	if (id > FTF_STRING_MAX_ID)
		return ftf__fail(w, -ENOSPC, "ran out of FTF string IDs");
	err = ftf__string_slot(w, id, s, len);
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
	err = ftf__string_slot(w, id, s, strlen(s));
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
		return ftf__fail(w, -EINVAL,
				 "string slot must be positive: slot %d <= 0",
				 slot);
	if (slot > FTF_STRING_MAX_ID)
		return ftf__fail(w, -EINVAL,
				 "string slot over the limit: %d > %d", slot,
				 FTF_STRING_MAX_ID);
	if (slot == FTF_STRING_PROCESS) {
		if (strcmp(s, "process") != 0)
			return ftf__fail(w, -EINVAL,
					 "tried to overwrite the slot for the "
					 "process string");
		return slot;
	}
	err = ftf__string_slot(w, slot, s, strlen(s));
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
			return ftf__fail(w, -ENOMEM,
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
	int err = ftf__check_string_length(w, len);

	if (err)
		return err;
	err = ensure_capacity(w, len + padding_to_word(len));
	if (err)
		return err;
	put_stream(w, s, len);
	return 0;
}
