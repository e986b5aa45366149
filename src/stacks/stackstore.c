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
#include "grow_array.h"
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

int ftfb_stackstore_add(struct ftfb_stackstore *s, uint64_t hash,
			const uint64_t *ips, uint32_t n)
{
	if (!hash || !n || ftfb_idtab_get(&s->idx, hash))
		return 0;
	if (ftfb_grow_array((void **)&s->pool, &s->pool_cap, s->npool + n,
		    sizeof(*s->pool)) ||
	    ftfb_grow_array((void **)&s->ent, &s->ent_cap, s->nent + 1,
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
