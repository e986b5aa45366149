// SPDX-License-Identifier: MIT
/*
 * translate_usdt.c - USDT hits (struct ftfb_usdt) -> FTF records.
 *
 * An instant probe is an instant event on its thread: name and category
 * from opts.usdt[cookie], the arguments as int64 `arg0..`, or interned
 * strings for those read as strings. A START~END pair is one duration
 * complete record written at the END: the START's arguments, then the
 * END's (`end_arg0..` unless named).
 *
 * Pairs are not bound to nest: a transaction starts inside one query and
 * commits inside another, a START in one function call ends in another.
 * Perfetto drops a thread track's slice that crosses another
 * (slice_drop_overlapping_complete_event), so a pair that crosses one of
 * its thread's slices - another pair, or a uprobe call - is written on a
 * track of its process named like it (tracks.c: a pseudo thread,
 * not an async track, which Perfetto's Fuchsia importer makes global;
 * an async begin and end only when every track is taken); a pair that
 * nests stays a complete record on its thread, among the calls it
 * belongs to. Whether it crosses
 * is known at its END: a pair started later still open above it, a call
 * it started in that has returned, a call its END is in that began after
 * its START (marked as calls return and pairs end: ftfb_tr_usdt_call_ended,
 * end_slice). A pair crossed that way marks the other one too, so no two
 * complete records of a thread ever cross.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "translate_priv.h"

#define FTF_MAX_ARGS 15

int ftfb_tr_usdt_init(struct ftfb_translator *t)
{
	char buf[16];

	if (!t->o.nusdt)
		return 0;
	if (!t->o.usdt)
		return -EINVAL;
	t->usdt_name_id = calloc(t->o.nusdt, sizeof(int));
	t->usdt_cat_id = calloc(t->o.nusdt, sizeof(int));
	t->uslices = calloc(FTFB_USLICE_MAX, sizeof(*t->uslices));
	if (!t->usdt_name_id || !t->usdt_cat_id || !t->uslices)
		return -ENOMEM;
	for (uint32_t i = 0; i < FTFB_USLICE_MAX; i++)
		t->uslices[i].below = i + 2 <= FTFB_USLICE_MAX ? i + 2 : 0;
	t->uslice_free = 1;
	for (int i = 0; i < FTFB_USDT_MAX_ARGS; i++) {
		int id;

		snprintf(buf, sizeof(buf), "arg%d", i);
		id = ftfb_tr_str_id(t, buf, strlen(buf), NULL);
		if (id < 0)
			return id;
		t->s_uarg[i] = id;
		snprintf(buf, sizeof(buf), "end_arg%d", i);
		id = ftfb_tr_str_id(t, buf, strlen(buf), NULL);
		if (id < 0)
			return id;
		t->s_end_arg[i] = id;
	}
	return 0;
}

void ftfb_tr_usdt_free(struct ftfb_translator *t)
{
	free(t->usdt_name_id);
	free(t->usdt_cat_id);
	free(t->uslices);
	t->usdt_name_id = NULL;
	t->usdt_cat_id = NULL;
	t->uslices = NULL;
}

/* Name and category ids of probe c (kept once permanent). */
static int probe_ids(struct ftfb_translator *t, uint32_t c, int *name, int *cat)
{
	const struct ftfb_usdt_desc *d = &t->o.usdt[c];
	bool tn, tc;

	if (t->usdt_name_id[c] > 0) {
		*name = t->usdt_name_id[c];
		*cat = t->usdt_cat_id[c];
		return 0;
	}
	*cat = ftfb_tr_str_id(t, d->category, strlen(d->category), &tc);
	if (*cat < 0)
		return *cat;
	*name = ftfb_tr_str_id(t, d->name, strlen(d->name), &tn);
	if (*name < 0)
		return *name;
	if (!tn && !tc) {
		t->usdt_name_id[c] = *name;
		t->usdt_cat_id[c] = *cat;
	}
	return 0;
}

/* The arguments of a hit, with its strings as string ids. */
struct uargs {
	uint16_t n, strmask;
	uint64_t v[FTFB_USDT_MAX_ARGS];
};

/* e's arguments; a string that is not where its length says is
 * recorded as that length (an int). */
static int hit_args(struct ftfb_translator *t, const struct ftfb_usdt *e,
		    struct uargs *a)
{
	uint32_t off = 0, sbytes = e->strbytes;

