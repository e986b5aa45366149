// SPDX-License-Identifier: MIT
/*
 * src/translate/tracks.c - tracks: pseudo threads of a process that
 * hold slices which overlap one another or their thread's own slices
 * (USDT pairs that cross; block requests are on named tracks,
 * named_tracks.h), where
 * Perfetto keeps them under the process. (FTF async events would do it,
 * but Perfetto's Fuchsia importer puts every async begin/end pair on a
 * global track, outside any process.)
 *
 * A slice goes to the first track of its process and kind (the track's
 * name) whose last slice ended by its start, as Perfetto lays out
 * overlapping async slices, or to a new one. Slices are written at their
 * end, in the order their ends arrive, so a track's slices never overlap.
 * A process's tracks are given back when it exits (a server that forks a
 * process per connection, as PostgreSQL does, would use them all up);
 * another process takes one over with its pseudo tid, declared anew.
 */
#include <string.h>

#include "translate_priv.h"

/* FNV-1a: a track's kind is its name */
static uint64_t kind_of(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
	return h;
}

int ftfb_tr_track_for(struct ftfb_translator *t, uint32_t tgid,
		     const char *name, uint64_t begin, uint64_t end,
		     struct ftfb_task **out)
{
	struct ftfb_tracks *pl = &t->tracks;
	uint64_t kind = kind_of(name);
	struct ftfb_track *l = NULL;

	*out = NULL;
	for (uint32_t i = 0; i < pl->n; i++) {
		struct ftfb_track *c = &pl->v[i];

		if (c->tgid == tgid && c->kind == kind && c->last_end <= begin) {
			c->last_end = end;
			return ftfb_tr_pseudo_task(t, c->tid, tgid, name, out);
		}
		if (!c->tgid && !l)
			l = c; /* one an exited process gave back */
	}
	if (!l && pl->n == FTFB_MAX_TRACKS) {
		t->st.tracks_full++;
		return 0;
	}
	if (!l) {
		l = &pl->v[pl->n];
		l->tid = FTFB_PSEUDO_TRACK_TID + pl->n++;
	}
	l->tgid = tgid;
	l->kind = kind;
	l->last_end = end;
	return ftfb_tr_pseudo_task(t, l->tid, tgid, name, out);
}

void ftfb_tr_tracks_give_back(struct ftfb_translator *t, uint32_t tgid)
{
	struct ftfb_tracks *pl = &t->tracks;

	for (uint32_t i = 0; i < pl->n; i++) {
		if (pl->v[i].tgid != tgid)
			continue;
		pl->v[i].tgid = 0;
		/* its next process declares it again, named for it */
		ftfb_pt_remove(&t->pt, pl->v[i].tid);
	}
}
