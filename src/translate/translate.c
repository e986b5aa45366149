// SPDX-License-Identifier: MIT
/*
 * translate.c - raw BPF events -> FTF records (see translate.h): the
 * dispatch of each event to its kind's handler (event_kinds.c), the
 * translator's life (init, finish), the drop counter and the clock
 * Perfetto reads.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "translate.h"
#include "translate_priv.h"
#include "proctree.h"
#include "event_kinds.h"

#define COUNTER_NAME "ftf-bpf dropped events"
#define COUNTER_CAT "ftf-bpf"
#define MAX_DROP_KIND_ARGS 14 /* FTF's 15 args, less "total" */
#define PROVIDER_ID 0 /* the writer's provider (writer.ml: provider_id = 0) */

/* Called with every event's timestamp: re-emits the tick initialization
 * as the writer's buffers age. Only the newest time seen is used, so
 * events slightly out of order across CPUs never look "stale". */
/* What advance() does once a millisecond of the stream (or while command
 * lines wait): out of line, so the per-event path stays a leaf. */
static __attribute__((noinline)) int advance_due(struct ftfb_translator *t,
						 uint64_t ns)
{
	int err;

	t->refresh_check_ns = ns + 1000000;
	err = ftf_refresh_buf_if_stale(t->w, ftfb_tr_ticks(t, ns));
	/* the command lines of the tasks found at the start, timed at the
	 * first event (see proctree.h) */
	if (!err && t->ptree.count)
		err = ftfb_tr_flush_cmdlines(t, ns);
	return err;
}

static inline int advance(struct ftfb_translator *t, uint64_t ns)
{
	if (ns <= t->last_ts)
		return 0;
	t->last_ts = ns;
	/* the refresh is due once a second: asked at most once per
	 * millisecond of the stream, not for every event */
	if (__builtin_expect(ns < t->refresh_check_ns && !t->ptree.count, 1))
		return 0;
	return advance_due(t, ns);
}

static int intern_fixed(struct ftfb_translator *t, const char *s)
{
	return ftfb_tr_str_id(t, s, strlen(s), NULL);
}

/* The core's kinds, then each source's (a kind claimed twice: -EINVAL),
 * and each source's state. */
static int add_sources(struct ftfb_translator *t)
{
	const struct ftfb_translator_opts *o = &t->o;

	memcpy(t->kinds, ftfb_kinds, sizeof(t->kinds));
	if (!o->nsources)
		return 0;
	t->src_state = calloc(o->nsources, sizeof(*t->src_state));
	if (!t->src_state)
		return -ENOMEM;
	for (size_t i = 0; i < o->nsources; i++) {
		const struct ftfb_tr_source *src = o->sources[i];

		if (src->state_size &&
		    !(t->src_state[i] = calloc(1, src->state_size)))
			return -ENOMEM;
		for (size_t j = 0; j < src->nkinds; j++) {
			const struct ftfb_kind_info *ki = &src->kinds[j];

			if (ki->kind >= FTFB_EV_KIND_MAX ||
			    t->kinds[ki->kind].name)
				return -EINVAL;
			t->kinds[ki->kind] = *ki;
			t->kind_state[ki->kind] = t->src_state[i];
		}
	}
	return 0;
}

/* ---- public API ---- */

int ftfb_translator_init(struct ftfb_translator *t,
			 const struct ftfb_translator_opts *o)
{
	char buf[8];
	int err;

	memset(t, 0, sizeof(*t));
	t->o = *o;
	t->w = o->w;
	t->close_task = ftfb_tr_close_all;
	if (!t->w || (o->nfuncs && !o->funcs) || (o->nsources && !o->sources))
		return -EINVAL;
	ftfb_tr_sched_init(t);
	err = ftfb_pt_init(&t->pt, o->expected_tasks ? o->expected_tasks : 4096,
			   o->max_depth);
	if (err)
		return err;
	if (o->nfuncs) {
		t->fstats = calloc(o->nfuncs, sizeof(*t->fstats));
		t->func_name_id = calloc(o->nfuncs, sizeof(int));
		t->func_cat_id = calloc(o->nfuncs, sizeof(int));
		if (!t->fstats || !t->func_name_id || !t->func_cat_id) {
			ftfb_translator_free(t);
			return -ENOMEM;
		}
	}
	err = ftf_make_and_write_tick_translation(t->w);
	if (err < 0)
		goto fail;
	t->st.records++;
#define INTERN(field, s)                                                       \
	do {                                                                   \
		err = intern_fixed(t, s);                                      \
		if (err < 0)                                                   \
			goto fail;                                             \
		t->field = err;                                                \
	} while (0)
	INTERN(sched.s_incoming_weight, "incoming_weight");
	INTERN(sched.s_outgoing_weight, "outgoing_weight");
	INTERN(sched.s_waker, "waker");
	INTERN(s_unfinished, "unfinished");
	INTERN(s_before_window, "before_window");
	INTERN(s_syscall, "syscall");
	INTERN(s_error, "error");
	INTERN(s_ret, "ret");
	for (int i = 0; i < FTFB_MAX_ARGS; i++) {
		buf[0] = 'a';
		buf[1] = 'r';
		buf[2] = 'g';
		buf[3] = (char)('0' + i);
		buf[4] = '\0';
		INTERN(s_arg[i], buf);
	}
	INTERN(s_drop_name, COUNTER_NAME);
	INTERN(s_drop_cat, COUNTER_CAT);
	INTERN(s_total, "total");
	err = add_sources(t);
	if (err < 0)
		goto fail;
	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		INTERN(s_kind[i], t->kinds[i].name ? t->kinds[i].name : "other");
	err = ftfb_tr_usdt_init(t);
	if (err < 0)
		goto fail;
#undef INTERN
	return 0;
fail:
	ftfb_translator_free(t);
	return err;
}

