// SPDX-License-Identifier: MIT
/*
 * translate_usdt.c - USDT hits (struct ftfb_usdt) -> FTF records.
 *
 * An instant probe is an instant event on its thread: name and category
 * from opts.usdt[cookie], the arguments as int64 `arg0..`, or interned
 * strings for those read as strings.
 *
 * A START~END pair is a slice on its thread's track of the pair's kind:
 * a Perfetto track named like the pair ("query", "transaction"), one per
 * thread and kind, declared under the thread (named_tracks.h), never a
 * made-up thread. Pairs are not bound to nest: a transaction starts
 * inside one query and commits inside another, a START in one function
 * call ends in another, and Perfetto drops a thread track's slice that
 * crosses another (slice_drop_overlapping_complete_event). Pairs of one
 * kind always nest (an END ends the newest open START of its pair), so a
 * track of their own holds them all, whatever the other kinds and the
 * calls do; where a pair will end is never needed when it begins. The
 * begin is written at the START (its arguments) and the end at the END
 * (the END's, `end_arg0..` unless named), in the order they happen.
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

/* Where a hit's string arguments are: s[i] (len[i] bytes, no NUL) for
 * argument i read as a string, NULL for the others (a string that is not
 * where its length says is recorded as that length, an int). */
struct hit_strs {
	const char *s[FTFB_USDT_MAX_ARGS];
	uint32_t len[FTFB_USDT_MAX_ARGS];
};

static uint16_t hit_nargs(const struct ftfb_usdt *e)
{
	return e->nargs > FTFB_USDT_MAX_ARGS ? FTFB_USDT_MAX_ARGS : e->nargs;
}

static void hit_strs(const struct ftfb_usdt *e, struct hit_strs *hs)
{
	uint32_t off = 0, sbytes = e->strbytes;

	if (sbytes > FTFB_USDT_STR_BYTES)
		sbytes = FTFB_USDT_STR_BYTES;
	for (int i = 0; i < hit_nargs(e); i++) {
		uint64_t len = e->args[i];

		hs->s[i] = NULL;
		if (!(e->strmask & (1u << i)))
			continue;
		if (len == 0 || len > FTFB_USDT_STR_LEN || off + len > sbytes)
			continue;
		/* len counts the NUL; a string cut at the bound has none */
		hs->s[i] = e->str + off;
		hs->len[i] = (uint32_t)strnlen(e->str + off, len);
		off += ((uint32_t)len + 7) & ~7u;
	}
}

/* The arguments of a hit, with its strings as string ids. */
struct uargs {
	uint16_t n, strmask;
	uint64_t v[FTFB_USDT_MAX_ARGS];
};

static int hit_args(struct ftfb_translator *t, const struct ftfb_usdt *e,
		    struct uargs *a)
{
	struct hit_strs hs;

	hit_strs(e, &hs);
	a->n = hit_nargs(e);
	a->strmask = 0;
	for (int i = 0; i < a->n; i++) {
		int id;

		a->v[i] = e->args[i];
		if (!hs.s[i])
			continue;
		id = ftfb_tr_str_id(t, hs.s[i], hs.len[i], NULL);
		if (id < 0)
			return id;
		a->v[i] = (uint64_t)id;
		a->strmask |= 1u << i;
	}
	return 0;
}

/* The name ids of a's arguments (0: not written), interned before the
 * record is begun (no string can be interned while its arguments are
 * pending). */