	if (sbytes > FTFB_USDT_STR_BYTES)
		sbytes = FTFB_USDT_STR_BYTES;
	a->n = e->nargs > FTFB_USDT_MAX_ARGS ? FTFB_USDT_MAX_ARGS : e->nargs;
	a->strmask = 0;
	for (int i = 0; i < a->n; i++) {
		uint64_t len = e->args[i];
		int id;

		a->v[i] = e->args[i];
		if (!(e->strmask & (1u << i)))
			continue;
		if (len == 0 || len > FTFB_USDT_STR_LEN || off + len > sbytes)
			continue;
		/* len counts the NUL; a string cut at the bound has none */
		id = ftfb_tr_str_id(t, e->str + off, strnlen(e->str + off, len),
				    NULL);
		if (id < 0)
			return id;
		a->v[i] = (uint64_t)id;
		a->strmask |= 1u << i;
		off += ((uint32_t)len + 7) & ~7u;
	}
	return 0;
}

/* The name of a slice named by its START's string argument i (id
 * a->v[i]): that string, or "NAME STRING" when the pair asks for it. */
static int string_name(struct ftfb_translator *t,
		       const struct ftfb_usdt_desc *d,
		       const struct ftfb_usdt *start, int i)
{
	char buf[64 + FTFB_USDT_STR_LEN + 2];
	uint32_t off = 0, sbytes = start->strbytes;
	int n;

	if (sbytes > FTFB_USDT_STR_BYTES)
		sbytes = FTFB_USDT_STR_BYTES;
	/* where hit_args found it (it was read: within the bounds) */
	for (int j = 0; j < i; j++) {
		uint64_t len = start->args[j];

		if ((start->strmask & (1u << j)) && len &&
		    len <= FTFB_USDT_STR_LEN && off + len <= sbytes)
			off += ((uint32_t)len + 7) & ~7u;
	}
	n = snprintf(buf, sizeof(buf), "%.64s %.*s", d->name,
		     (int)strnlen(start->str + off, start->args[i]),
		     start->str + off);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return ftfb_tr_str_id(t, buf, (size_t)n, NULL);
}

/* The name ids of a's arguments (0: not written), interned before the
 * record is begun (no string can be interned while its arguments are
 * pending). */
static int arg_name_ids(struct ftfb_translator *t,
			const struct ftfb_usdt_desc *d, const struct uargs *a,
			bool end, int ids[FTFB_USDT_MAX_ARGS])
{
	for (int i = 0; i < a->n; i++) {
		const char *n = d->arg_names[i];

		if (!n) {
			ids[i] = end ? t->s_end_arg[i] : t->s_uarg[i];
			continue;
		}
		ids[i] = *n ? ftfb_tr_str_id(t, n, strlen(n), NULL) : 0;
		if (ids[i] < 0)
			return ids[i];
	}
	return 0;
}

/* Adds a's written arguments to *ints and *strs, at most *room. */
static void count_args(const struct uargs *a, const int *ids, int *ints,
		       int *strs, int *room)
{
	for (int i = 0; i<a->n && * room> 0; i++) {
		if (!ids[i])
			continue;
		if (a->strmask & (1u << i))
			(*strs)++;
		else
			(*ints)++;
		(*room)--;
	}
}

static int write_args(struct ftfb_translator *t, const struct uargs *a,
		      const int *ids, int *room)
{
	int err = 0;

	for (int i = 0; !err && i<a->n && * room> 0; i++) {
		if (!ids[i])
			continue;
		if (a->strmask & (1u << i))
			err = ftf_arg_string(t->w, ids[i], (int)a->v[i]);
		else
			err = ftf_arg_int64(t->w, ids[i], (int64_t)a->v[i]);
		(*room)--;
	}
	return err;
}

static int write_instant(struct ftfb_translator *t, struct ftfb_task *k,
			 const struct ftfb_usdt *e, const struct uargs *a)
{
	const struct ftfb_usdt_desc *d = &t->o.usdt[e->cookie];
	int ints = 0, strs = 0, room = FTF_MAX_ARGS, name, cat, ref, err;
	int ids[FTFB_USDT_MAX_ARGS];

	err = probe_ids(t, e->cookie, &name, &cat);
	if (!err)
		err = arg_name_ids(t, d, a, false, ids);
	if (err)
		return err;
	ref = ftfb_tr_thread_ref(t, k);
	if (ref < 0)
		return ref;
	count_args(a, ids, &ints, &strs, &room);
	room = FTF_MAX_ARGS;
	err = ftf_write_instant(t->w, FTF_ARG_TYPES(ints, 0, 0, 0, strs, 0),
				ref, cat, name, ftfb_tr_ticks(t, e->hdr.ts));
	if (!err)
		err = write_args(t, a, ids, &room);
	if (!err) {
		t->st.records++;
		t->st.usdt_instants++;
	}
	return err;
}