void ftfb_translator_free(struct ftfb_translator *t)
{
	ftfb_pt_free(&t->pt);
	free(t->fstats);
	free(t->func_name_id);
	free(t->func_cat_id);
	ftfb_tr_usdt_free(t);
	ftfb_proctree_free(&t->ptree);
	ftfb_nt_free(&t->ntracks);
	for (size_t i = 0; t->src_state && i < t->o.nsources; i++)
		free(t->src_state[i]);
	free(t->src_state);
	t->src_state = NULL;
	t->fstats = NULL;
	t->func_name_id = NULL;
	t->func_cat_id = NULL;
}

int ftfb_translator_event(struct ftfb_translator *t, const void *data,
			  size_t size)
{
	const struct ftfb_kind_info *ki;
	uint16_t kind;
	uint64_t ts;
	int err;

	t->st.events++;
	if (size < sizeof(struct ftfb_hdr)) {
		t->st.skipped++;
		return 0;
	}
	/* (the two fields alone: a copy of the whole header would take a
	 * stack frame on this, the hottest path) */
	memcpy(&kind, (const char *)data + offsetof(struct ftfb_hdr, kind),
	       sizeof(kind));
	memcpy(&ts, (const char *)data + offsetof(struct ftfb_hdr, ts),
	       sizeof(ts));
	ki = kind < FTFB_EV_KIND_MAX ? &t->kinds[kind] : NULL;
	if (!ki || !ki->handler || size < ki->size) {
		t->st.skipped++;
		return 0;
	}
	t->st.by_kind[kind]++;
	err = advance(t, ts);
	if (err)
		return err;
	return ki->handler(t, data, size);
}

int ftfb_translator_drops(struct ftfb_translator *t, uint64_t mono_ns,
			  const uint64_t drops[FTFB_EV_KIND_MAX])
{
	struct ftfb_task *idle;
	uint64_t total = 0;
	int err, ref;

	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		total += drops[i];
	/* (none lost: no counter, whose track would make the tracer a
	 * process of the trace for nothing) */
	if (!total || (t->drops_written && total == t->st.dropped_total))
		return 0;
	err = advance(t, mono_ns);
	if (err)
		return err;
	/* The counter lives on the tracer's own thread when it is given
	 * (in Perfetto: under the ftf-bpf process), else on pid 0 / tid 0. */
	err = ftfb_tr_ensure_task(t, t->o.self_tid, t->o.self_tid, &idle);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, idle);
	if (ref < 0)
		return ref;
	/* One arg per kind that has lost events (the counts only grow, so a
	 * kind once shown stays): FTF allows 15 args, total included, and
	 * there are more kinds than that. */
	int shown = 0;
	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		shown += drops[i] && shown < MAX_DROP_KIND_ARGS;
	err = ftf_write_counter(t->w, FTF_ARG_TYPES(1 + shown, 0, 0, 0, 0, 0),
				ref, t->s_drop_cat, t->s_drop_name,
				ftfb_tr_ticks(t, mono_ns), 0);
	if (!err)
		err = ftf_arg_int64(t->w, t->s_total, (int64_t)total);
	for (int i = 0; !err && shown && i < FTFB_EV_KIND_MAX; i++) {
		if (!drops[i])
			continue;
		err = ftf_arg_int64(t->w, t->s_kind[i], (int64_t)drops[i]);
		shown--;
	}
	if (err)
		return err;
	t->st.records++;
	if (total > t->st.dropped_total) {
		err = ftf_write_provider_event_dropped(t->w, PROVIDER_ID);
		if (err)
			return err;
		t->st.records++;
	}
	t->drops_written = true;
	t->st.dropped_total = total;
	return 0;
}

struct finish_ctx {
	struct ftfb_translator *t;
	uint64_t ns;
	int err;
};

static void finish_one(struct ftfb_task *k, void *arg)
{
	struct finish_ctx *c = arg;

	if (!c->err && (k->depth || k->sys.open || k->uslice_top))
		c->err = ftfb_tr_close_all(c->t, k, c->ns);
	k->overflow = 0;
	k->overflow_sp = 0;
}

int ftfb_translator_finish(struct ftfb_translator *t, uint64_t mono_ns)
{
	struct finish_ctx c = {.t = t, .ns = mono_ns};

	if (c.ns < t->last_ts)
		c.ns = t->last_ts;
	ftfb_pt_for_each(&t->pt, finish_one, &c);
	if (!c.err && t->ptree.count)
		c.err = ftfb_tr_flush_cmdlines(t, c.ns);
	if (c.err)
		return c.err;
	if (t->o.stacks && (c.err = ftfb_stackprof_flush(t->o.stacks)))
		return c.err;
	if (t->ntracks.pending) { /* the named tracks' packets kept */
		c.err = ftfb_tr_str_id(t, "perfetto", 8, NULL);
		if (c.err >= 0)
			c.err = ftfb_nt_flush(&t->ntracks, t->w, c.err);
		if (c.err)
			return c.err;
	}
	return ftf_flush(t->w);
}

int ftfb_translator_new(struct ftfb_translator **out,
			const struct ftfb_translator_opts *o)
{
	struct ftfb_translator *t = calloc(1, sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	err = ftfb_translator_init(t, o);
	if (err) {
		free(t);
		return err;
	}
	*out = t;
	return 0;
}

void ftfb_translator_destroy(struct ftfb_translator *t)
{
	if (!t)
		return;
	ftfb_translator_free(t);
	free(t);
}

struct ftfb_proctable *ftfb_translator_tasks(struct ftfb_translator *t)
{
	return &t->pt;
}
