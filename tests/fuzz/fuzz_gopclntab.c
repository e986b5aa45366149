// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the .gopclntab reader (gopclntab.c, compiled into
 * the target with its coverage): the input is the section's bytes, copied
 * into a buffer of exactly that size so that ASan sees any read past it.
 * The reader returns a count of functions, each with a NUL-terminated,
 * nonempty name inside the section, never more than its cap; or a
 * negative errno. It never crashes or reads out of bounds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const uint8_t *p;
	size_t n;
	int count;
};

static int check(void *arg, uint64_t entry, uint64_t size, const char *name)
{
	struct seen *s = arg;
	const uint8_t *u = (const uint8_t *)name;

	(void)entry;
	(void)size;
	if (u < s->p || u >= s->p + s->n || !*name ||
	    !memchr(name, 0, (size_t)(s->p + s->n - u)))
		abort();
	s->count++;
	return s->count == 3 && (entry & 1) ? -EINTR : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct seen s = {copy, size, 0};
	int r;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	r = ftfb_gopclntab_walk(copy, size, 0x401000, check, &s);
	if (r >= 0 && (r != s.count || r > (int)FTFB_GOPCLNTAB_MAX_FUNCS))
		abort();
	if (r < 0 && r != -ENOENT && r != -EINVAL && r != -EINTR)
		abort();
	free(copy);
	return 0;
}