static int begin_slice(struct ftfb_translator *t, struct ftfb_task *k,
		       const struct ftfb_usdt *e)
{
	uint32_t idx = t->uslice_free;
	struct ftfb_uslice *s;

	if (!idx) {
		t->st.usdt_capped++;
		return 0;
	}
	s = &t->uslices[idx - 1];
	t->uslice_free = s->below;
	s->start = *e;
	s->depth0 = k->depth;
	s->crossed = false;
	s->below = k->uslice_top;
	k->uslice_top = idx;
	return 0;
}

/* Writes slice s of k (unlinked by the caller) ending at ns, with the
 * END's arguments (end: NULL if it ended without one: unfinished). */
static int write_slice(struct ftfb_translator *t, struct ftfb_task *k,
		       struct ftfb_uslice *s, uint64_t ns,
		       const struct ftfb_usdt *end, const struct uargs *ea)
{
	const struct ftfb_usdt_desc *bd = &t->o.usdt[s->start.cookie];
	const struct ftfb_usdt_desc *ed = end ? &t->o.usdt[end->cookie] : NULL;
	uint64_t begin_ns = s->start.hdr.ts;
	struct uargs ba;
	int ints = 0, strs = 0, room = FTF_MAX_ARGS, name = 0, cat, ref, err;
	ftf_arg_types types;
	int bids[FTFB_USDT_MAX_ARGS], eids[FTFB_USDT_MAX_ARGS];
	struct ftfb_task *track = NULL;
	bool async;

	err = hit_args(t, &s->start, &ba);
	if (!err)
		err = probe_ids(t, s->start.cookie, &name, &cat);
	if (!err && bd->name_arg >= 0 && bd->name_arg < ba.n &&
	    (ba.strmask & (1u << bd->name_arg)))
		name = bd->name_prefixed
			       ? string_name(t, bd, &s->start, bd->name_arg)
			       : (int)ba.v[bd->name_arg];
	if (name < 0)
		err = name;
	if (!err)
		err = arg_name_ids(t, bd, &ba, false, bids);
	if (!err && ed)
		err = arg_name_ids(t, ed, ea, true, eids);
	if (err)
		return err;
	if (ns < begin_ns)
		ns = begin_ns;
	/* a crossing pair: on a track of its process, named like it (an
	 * async pair only if every track is taken) */
	if (s->crossed &&
	    (err = ftfb_tr_track_for(t, k->tgid, bd->name, begin_ns, ns, &track)))
		return err;
	async = s->crossed && !track;
	ref = ftfb_tr_thread_ref(t, track ? track : k);
	if (ref < 0)
		return ref;
	if (!ed)
		room--; /* for `unfinished` */
	count_args(&ba, bids, &ints, &strs, &room);
	if (ed)
		count_args(ea, eids, &ints, &strs, &room);
	types = FTF_ARG_TYPES(ints, 0, ed ? 0 : 1, 0, strs, 0);
	if (async)
		err = ftf_write_async_begin(t->w, types, ref, cat, name,
					    ftfb_tr_ticks(t, begin_ns),
					    ++t->uslice_async_id);
	else
		err = ftf_write_duration_complete(t->w, types, ref, cat, name,
						  ftfb_tr_ticks(t, begin_ns),
						  ftfb_tr_ticks(t, ns));
	room = ed ? FTF_MAX_ARGS : FTF_MAX_ARGS - 1;
	if (!err)
		err = write_args(t, &ba, bids, &room);
	if (!err && ed)
		err = write_args(t, ea, eids, &room);
	if (!err && !ed)
		err = ftf_arg_bool(t->w, t->s_unfinished, true);
	if (!err && async)
		err = ftf_write_async_end(t->w, FTF_ARG_TYPES(0, 0, 0, 0, 0, 0),
					  ref, cat, name, ftfb_tr_ticks(t, ns),
					  t->uslice_async_id);
	if (!err && async)
		t->st.records++;
	if (!err && s->crossed)
		t->st.usdt_crossing++;
	if (err)
		return err;
	t->st.records++;
	t->st.usdt_slices++;
	return 0;
}

void ftfb_tr_usdt_call_ended_slices(struct ftfb_translator *t,
				    struct ftfb_task *k)
{
	for (uint32_t i = k->uslice_top; i; i = t->uslices[i - 1].below) {
		struct ftfb_uslice *s = &t->uslices[i - 1];

		if (s->depth0 > k->depth)
			s->crossed = true;
	}
}

