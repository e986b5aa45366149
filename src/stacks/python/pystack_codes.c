// SPDX-License-Identifier: MIT
/*
 * pystack_codes.c - Python code objects' strings (see pystack_codes.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"
#include "idtab.h"
#include "pystack_codes.h"
#include "safe_name.h"

struct ftfb_pycodes {
	struct ftfb_idtab index; /* (tgid, address) -> 1 + slot */
	struct ftfb_pycode_info *v;
	size_t cap, n;
};

int ftfb_pycodes_new(struct ftfb_pycodes **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

/* (tgid, the code object's identity: address and line, as in the
 * kernel's entries) */
static uint64_t key_of(uint32_t tgid, uint64_t entry)
{
	return ftfb_mix64((entry & FTFB_PY_KEY_MASK) ^
			  ftfb_mix64((uint64_t)tgid + 0x9e37));
}

/* A copy of a fixed-size field the kernel NUL-terminated (or should),
 * made safe (safe_name.h): the Python program chose it. */
static char *copy_field(const char *s, size_t len)
{
	size_t n = strnlen(s, len);
	char *c = malloc(n + 1);

	if (c) {
		memcpy(c, s, n);
		c[n] = 0;
		ftfb_safe_name(c, n);
	}
	return c;
}

int ftfb_pycodes_add(struct ftfb_pycodes *c, const struct ftfb_pycode *e)
{
	uint64_t key =
		key_of(e->hdr.tgid, e->code | (uint64_t)(uint16_t)e->firstlineno
						      << FTFB_PY_LINE_SHIFT);
	uint32_t slot = ftfb_idtab_get(&c->index, key);
	char *name = copy_field(e->name, sizeof(e->name));
	char *file = copy_field(e->file, sizeof(e->file));
	struct ftfb_pycode_info *i;

	if (!name || !file ||
	    (!slot && ftfb_grow_array((void **)&c->v, &c->cap, c->n + 1,
				      sizeof(*c->v)))) {
		free(name);
		free(file);
		return -ENOMEM;
	}
	if (!slot) {
		if (ftfb_idtab_put(&c->index, key, (uint32_t)c->n + 1)) {
			free(name);
			free(file);
			return -ENOMEM;
		}
		slot = (uint32_t)++c->n;
	}
	i = &c->v[slot - 1];
	free((char *)i->name);
	free((char *)i->file);
	i->name = name;
	i->file = file;
	i->line = e->firstlineno;
	return 0;
}

const struct ftfb_pycode_info *ftfb_pycodes_get(const struct ftfb_pycodes *c,
						uint32_t tgid, uint64_t entry)
{
	uint32_t slot = ftfb_idtab_get(&c->index, key_of(tgid, entry));

	return slot ? &c->v[slot - 1] : NULL;
}

void ftfb_pycodes_free(struct ftfb_pycodes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free((char *)c->v[i].name);
		free((char *)c->v[i].file);
	}
	free(c->v);
	ftfb_idtab_free(&c->index);
	free(c);
}
