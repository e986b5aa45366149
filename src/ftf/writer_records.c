// SPDX-License-Identifier: MIT
/*
 * writer_records.c - the FTF writer's other records: scheduling,
 * provider events, logs, blobs and raw reserved records.
 */
#include "writer_priv.h"

/* Scheduling records carry the argument count in bits 16..19 rather
 * than 20..23; the template still drives the pending-argument check. */
/* The slow half of the header's inline ftf_reserve_record(). */
int ftf__reserve_record_slow(struct ftf_writer *w, size_t words, uint8_t **out)
{
	int err;

	if (w->closed)
		return check_open(w);
	if (words > MAX_RECORD_WORDS || words == 0)
		return ftf__fail(w, -EINVAL, "record of %zu words (1..%d)",
				 words, MAX_RECORD_WORDS);
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
	err = ftf__check_template(w, arg_types, fixed_words);
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
	return ftf__fail(w, -EINVAL, "thread state out of range: %d", state);
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
				((uint64_t)cpu << 20) |
					((uint64_t)out_state << 36) |
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
	if ((err = ftf__check_thread_ref(w, thread)) ||
	    (err = ftf__check_string_length(w, len)))
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
		return ftf__fail(w, -E2BIG,
				 "blob of %zu bytes: at most %d fit a record",
				 len, FTF_MAX_BLOB_LEN);
	if (blob_type > 255)
		return ftf__fail(w, -EINVAL, "blob type %u: at most 255",
				 blob_type);
	if ((err = ftf__check_string_id(w, "blob name", name)))
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
