// SPDX-License-Identifier: MIT
/*
 * kitchen-sink OUT.fxt - one of every record, event and argument type
 * libftf writes, each named after what it is, through the public API.
 *
 * It is the API's showcase and a fixture for outside checks: load
 * OUT.fxt in Perfetto, or run `ftf-dump OUT.fxt`, and every record says
 * what it is meant to be.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/writer.h"

#define CHECK(call)                                                            \
	do {                                                                   \
		int rc_ = (call);                                              \
		if (rc_ < 0) {                                                 \
			fprintf(stderr, "kitchen-sink: %s: %s (%d)\n", #call,  \
				ftf_writer_error(&w), rc_);                    \
			ftf_writer_close(&w);                                  \
			return 1;                                              \
		}                                                              \
	} while (0)

/* Interns s into *id, or fails. */
#define INTERN(id, s) CHECK((id) = ftf_intern_string(&w, (s)))

int main(int argc, char **argv)
{
	struct ftf_dest_file file;
	struct ftf_writer w;
	struct ftf_writer_options opts = {
		.provider_name = "ftf_kitchen_sink",
		.num_temp_strs = -1,
	};
	const struct ftf_clock *clk;
	uint64_t pid = (uint64_t)getpid(), tid = (uint64_t)gettid();
	uint64_t other_tid = tid + 1000000, t, h;
	int err, main_th, other_th;
	int cat, s_proc, s_main, s_other, s_every, s_counter, s_dur, s_complete,
		s_async, s_flow_a, s_flow_b, s_flow_c, s_fast, s_bytes;
	int a_i32, a_u32, a_i64, a_u64, a_ptr, a_koid, a_float, a_bool, a_str,
		a_inl, a_value, a_ratio, a_in_w, a_out_w, a_waker, a_end_arg;
	int s_hello, temp, dyn, dyn2;
	ftf_arg_types every, one_i64, two_i32, counter_types;
	uint64_t raw[2];

	if (argc != 2) {
		fprintf(stderr, "usage: kitchen-sink OUT.fxt\n"
				"  writes one of every FTF record, event and "
				"argument type to OUT.fxt\n");
		return 2;
	}
	err = ftf_dest_file_open(&file, argv[1], 0);
	if (err) {
		fprintf(stderr, "kitchen-sink: %s\n", file.errmsg);
		return 1;
	}
	/* magic, provider info, provider section, "process" string */
	err = ftf_writer_init(&w, &file.base, &opts);
	if (err) {
		fprintf(stderr, "kitchen-sink: %s\n", ftf_writer_error(&w));
		return 1;
	}
	clk = ftf_writer_clock(&w);
	fprintf(stderr, "kitchen-sink: clock %s, %llu ticks/s%s%s\n",
		clk->source == FTF_CLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC",
		(unsigned long long)clk->ticks_per_second,
		clk->fallback_reason[0] ? " - " : "", clk->fallback_reason);

	/* initialization record (4 words) */
	CHECK(ftf_make_and_write_tick_translation(&w));

	/* string records */
	INTERN(cat, "kitchen_sink");
	INTERN(s_proc, "kitchen-sink process");
	INTERN(s_main, "main_thread");
	INTERN(s_other, "other_thread");
	INTERN(s_every, "instant_with_every_arg");
	INTERN(s_counter, "counter_with_int64_and_float");
	INTERN(s_dur, "duration_begin_end");
	INTERN(s_complete, "duration_complete");
	INTERN(s_async, "async_begin_instant_end");
	INTERN(s_flow_a, "flow_begin_slice");
	INTERN(s_flow_b, "flow_step_slice");
	INTERN(s_flow_c, "flow_end_slice");
	INTERN(s_fast, "fast_path_async_begin");
	INTERN(s_bytes, "instant_from_write_bytes");
	INTERN(s_hello, "interned string value");
	INTERN(a_i32, "int32_arg");
	INTERN(a_u32, "uint32_arg");
	INTERN(a_i64, "int64_arg");
	INTERN(a_u64, "uint64_arg");
	INTERN(a_ptr, "pointer_arg");
	INTERN(a_koid, "koid_arg");
	INTERN(a_float, "float_arg");
	INTERN(a_bool, "bool_arg");
	INTERN(a_str, "interned_string_arg");
	INTERN(a_inl, "inline_string_arg");
	INTERN(a_value, "value");
	INTERN(a_ratio, "ratio");
	INTERN(a_in_w, "incoming_weight");
	INTERN(a_out_w, "outgoing_weight");
	INTERN(a_waker, "waker");
	INTERN(a_end_arg, "arg_on_end");
	CHECK(temp = ftf_set_temp_string_slot(&w, 0,
					      "instant_named_by_temp_slot"));
	CHECK(dyn = ftf_set_dyn_slot(&w, 0, "instant_named_by_dyn_slot"));
	/* a 16-byte name made of two words: "dyn_slot_2_words" */
	memcpy(raw, "dyn_slot_2_words", 16);
	CHECK(dyn2 = ftf_set_dyn_slot_2_int64s(&w, 1, raw[0], raw[1]));

	/* thread records, process and thread kernel objects */
	CHECK(main_th = ftf_set_thread_slot(&w, 0, pid, tid));
	CHECK(other_th = ftf_set_thread_slot(&w, 1, pid, other_tid));
	CHECK(ftf_set_process_name(&w, pid, s_proc));
	CHECK(ftf_set_thread_name(&w, pid, tid, s_main));
	CHECK(ftf_set_thread_name(&w, pid, other_tid, s_other));

	/* instant with one argument of every type */
	CHECK(ftf_arg_types_create(&every, 4, 2, 1, 1, 1, 1));
	CHECK(ftf_arg_types_add_inline_string(&every, 13));
	t = ftf_clock_now(clk);
	CHECK(ftf_write_instant(&w, every, main_th, cat, s_every, t));
	CHECK(ftf_arg_int32(&w, a_i32, -32));
	CHECK(ftf_arg_uint32(&w, a_u32, 4000000000u));
	CHECK(ftf_arg_int64(&w, a_i64, -6400000000ll));
	CHECK(ftf_arg_uint64(&w, a_u64, 18000000000000000000ull));
	CHECK(ftf_arg_pointer(&w, a_ptr, (uint64_t)(uintptr_t)&w));
	CHECK(ftf_arg_koid(&w, a_koid, tid));
	CHECK(ftf_arg_float(&w, a_float, 3.25));
	CHECK(ftf_arg_bool(&w, a_bool, true));
	CHECK(ftf_arg_string(&w, a_str, s_hello));
	CHECK(ftf_arg_inline_string(&w, a_inl, "inline string", 13));

	/* instants named through a temp slot and the dyn slots */
	t = ftf_clock_now(clk);
	CHECK(ftf_write_instant(&w, FTF_ARG_TYPES_NONE, main_th, cat, temp, t));
	CHECK(ftf_write_instant(&w, FTF_ARG_TYPES_NONE, main_th, cat, dyn, t));
	CHECK(ftf_write_instant(&w, FTF_ARG_TYPES_NONE, main_th, cat, dyn2, t));

	/* counter */
	CHECK(ftf_arg_types_create(&counter_types, 1, 0, 0, 1, 0, 0));
	CHECK(ftf_write_counter(&w, counter_types, main_th, cat, s_counter,
				ftf_clock_now(clk), 1));
	CHECK(ftf_arg_int64(&w, a_value, 42));
	CHECK(ftf_arg_float(&w, a_ratio, 0.5));

	/* duration begin / end (the end carries an argument), with a flow
	 * begin inside; the flow steps and ends in slices of the other
	 * thread */
	CHECK(ftf_arg_types_create(&one_i64, 1, 0, 0, 0, 0, 0));
	CHECK(ftf_write_duration_begin(&w, FTF_ARG_TYPES_NONE, main_th, cat,
				       s_dur, ftf_clock_now(clk)));
	CHECK(ftf_write_duration_begin(&w, FTF_ARG_TYPES_NONE, main_th, cat,
				       s_flow_a, ftf_clock_now(clk)));
	CHECK(ftf_write_flow_begin(&w, main_th, ftf_clock_now(clk), 7));
	CHECK(ftf_write_duration_end(&w, FTF_ARG_TYPES_NONE, main_th, cat,
				     s_flow_a, ftf_clock_now(clk)));
	CHECK(ftf_write_duration_end(&w, one_i64, main_th, cat, s_dur,
				     ftf_clock_now(clk)));
	CHECK(ftf_arg_int64(&w, a_end_arg, 1));
	t = ftf_clock_now(clk);
	CHECK(ftf_write_duration_begin(&w, FTF_ARG_TYPES_NONE, other_th, cat,
				       s_flow_b, t));
	CHECK(ftf_write_flow_step(&w, other_th, t + 1, 7));
	CHECK(ftf_write_duration_end(&w, FTF_ARG_TYPES_NONE, other_th, cat,
				     s_flow_b, t + 2));
	CHECK(ftf_write_duration_begin(&w, FTF_ARG_TYPES_NONE, other_th, cat,
				       s_flow_c, t + 3));
	CHECK(ftf_write_flow_end(&w, other_th, t + 4, 7));
	CHECK(ftf_write_duration_end(&w, FTF_ARG_TYPES_NONE, other_th, cat,
				     s_flow_c, t + 5));

	/* duration complete */
	t = ftf_clock_now(clk);
	CHECK(ftf_write_duration_complete(&w, FTF_ARG_TYPES_NONE, main_th, cat,
					  s_complete, t, t + 1000));

	/* async begin / instant / end */
	CHECK(ftf_write_async_begin(&w, FTF_ARG_TYPES_NONE, main_th, cat,
				    s_async, ftf_clock_now(clk), 99));
	CHECK(ftf_write_async_instant(&w, FTF_ARG_TYPES_NONE, other_th, cat,
				      s_async, ftf_clock_now(clk), 99));
	CHECK(ftf_write_async_end(&w, FTF_ARG_TYPES_NONE, main_th, cat, s_async,
				  ftf_clock_now(clk), 99));

	/* the expert fast path: async begin with an int64 argument */
	h = ftf_precompute_header(FTF_EVENT_ASYNC_BEGIN, 1, one_i64, main_th,
				  cat, s_fast);
	CHECK(ftf_write_from_header_and_get_tsc(&w, h, &t));
	ftf_arg_unchecked_int64(&w, a_i64, 64);
	ftf_write_async_id(&w, 100);
	h = ftf_precompute_header(FTF_EVENT_ASYNC_END, 1, FTF_ARG_TYPES_NONE,
				  main_th, cat, s_fast);
	CHECK(ftf_write_from_header_and_get_tsc(&w, h, NULL));
	ftf_write_async_id(&w, 100);

	/* an instant with an inline name (fast path) */
	h = ftf_precompute_header(FTF_EVENT_INSTANT, 0, FTF_ARG_TYPES_NONE,
				  main_th, cat, 0);
	CHECK(ftf_header_update_size_for_name(&h, 24));
	CHECK(ftf_write_from_header_and_get_tsc(&w, h, NULL));
	CHECK(ftf_write_string_stream(&w, "instant_with_inline_name", 24));

	/* raw bytes: a pre-built 2-word instant */
	raw[0] = 4 | (2ull << 4) | ((uint64_t)main_th << 24) |
		 ((uint64_t)cat << 32) | ((uint64_t)s_bytes << 48);
	raw[1] = ftf_clock_now(clk);
	CHECK(ftf_write_bytes(&w, raw, sizeof(raw)));

	/* scheduling: a context switch main -> other on cpu 0, then a
	 * wakeup of main by other on cpu 1 */
	CHECK(ftf_arg_types_create(&two_i32, 0, 2, 0, 0, 0, 0));
	CHECK(ftf_write_context_switch(&w, two_i32, 0, FTF_THREAD_BLOCKED, tid,
				       other_tid, ftf_clock_now(clk)));
	CHECK(ftf_arg_int32(&w, a_in_w, 120));
	CHECK(ftf_arg_int32(&w, a_out_w, 100));
	CHECK(ftf_write_thread_wakeup(&w, one_i64, 1, tid, ftf_clock_now(clk)));
	CHECK(ftf_arg_koid(&w, a_waker, other_tid));

	/* provider event: buffer full, records dropped */
	CHECK(ftf_write_provider_event_dropped(&w, 0));

	/* log record */
	CHECK(ftf_write_log(&w, main_th, ftf_clock_now(clk),
			    "log_record from kitchen-sink", 28));

	err = ftf_writer_close(&w);
	if (err) {
		fprintf(stderr, "kitchen-sink: close: %s\n",
			ftf_writer_error(&w));
		return 1;
	}
	return 0;
}
