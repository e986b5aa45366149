// SPDX-License-Identifier: MIT
/*
 * writer_meta.c - the FTF writer's metadata and kernel-object records:
 * thread slots, process and thread names, tick initialization.
 */
#include "writer_priv.h"

int ftf__check_string_id(struct ftf_writer *w, const char *what, int id)
{
	if (id < 0 || id > FTF_STRING_MAX_ID)
		return ftf__fail(w, -EINVAL, "%s string id out of range: %d",
				 what, id);
	return 0;
}

int ftf__check_thread_ref(struct ftf_writer *w, int thread)
{
	if (thread < 1 || thread > 255)
		return ftf__fail(
			w, -EINVAL,
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
		return ftf__fail(
			w, -EINVAL,
			"thread slot outside of valid range [0,254]: %d", slot);
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
	int err = ftf__check_string_id(w, "process name", name);

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
	int err = ftf__check_string_id(w, "thread name", name);

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