/* The link to the newest open slice of pair on k (NULL: none). */
static uint32_t *find_open(struct ftfb_translator *t, struct ftfb_task *k,
			   uint16_t pair)
{
	uint32_t *link = &k->uslice_top;

	while (*link) {
		struct ftfb_uslice *s = &t->uslices[*link - 1];

		if (t->o.usdt[s->start.cookie].pair == pair)
			return link;
		link = &s->below;
	}
	return NULL;
}

/* Ends the newest open slice of e's pair on k. */
static int end_slice(struct ftfb_translator *t, struct ftfb_task *k,
		     const struct ftfb_usdt *e, const struct uargs *a)
{
	uint32_t *link = find_open(t, k, t->o.usdt[e->cookie].pair);
	uint32_t idx;
	struct ftfb_uslice *s;

	if (!link) {
		t->st.usdt_unmatched++;
		return 0;
	}
	idx = *link;
	s = &t->uslices[idx - 1];
	/* the ones above it began inside it and outlive it */
	for (uint32_t i = k->uslice_top; i != idx; i = t->uslices[i - 1].below)
		t->uslices[i - 1].crossed = s->crossed = true;
	if (k->depth != s->depth0)
		s->crossed = true;
	*link = s->below;
	s->below = t->uslice_free;
	t->uslice_free = idx;
	return write_slice(t, k, s, e->hdr.ts, e, a);
}

int ftfb_tr_usdt(struct ftfb_translator *t, const struct ftfb_usdt *e)
{
	struct ftfb_task *k;
	struct uargs a;
	int err;

	if (e->cookie >= t->o.nusdt) {
		t->st.skipped++;
		return 0;
	}
	err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
	if (err)
		return err;
	if (t->o.usdt[e->cookie].role == FTFB_USDT_BEGIN)
		return begin_slice(t, k, e);
	err = hit_args(t, e, &a);
	if (err)
		return err;
	switch (t->o.usdt[e->cookie].role) {
	case FTFB_USDT_END:
		return end_slice(t, k, e, &a);
	default:
		return write_instant(t, k, e, &a);
	}
}

int ftfb_tr_usdt_close(struct ftfb_translator *t, struct ftfb_task *k,
		       uint64_t ns)
{
	while (k->uslice_top) {
		uint32_t idx = k->uslice_top;
		struct ftfb_uslice *s = &t->uslices[idx - 1];
		int err;

		k->uslice_top = s->below;
		s->below = t->uslice_free;
		t->uslice_free = idx;
		err = write_slice(t, k, s, ns, NULL, NULL);
		if (err)
			return err;
	}
	return 0;
}

struct inherit_ctx {
	const struct ftfb_translator *from;
	struct ftfb_translator *to;
	uint64_t ts;
	int err;
};

/* Begins in c->to the slices open on k in c->from, oldest first (the
 * chain runs newest first: walked recursively, at most FTFB_USLICE_MAX
 * deep in all). */
static int inherit_chain(struct inherit_ctx *c, const struct ftfb_task *k,
			 uint32_t idx)
{
	const struct ftfb_uslice *s;
	struct ftfb_usdt e;
	int err;

	if (!idx)
		return 0;
	s = &c->from->uslices[idx - 1];
	err = inherit_chain(c, k, s->below);
	if (err)
		return err;
	/* the START hit again, with its strings, at the window's start */
	e = s->start;
	e.hdr.ts = c->ts;
	return ftfb_translator_event(c->to, &e, sizeof(e));
}

static void inherit_task(struct ftfb_task *k, void *arg)
{
	struct inherit_ctx *c = arg;

	if (!c->err && !k->exited && k->uslice_top)
		c->err = inherit_chain(c, k, k->uslice_top);
}

int ftfb_translator_usdt_inherit(struct ftfb_translator *from,
				 struct ftfb_translator *to, uint64_t ts)
{
	struct inherit_ctx c = {.from = from, .to = to, .ts = ts};

	if (!from->uslices || !to->uslices)
		return 0;
	ftfb_pt_for_each(&from->pt, inherit_task, &c);
	return c.err;
}

int ftfb_tr_ev_usdt(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_usdt e;

	/* sent without the unused tail of its strings */
	memset(&e, 0, sizeof(e));
	memcpy(&e, data, size < sizeof(e) ? size : sizeof(e));
	return ftfb_tr_usdt(t, &e);
}