static int arg_name_ids(struct ftfb_translator *t,
			const struct ftfb_usdt_desc *d, const struct uargs *a,
			int ids[FTFB_USDT_MAX_ARGS])
{
	for (int i = 0; i < a->n; i++) {
		const char *n = d->arg_names[i];

		if (!n) {
			ids[i] = t->s_uarg[i];
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
		err = arg_name_ids(t, d, a, ids);
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

/* A hit's arguments as a named track's (named_tracks.h): argN, or
 * end_argN at an END, unless named; strings copied with their NUL. */
struct nt_hit {
	struct ftfb_nt_arg a[FTFB_USDT_MAX_ARGS + 1]; /* + unfinished */
	char names[FTFB_USDT_MAX_ARGS][16];
	char strs[FTFB_USDT_MAX_ARGS][FTFB_USDT_STR_LEN + 1];
	size_t n;
};

static void nt_hit_args(const struct ftfb_usdt_desc *d,
			const struct ftfb_usdt *e, bool end, struct nt_hit *h)
{
	struct hit_strs hs;

	hit_strs(e, &hs);
	h->n = 0;
	for (int i = 0; i < hit_nargs(e); i++) {
		struct ftfb_nt_arg *a = &h->a[h->n];
		const char *name = d->arg_names[i];

		if (name && !*name)
			continue; /* not written */
		if (!name) {
			snprintf(h->names[i], sizeof(h->names[i]), "%s%d",
				 end ? "end_arg" : "arg", i);
			name = h->names[i];
		}
		*a = (struct ftfb_nt_arg){name, FTFB_NT_INT, e->args[i], NULL};
		if (hs.s[i]) {
			memcpy(h->strs[i], hs.s[i], hs.len[i]);
			h->strs[i][hs.len[i]] = '\0';
			a->type = FTFB_NT_STR;
			a->s = h->strs[i];
		}
		h->n++;
	}
}

/* The slice's name: the pair's, or its START's string argument
 * d->name_arg when it was read ("NAME STRING" if the pair asks for it). */
static const char *slice_name(const struct ftfb_usdt_desc *d,
			      const struct ftfb_usdt *e, char *buf, size_t cap)
{
	struct hit_strs hs;
	int i = d->name_arg;

	if (i < 0 || i >= hit_nargs(e))
		return d->name;
	hit_strs(e, &hs);
	if (!hs.s[i])
		return d->name;
	snprintf(buf, cap, "%s%s%.*s", d->name_prefixed ? d->name : "",
		 d->name_prefixed ? " " : "", (int)hs.len[i], hs.s[i]);
	return buf;
}

static int perfetto_blob(struct ftfb_translator *t)
{
	return ftfb_tr_str_id(t, "perfetto", 8, NULL);
}

/* Opens a slice of e's pair on k: its begin on k's track of the pair. */
static int begin_slice(struct ftfb_translator *t, struct ftfb_task *k,
		       const struct ftfb_usdt *e)
{
	const struct ftfb_usdt_desc *d = &t->o.usdt[e->cookie];
	char name[64 + FTFB_USDT_STR_LEN + 2];
	uint32_t idx = t->uslice_free;
	struct ftfb_uslice *s;
	struct nt_hit h;
	uint64_t track;
	int blob = perfetto_blob(t), err;

	if (!idx) {
		t->st.usdt_capped++;
		return 0;
	}
	if (blob < 0)
		return blob;
	nt_hit_args(d, e, false, &h);
	err = ftfb_nt_thread_begin(
		&t->ntracks, t->w, blob, k->tgid, k->tid, d->name, d->category,
		slice_name(d, e, name, sizeof(name)),
		ftfb_tr_perfetto_ns(t, e->hdr.ts), h.a, h.n, &track);
	if (err)
		return err;
	t->st.records++;
	s = &t->uslices[idx - 1];
	t->uslice_free = s->below;
	s->start = *e;
	s->track = track;
	s->below = k->uslice_top;
	k->uslice_top = idx;
	return 0;
}

/* Ends slice s of k (unlinked by the caller) at ns with the END's
 * arguments (end NULL: it ended without one, `unfinished`). */
static int end_track_slice(struct ftfb_translator *t, struct ftfb_uslice *s,
			   uint64_t ns, const struct ftfb_usdt *end)
{
	struct nt_hit h = {.n = 0};
	int blob = perfetto_blob(t), err;

	if (blob < 0)
		return blob;
	if (end)
		nt_hit_args(&t->o.usdt[end->cookie], end, true, &h);
	else
		h.a[h.n++] = (struct ftfb_nt_arg){"unfinished", FTFB_NT_BOOL, 1,
						  NULL};
	if (ns < s->start.hdr.ts)
		ns = s->start.hdr.ts;
	err = ftfb_nt_end(&t->ntracks, t->w, blob, s->track,
			  ftfb_tr_perfetto_ns(t, ns), h.a, h.n);
	if (err)
		return err;
	t->st.records++;
	t->st.usdt_slices++;
	return 0;
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

/* Ends the newest open slice of e's pair on k (those above it are of
 * other pairs, on other tracks). */
static int end_slice(struct ftfb_translator *t, struct ftfb_task *k,
		     const struct ftfb_usdt *e)
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
	*link = s->below;
	s->below = t->uslice_free;
	t->uslice_free = idx;
	return end_track_slice(t, s, e->hdr.ts, e);
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
	switch (t->o.usdt[e->cookie].role) {
	case FTFB_USDT_BEGIN:
		return begin_slice(t, k, e);
	case FTFB_USDT_END:
		return end_slice(t, k, e);
	default:
		err = hit_args(t, e, &a);
		return err ? err : write_instant(t, k, e, &a);
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
		err = end_track_slice(t, s, ns, NULL);
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
