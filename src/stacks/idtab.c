// SPDX-License-Identifier: MIT
/*
 * idtab.c - 64-bit keys to 32-bit ids (see idtab.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "idtab.h"

uint64_t ftfb_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t ftfb_hash_bytes(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

uint64_t ftfb_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

uint32_t ftfb_idtab_get(const struct ftfb_idtab *t, uint64_t key)
{
	key = key ? key : 1;
	if (!t->cap)
		return 0;
	for (size_t i = ftfb_mix64(key) & (t->cap - 1);;
	     i = (i + 1) & (t->cap - 1)) {
		if (t->keys[i] == key)
			return t->vals[i];
		if (!t->keys[i])
			return 0;
	}
}

static int grow(struct ftfb_idtab *t)
{
	struct ftfb_idtab nt = {0};

	nt.cap = t->cap ? 2 * t->cap : 1024;
	nt.keys = calloc(nt.cap, sizeof(*nt.keys));
	nt.vals = calloc(nt.cap, sizeof(*nt.vals));
	if (!nt.keys || !nt.vals) {
		free(nt.keys);
		free(nt.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->keys[i])
			ftfb_idtab_put(&nt, t->keys[i], t->vals[i]);
	free(t->keys);
	free(t->vals);
	*t = nt;
	return 0;
}

int ftfb_idtab_put(struct ftfb_idtab *t, uint64_t key, uint32_t val)
{
	size_t i;

	key = key ? key : 1;
	/* at most half full: probes stay short */
	if (2 * (t->n + 1) > t->cap && grow(t))
		return -ENOMEM;
	for (i = ftfb_mix64(key) & (t->cap - 1);
	     t->keys[i] && t->keys[i] != key; i = (i + 1) & (t->cap - 1))
		;
	if (!t->keys[i])
		t->n++;
	t->keys[i] = key;
	t->vals[i] = val;
	return 0;
}

void ftfb_idtab_free(struct ftfb_idtab *t)
{
	free(t->keys);
	free(t->vals);
	t->keys = NULL;
	t->vals = NULL;
	t->cap = t->n = 0;
}
