// SPDX-License-Identifier: MIT
/*
 * stackstore.c - the stacks the kernel sent, by hash (see stackprof.h):
 * the ips of all stacks in one pool, an entry (offset, count) per stack,
 * found through an idtab.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "idtab.h"
#include "stackprof.h"

struct ftfb_stackstore {
	struct ftfb_idtab idx; /* hash -> entry + 1 */
	struct {
		uint64_t off;
		uint32_t n;
	} * ent;
	size_t nent, ent_cap;
	uint64_t *pool;
	size_t npool, pool_cap;
};

int ftfb_stackstore_new(struct ftfb_stackstore **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

/* Room for `need` elements of `elem` bytes in *p (doubling). */
static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 256;
	void *np;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

int ftfb_stackstore_add(struct ftfb_stackstore *s, uint64_t hash,
			const uint64_t *ips, uint32_t n)
{
	if (!hash || !n || ftfb_idtab_get(&s->idx, hash))
		return 0;
	if (reserve((void **)&s->pool, &s->pool_cap, s->npool + n,
		    sizeof(*s->pool)) ||
	    reserve((void **)&s->ent, &s->ent_cap, s->nent + 1,
		    sizeof(*s->ent)))
		return -ENOMEM;
	memcpy(s->pool + s->npool, ips, n * sizeof(*ips));
	s->ent[s->nent].off = s->npool;
	s->ent[s->nent].n = n;
	if (ftfb_idtab_put(&s->idx, hash, (uint32_t)s->nent + 1))
		return -ENOMEM;
	s->npool += n;
	s->nent++;
	return 0;
}

const uint64_t *ftfb_stackstore_get(const struct ftfb_stackstore *s,
				    uint64_t hash, uint32_t *n)
{
	uint32_t e = ftfb_idtab_get(&s->idx, hash);

	*n = 0;
	if (!e)
		return NULL;
	*n = s->ent[e - 1].n;
	return s->pool + s->ent[e - 1].off;
}

void ftfb_stackstore_free(struct ftfb_stackstore *s)
{
	if (!s)
		return;
	ftfb_idtab_free(&s->idx);
	free(s->ent);
	free(s->pool);
	free(s);
}
