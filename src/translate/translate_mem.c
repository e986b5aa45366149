// SPDX-License-Identifier: MIT
/*
 * src/translate_mem.c - --events=mem: resident memory (struct ftfb_rss)
 * as process counters, and blocking page faults (struct ftfb_fault) as
 * slices on their thread.
 *
 * A counter record on any thread of a process becomes, in Perfetto's
 * Fuchsia importer, a counter track of that process named
 * "NAME:ARGNAME" for each argument: one record per change, named "rss"
 * with one argument (file, anon, swap or shmem) in bytes, gives the
 * tracks rss:file, rss:anon, rss:swap, rss:shmem.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mem.h"
#include "translate_priv.h"

/* the translator's state of the source (ftfb_tr_state): names (0: not
 * yet) and the page size */
struct mem_state {
	int s_mm, s_rss, s_fault, s_addr, s_blocked, s_write;
	int s_member[FTFB_RSS_MEMBERS];
	uint64_t page_size;
};

static const char *const member_names[FTFB_RSS_MEMBERS] = {
	"file",
	"anon",
	"swap",
	"shmem",
};

/* *out = the id of s, kept in *cache; 0 or the writer's error */
static int id_of(struct ftfb_translator *t, int *cache, const char *s, int *out)
{
	int id = ftfb_tr_cached_id(t, cache, s);

	if (id < 0)
		return id;
	*out = id;
	return 0;
}

static int on_rss(struct ftfb_translator *t, const struct ftfb_rss *e)
{
	struct mem_state *m = ftfb_tr_state(t, FTFB_EV_RSS);
	struct ftfb_task *k;
	int ref, err, mm = 0, rss = 0, arg = 0;

	if (e->member >= FTFB_RSS_MEMBERS) {
		t->st.skipped++;
		return 0;
	}
	if (!m->page_size)
		m->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	err = ftfb_tr_ensure_task(t, e->hdr.tgid, e->hdr.tgid, &k);
	if (!err)
		err = id_of(t, &m->s_rss, "rss", &rss);
	if (!err)
		err = id_of(t, &m->s_mm, "mm", &mm);
	if (!err)
		err = id_of(t, &m->s_member[e->member], member_names[e->member],
			    &arg);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = ftf_write_counter(t->w, FTF_ARG_TYPES(1, 0, 0, 0, 0, 0), ref, mm,
				rss, ftfb_tr_ticks(t, e->hdr.ts), 0);
	if (!err)
		err = ftf_arg_int64(t->w, arg,
				    e->pages * (int64_t)m->page_size);
	if (err)
		return err;
	t->st.records++;
	return 0;
}

static int on_fault(struct ftfb_translator *t, const struct ftfb_fault *e)
{
	struct mem_state *m = ftfb_tr_state(t, FTFB_EV_FAULT);
	uint64_t begin = e->start_ns <= e->hdr.ts ? e->start_ns : e->hdr.ts;
	struct ftfb_task *k;
	int ref, err, mm = 0, name = 0, addr = 0, blocked = 0, wr = 0;

	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
	if (!err)
		err = id_of(t, &m->s_mm, "mm", &mm);
	if (!err)
		err = id_of(t, &m->s_fault, "page fault", &name);
	if (!err)
		err = id_of(t, &m->s_addr, "address", &addr);
	if (!err)
		err = id_of(t, &m->s_blocked, "blocked_ns", &blocked);
	if (!err)
		err = id_of(t, &m->s_write, "write", &wr);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	err = ftf_write_duration_complete(
		t->w, FTF_ARG_TYPES(2, 0, 1, 0, 0, 0), ref, mm, name,
		ftfb_tr_ticks(t, begin), ftfb_tr_ticks(t, e->hdr.ts));
	if (!err)
		err = ftf_arg_pointer(t->w, addr, e->addr);
	if (!err)
		err = ftf_arg_uint64(t->w, blocked, e->blocked_ns);
	if (!err)
		err = ftf_arg_bool(t->w, wr, e->error & 2);
	if (err)
		return err;
	t->st.records++;
	return 0;
}

static int ev_rss(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_rss e;

	(void)size;
	memcpy(&e, data, sizeof(e)); /* (aligned, whatever the caller's) */
	return on_rss(t, &e);
}

static int ev_fault(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_fault e;

	(void)size;
	memcpy(&e, data, sizeof(e));
	return on_fault(t, &e);
}

static const struct ftfb_kind_info kinds[] = {
	{FTFB_EV_RSS, sizeof(struct ftfb_rss), "rss", "memory counter changes",
	 ev_rss},
	{FTFB_EV_FAULT, sizeof(struct ftfb_fault), "page_fault",
	 "blocking page faults", ev_fault},
};

const struct ftfb_tr_source ftfb_tr_mem = {"mem", kinds, 2,
					   sizeof(struct mem_state)};
