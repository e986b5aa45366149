// SPDX-License-Identifier: MIT
/*
 * src/translate/pseudo_lanes.c - lanes: pseudo threads of a process that
 * hold slices which overlap one another or their thread's own slices
 * (block requests in flight together, USDT pairs that cross), where
 * Perfetto keeps them under the process. (FTF async events would do it,
 * but Perfetto's Fuchsia importer puts every async begin/end pair on a
 * global track, outside any process.)
 *
 * A slice goes to the first lane of its process and kind (the lane's
 * name) whose last slice ended by its start, as Perfetto lays out
 * overlapping async slices, or to a new one. Slices are written at their
 * end, in the order their ends arrive, so a lane's slices never overlap.
 */
#include <string.h>

#include "translate_priv.h"

/* FNV-1a: a lane's kind is its name */
static uint64_t kind_of(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
	return h;
}

int ftfb_tr_lane_for(struct ftfb_translator *t, uint32_t tgid,
		     const char *name, uint64_t begin, uint64_t end,
		     struct ftfb_task **out)
{
	struct ftfb_pseudo_lanes *pl = &t->lanes;
	uint64_t kind = kind_of(name);
	struct ftfb_pseudo_lane *l;

	*out = NULL;
	for (uint32_t i = 0; i < pl->n; i++) {
		l = &pl->v[i];
		if (l->tgid == tgid && l->kind == kind && l->last_end <= begin) {
			l->last_end = end;
			return ftfb_tr_pseudo_task(t, l->tid, tgid, name, out);
		}
	}
	if (pl->n == FTFB_MAX_PSEUDO_LANES) {
		t->st.lanes_full++;
		return 0;
	}
	l = &pl->v[pl->n];
	l->tgid = tgid;
	l->kind = kind;
	l->tid = FTFB_PSEUDO_LANE_TID + pl->n++;
	l->last_end = end;
	return ftfb_tr_pseudo_task(t, l->tid, tgid, name, out);
}
