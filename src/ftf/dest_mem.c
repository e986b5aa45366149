// SPDX-License-Identifier: MIT
/*
 * dest_mem.c - a memory destination: every committed byte, in order, in
 * one array. The growing form reallocates on buffer switches only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/destination.h"

#define DEFAULT_CHUNK (64 * 1024)

static struct ftf_dest_mem *to_mem(struct ftf_destination *d)
{
	return (struct ftf_dest_mem *)d; /* base is the first member */
}

static int mem_next_buf(struct ftf_destination *d, size_t used,
			size_t ensure_capacity, uint8_t **buf, size_t *len)
{
	struct ftf_dest_mem *m = to_mem(d);
	size_t want, committed = m->len + used;

	if (m->fixed) {
		m->len = committed;
		*buf = m->data + m->len;
		*len = m->fixed_cap - m->len; /* may be short: writer checks */
		return 0;
	}
	want = ensure_capacity > m->chunk ? ensure_capacity : m->chunk;
	if (m->alloc - committed < want) {
		size_t n = m->alloc ? m->alloc * 2 : want;
		uint8_t *p;

		while (n - committed < want)
			n *= 2;
		p = realloc(m->data, n);
		if (!p) {
			snprintf(m->errmsg, sizeof(m->errmsg),
				 "memory destination: cannot grow to %zu bytes",
				 n);
			return -ENOMEM; /* nothing committed */
		}
		m->data = p;
		m->alloc = n;
	}
	m->len = committed;
	*buf = m->data + m->len;
	*len = m->alloc - m->len;
	return 0;
}

static int mem_close(struct ftf_destination *d, size_t used)
{
	struct ftf_dest_mem *m = to_mem(d);

	m->len += used;
	return 0;
}

static const char *mem_errmsg(struct ftf_destination *d)
{
	return to_mem(d)->errmsg;
}

static void mem_base(struct ftf_dest_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->base.next_buf = mem_next_buf;
	m->base.close = mem_close;
	m->base.errmsg = mem_errmsg;
}

void ftf_dest_mem_init(struct ftf_dest_mem *m, size_t chunk)
{
	mem_base(m);
	m->chunk = chunk ? chunk : DEFAULT_CHUNK;
}

void ftf_dest_mem_init_fixed(struct ftf_dest_mem *m, uint8_t *array, size_t cap)
{
	mem_base(m);
	m->fixed = 1;
	m->data = array;
	m->alloc = cap;
	m->fixed_cap = cap;
	m->chunk = cap;
}

void ftf_dest_mem_free(struct ftf_dest_mem *m)
{
	if (!m->fixed)
		free(m->data);
	m->data = NULL;
	m->len = m->alloc = 0;
}
