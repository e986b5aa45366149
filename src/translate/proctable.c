// SPDX-License-Identifier: MIT
/*
 * proctable.c - the translator's task table, string map and thread-slot
 * LRU (see proctable.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proctable.h"

#define CHUNK_TASKS 1024
#define ARENA_BYTES (64 * 1024)
#define STACK_MIN 16
#define LRU_HEAD FTFB_PT_NSLOTS

#define hash_u32 ftfb_pt_hash_tid

static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static size_t pow2_at_least(size_t n)
{
	size_t c = 16;

	while (c < n)
		c <<= 1;
	return c;
}

/* ---- thread slots ---- */

static void lru_unlink(struct ftfb_proctable *pt, int s)
{
	struct ftfb_slot *sl = pt->slots;

	sl[sl[s].prev].next = sl[s].next;
	sl[sl[s].next].prev = sl[s].prev;
}

/* Inserts s at the most-recently-used end (just before the head). */
static void lru_push_mru(struct ftfb_proctable *pt, int s)
{
	struct ftfb_slot *sl = pt->slots;
	int last = sl[LRU_HEAD].prev;

	sl[s].prev = (uint8_t)last;
	sl[s].next = LRU_HEAD;
	sl[last].next = (uint8_t)s;
	sl[LRU_HEAD].prev = (uint8_t)s;
}

/* Inserts s at the least-recently-used end (just after the head). */
static void lru_push_lru(struct ftfb_proctable *pt, int s)
{
	struct ftfb_slot *sl = pt->slots;
	int first = sl[LRU_HEAD].next;

	sl[s].next = (uint8_t)first;
	sl[s].prev = LRU_HEAD;
	sl[first].prev = (uint8_t)s;
	sl[LRU_HEAD].next = (uint8_t)s;
}

void ftfb_pt_slot_move_mru(struct ftfb_proctable *pt, int slot)
{
	lru_unlink(pt, slot);
	lru_push_mru(pt, slot);
}

int ftfb_pt_slot_take(struct ftfb_proctable *pt, struct ftfb_task *owner)
{
	/* Free slots are kept at the LRU end, so the head's next is either a
	 * free slot or the least recently used one. */
	int s = pt->slots[LRU_HEAD].next;
	struct ftfb_slot *sl = &pt->slots[s];

	if (sl->used && sl->owner->slot == s)
		sl->owner->slot = -1;
	sl->used = true;
	sl->owner = owner;
	ftfb_pt_slot_touch(pt, s);
	return s;
}

void ftfb_pt_slot_release(struct ftfb_proctable *pt, struct ftfb_task *t)
{
	int s = t->slot;

	if (s < 0)
		return;
	t->slot = -1;
	pt->slots[s].used = false;
	lru_unlink(pt, s);
	lru_push_lru(pt, s);
}

/* ---- task table ---- */

int ftfb_pt_init(struct ftfb_proctable *pt, size_t expected_tasks,
		 unsigned max_depth)
{
	memset(pt, 0, sizeof(*pt));
	pt->max_depth = max_depth ? max_depth : 512;
	pt->idx_cap = pow2_at_least(expected_tasks * 2);
	pt->idx = calloc(pt->idx_cap, sizeof(*pt->idx));
	pt->smap_cap = 1024;
	pt->smap = calloc(pt->smap_cap, sizeof(*pt->smap));
	if (!pt->idx || !pt->smap) {
		ftfb_pt_free(pt);
		return -ENOMEM;
	}
	/* LRU list: head <-> 0 <-> 1 ... <-> 254 <-> head, all free. */
	for (int i = 0; i <= LRU_HEAD; i++) {
		pt->slots[i].prev = (uint8_t)(i == 0 ? LRU_HEAD : i - 1);
		pt->slots[i].next = (uint8_t)(i == LRU_HEAD ? 0 : i + 1);
		pt->slots[i].used = false;
	}
	pt->slots[LRU_HEAD].prev = LRU_HEAD - 1;
	return 0;
}

void ftfb_pt_free(struct ftfb_proctable *pt)
{
	for (size_t c = 0; c < pt->nchunks; c++) {
		for (size_t i = 0; i < CHUNK_TASKS; i++)
			free(pt->chunks[c][i].stack);
		free(pt->chunks[c]);
	}
	free(pt->chunks);
	for (size_t i = 0; i < pt->nfree_stacks; i++)
		free(pt->free_stacks[i]);
	free(pt->free_stacks);
	free(pt->free_stack_caps);
	free(pt->idx);
	free(pt->smap);
	for (size_t i = 0; i < pt->narenas; i++)
		free(pt->arenas[i]);
	free(pt->arenas);
	memset(pt, 0, sizeof(*pt));
}

