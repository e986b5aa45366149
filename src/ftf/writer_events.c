// SPDX-License-Identifier: MIT
/*
 * writer_events.c - the FTF writer's event records: instant, counter,
 * duration, async and flow events, and the precomputed headers of the
 * expert API.
 */
#include "writer_priv.h"

/* ------------------------------------------------------------------ */
/* events                                                              */
/* ------------------------------------------------------------------ */

int ftf__check_template(struct ftf_writer *w, ftf_arg_types t, int fixed_words)
{
	if (t < 0 || (t & ~TEMPLATE_MASK))
		return ftf__fail(w, -EINVAL, "invalid arg types 0x%llx",
				 (unsigned long long)t);
	if (tmpl_words(t) + fixed_words > MAX_RECORD_WORDS)
		return ftf__fail(w, -E2BIG, "record too large: %lld words > %d",
				 (long long)(tmpl_words(t) + fixed_words),
				 MAX_RECORD_WORDS);
	return 0;
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
		if ((err = ftf__check_template(w, arg_types,
					       2 + extra_words)) ||
		    (err = ftf__check_thread_ref(w, thread)) ||
		    (err = ftf__check_string_id(w, "category", category)) ||
		    (err = ftf__check_string_id(w, "name", name)))
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
	int err = ftf__write_event(w, event_type, 1, arg_types, thread,
				   category, name, ticks);

	if (err)
		return err;
	w->word_to_flush = word;
	w->pending_word = true;
	return 0;
}

int ftf_write_instant(struct ftf_writer *w, ftf_arg_types arg_types, int thread,
		      int category, int name, uint64_t ticks)
{
	return ftf__write_event(w, FTF_EVENT_INSTANT, 0, arg_types, thread,
				category, name, ticks);
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
	return ftf__write_event(w, FTF_EVENT_DURATION_BEGIN, 0, arg_types,
				thread, category, name, ticks);
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
		return ftf__fail(
			w, -EINVAL,
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
	return ftf__write_event_word(w, FTF_EVENT_ASYNC_BEGIN, arg_types,
				     thread, category, name, ticks, async_id);
}

int ftf_write_async_instant(struct ftf_writer *w, ftf_arg_types arg_types,
			    int thread, int category, int name, uint64_t ticks,
			    uint64_t async_id)
{
	return ftf__write_event_word(w, FTF_EVENT_ASYNC_INSTANT, arg_types,
				     thread, category, name, ticks, async_id);
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
