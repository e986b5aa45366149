// SPDX-License-Identifier: MIT
/*
 * merge_names.c - an open-addressing table of kernel object names; it
 * grows with the threads and processes of the traces, not their length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merge_names.h"

static size_t slot(size_t cap, unsigned type, uint64_t koid)
{
	uint64_t h = (koid ^ ((uint64_t)type << 56)) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static struct merge_name *find(const struct merge_names *t, unsigned type,
			       uint64_t koid)
{
	size_t i = slot(t->cap, type, koid);

	while (t->e[i].type) {
		if (t->e[i].type == type && t->e[i].koid == koid)
			return &t->e[i];
		i = (i + 1) & (t->cap - 1);
	}
	return &t->e[i];
}

static int grow(struct merge_names *t)
{
	struct merge_names nt = {.cap = t->cap ? t->cap * 2 : 256};

	nt.e = calloc(nt.cap, sizeof(*nt.e));
	if (!nt.e)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].type)
			*find(&nt, t->e[i].type, t->e[i].koid) = t->e[i];
	nt.n = t->n;
	free(t->e);
	*t = nt;
	return 0;
}

int merge_names_set(struct merge_names *t, unsigned type, uint64_t koid,
		    const char *text, size_t len)
{
	struct merge_name *e;
	char *copy;

	if ((t->n + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	e = find(t, type, koid);
	if (!e->type) {
		e->type = type;
		e->koid = koid;
		t->n++;
	}
	free(e->text);
	e->text = copy;
	e->len = len;
	return 0;
}

const struct merge_name *merge_names_get(const struct merge_names *t,
					 unsigned type, uint64_t koid)
{
	const struct merge_name *e;

	if (!t->cap)
		return NULL;
	e = find(t, type, koid);
	return e->type ? e : NULL;
}

void merge_names_free(struct merge_names *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->e[i].text);
	free(t->e);
	memset(t, 0, sizeof(*t));
}