static void idx_put(struct ftfb_pt_ent *idx, size_t cap, struct ftfb_task *t)
{
	size_t mask = cap - 1;
	size_t i = hash_u32(t->tid) & mask;

	while (idx[i].task)
		i = (i + 1) & mask;
	idx[i].tid = t->tid;
	idx[i].task = t;
}

static int idx_grow(struct ftfb_proctable *pt)
{
	size_t ncap = pt->idx_cap * 2;
	struct ftfb_pt_ent *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < pt->idx_cap; i++)
		if (pt->idx[i].task)
			idx_put(n, ncap, pt->idx[i].task);
	free(pt->idx);
	pt->idx = n;
	pt->idx_cap = ncap;
	return 0;
}

static int add_chunk(struct ftfb_proctable *pt)
{
	struct ftfb_task *c;

	if (pt->nchunks == pt->chunks_cap) {
		size_t ncap = pt->chunks_cap ? pt->chunks_cap * 2 : 16;
		struct ftfb_task **n = realloc(pt->chunks, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pt->chunks = n;
		pt->chunks_cap = ncap;
	}
	c = aligned_alloc(_Alignof(struct ftfb_task),
			  CHUNK_TASKS * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c, 0, CHUNK_TASKS * sizeof(*c));
	pt->chunks[pt->nchunks++] = c;
	for (size_t i = CHUNK_TASKS; i-- > 0;) {
		c[i].next_free = pt->free_list;
		pt->free_list = &c[i];
	}
	return 0;
}

struct ftfb_task *ftfb_pt_insert(struct ftfb_proctable *pt, uint32_t tid)
{
	struct ftfb_task *t;

	if ((pt->count + 1) * 2 > pt->idx_cap && idx_grow(pt))
		return NULL;
	if (!pt->free_list && add_chunk(pt))
		return NULL;
	t = pt->free_list;
	pt->free_list = t->next_free;
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->slot = -1;
	t->gen = ++pt->next_gen;
	idx_put(pt->idx, pt->idx_cap, t);
	pt->count++;
	return t;
}

static void keep_stack(struct ftfb_proctable *pt, struct ftfb_task *t)
{
	if (!t->stack)
		return;
	if (pt->nfree_stacks == pt->free_stacks_cap) {
		size_t ncap =
			pt->free_stacks_cap ? pt->free_stacks_cap * 2 : 64;
		struct ftfb_frame **n =
			realloc(pt->free_stacks, ncap * sizeof(*n));
		uint32_t *nc;

		if (!n)
			goto drop;
		pt->free_stacks = n;
		nc = realloc(pt->free_stack_caps, ncap * sizeof(*nc));
		if (!nc)
			goto drop;
		pt->free_stack_caps = nc;
		pt->free_stacks_cap = ncap;
	}
	pt->free_stacks[pt->nfree_stacks] = t->stack;
	pt->free_stack_caps[pt->nfree_stacks++] = t->cap;
	t->stack = NULL;
	t->cap = 0;
	return;
drop:
	free(t->stack);
	t->stack = NULL;
	t->cap = 0;
}

void ftfb_pt_remove(struct ftfb_proctable *pt, uint32_t tid)
{
	size_t mask = pt->idx_cap - 1;
	size_t i = hash_u32(tid) & mask;
	struct ftfb_task *t;

	for (;; i = (i + 1) & mask) {
		t = pt->idx[i].task;
		if (!t)
			return;
		if (pt->idx[i].tid == tid)
			break;
	}
	/* Backward-shift deletion keeps probe chains whole. */
	for (size_t j = (i + 1) & mask; pt->idx[j].task; j = (j + 1) & mask) {
		size_t home = hash_u32(pt->idx[j].tid) & mask;

		/* Move idx[j] into the hole at i unless its home lies
		 * cyclically in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && (home <= i && home > j))) {
			pt->idx[i] = pt->idx[j];
			i = j;
		}
	}
	pt->idx[i].task = NULL;
	pt->idx[i].tid = 0;
	pt->count--;
	ftfb_pt_slot_release(pt, t);
	keep_stack(pt, t);
	t->tid = 0;
	t->next_free = pt->free_list;
	pt->free_list = t;
}

void ftfb_pt_mark_exited(struct ftfb_proctable *pt, struct ftfb_task *t)
{
	if (t->exited)
		return;
	t->exited = true;
	if (pt->zcount == FTFB_PT_ZOMBIES) {
		struct ftfb_zombie z = pt->zombies[pt->zhead];
		struct ftfb_task *old = ftfb_pt_find(pt, z.tid);

		pt->zhead = (pt->zhead + 1) % FTFB_PT_ZOMBIES;
		pt->zcount--;
		if (old && old->gen == z.gen && old->exited && old != t)
			ftfb_pt_remove(pt, z.tid);
	}
	pt->zombies[(pt->zhead + pt->zcount) % FTFB_PT_ZOMBIES] =
		(struct ftfb_zombie){.tid = t->tid, .gen = t->gen};
	pt->zcount++;
}

int ftfb_pt_stack_grow(struct ftfb_proctable *pt, struct ftfb_task *t)
{
	uint32_t ncap;
	struct ftfb_frame *n;

	if (t->depth < t->cap)
		return 0;
	if (t->depth >= pt->max_depth)
		return -ENOSPC;
	if (!t->stack && pt->nfree_stacks) {
		pt->nfree_stacks--;
		t->stack = pt->free_stacks[pt->nfree_stacks];
		t->cap = pt->free_stack_caps[pt->nfree_stacks];
		if (t->depth < t->cap)
			return 0;
	}
	ncap = t->cap ? t->cap * 2 : STACK_MIN;
	if (ncap > pt->max_depth)
		ncap = pt->max_depth;
	n = realloc(t->stack, ncap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->stack = n;
	t->cap = ncap;
	return 0;
}

void ftfb_pt_for_each(struct ftfb_proctable *pt,
		      void (*fn)(struct ftfb_task *t, void *ctx), void *ctx)
{
	for (size_t i = 0; i < pt->idx_cap; i++)
		if (pt->idx[i].task)
			fn(pt->idx[i].task, ctx);
}

/* ---- string map ---- */

static struct ftfb_strmap_ent *smap_slot(struct ftfb_strmap_ent *m, size_t cap,
					 uint64_t h, const char *s, size_t len)
{
	size_t mask = cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct ftfb_strmap_ent *e = &m[i];

		if (!e->s)
			return e;
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return e;
	}
}

int ftfb_pt_str_get(struct ftfb_proctable *pt, const char *s, size_t len)
{
	struct ftfb_strmap_ent *e =
		smap_slot(pt->smap, pt->smap_cap, hash_str(s, len), s, len);

	return e->s ? e->id : 0;
}

static const char *arena_copy(struct ftfb_proctable *pt, const char *s,
			      size_t len)
{
	char *p;

	if (pt->arena_used + len + 1 > pt->arena_cap) {
		size_t sz = len + 1 > ARENA_BYTES ? len + 1 : ARENA_BYTES;

		if (pt->narenas == pt->arenas_cap) {
			size_t ncap = pt->arenas_cap ? pt->arenas_cap * 2 : 16;
			char **n = realloc(pt->arenas, ncap * sizeof(*n));

			if (!n)
				return NULL;
			pt->arenas = n;
			pt->arenas_cap = ncap;
		}
		p = malloc(sz);
		if (!p)
			return NULL;
		pt->arenas[pt->narenas++] = p;
		pt->arena_used = 0;
		pt->arena_cap = sz;
	}
	p = pt->arenas[pt->narenas - 1] + pt->arena_used;
	memcpy(p, s, len);
	p[len] = '\0';
	pt->arena_used += len + 1;
	return p;
}

int ftfb_pt_str_put(struct ftfb_proctable *pt, const char *s, size_t len,
		    int id)
{
	uint64_t h = hash_str(s, len);
	struct ftfb_strmap_ent *e;

	if ((pt->smap_count + 1) * 2 > pt->smap_cap) {
		size_t ncap = pt->smap_cap * 2;
		struct ftfb_strmap_ent *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < pt->smap_cap; i++) {
			struct ftfb_strmap_ent *o = &pt->smap[i];

			if (o->s)
				*smap_slot(n, ncap, o->hash, o->s, o->len) = *o;
		}
		free(pt->smap);
		pt->smap = n;
		pt->smap_cap = ncap;
	}
	e = smap_slot(pt->smap, pt->smap_cap, h, s, len);
	if (e->s) {
		e->id = id;
		return 0;
	}
	e->s = arena_copy(pt, s, len);
	if (!e->s)
		return -ENOMEM;
	e->hash = h;
	e->len = (uint32_t)len;
	e->id = id;
	pt->smap_count++;
	return 0;
}
