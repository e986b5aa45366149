/* SPDX-License-Identifier: MIT */
/*
 * src/grow_array.h - room for one more element in a growing array, for
 * the tables that live as long as the trace (interned frames, names,
 * stack addresses): never on the per-event path once a table is warm.
 */
#ifndef FTFB_GROW_ARRAY_H
#define FTFB_GROW_ARRAY_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Room for `need` elements of `elem` bytes in *p, whose capacity *cap
 * doubles from 256; the new elements are zeroed. 0, or -ENOMEM with *p
 * and *cap as they were. */
static inline int ftfb_grow_array(void **p, size_t *cap, size_t need,
				  size_t elem)
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
	memset((char *)np + *cap * elem, 0, (nc - *cap) * elem);
	*p = np;
	*cap = nc;
	return 0;
}

#endif
