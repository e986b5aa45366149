// SPDX-License-Identifier: MIT
/*
 * maps_memo.c - the executable mappings last read of each process (see
 * maps_memo.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "maps_memo.h"
#include "monotime.h"
#include "proc_file.h"

struct entry {
	uint32_t tgid;
	bool used;
	uint64_t seq;	   /* of its last put, bound or use: the oldest goes */
	uint64_t bound_ns; /* of the last exec or exit translated, or 0 */
	uint64_t from_ns;
	struct ftfb_memo_map *v;
	size_t n;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry memo[FTFB_MAPS_MEMO_PROCS];
static uint64_t next_seq;

void ftfb_memo_maps_free(struct ftfb_memo_map *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void ftfb_memo_read_begin(struct ftfb_memo_read *r, uint32_t tgid)
{
	memset(r, 0, sizeof(*r));
	r->tgid = tgid;
	r->from_ns = ftfb_mono_ns();
}

void ftfb_memo_read_line(struct ftfb_memo_read *r, char *line)
{
	struct ftfb_maps_line l;
	struct ftfb_memo_map *m;
	const char *sp = strchr(line, ' ');

	/* (most lines are not executable: not parsed) */
	if (!sp || strnlen(sp, 4) < 4 || sp[3] != 'x')
		return;
	if (r->n >= FTFB_MAPS_MEMO_MAPS || !ftfb_maps_line_parse(line, &l) ||
	    l.perms[2] != 'x' ||
	    (l.name[0] != '/' && strcmp(l.name, "[vdso]") &&
	     strcmp(l.name, "[uprobes]")))
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		void *nv = realloc(r->v, cap * sizeof(*r->v));

		if (!nv)
			return;
		r->v = nv;
		r->cap = cap;
	}
	if (r->path_bytes + strlen(l.name) + 1 > FTFB_MAPS_MEMO_PATH_BYTES)
		return;
	m = &r->v[r->n];
	m->start = l.start;
	m->end = l.end;
	m->pgoff = l.pgoff;
	m->dev = l.dev;
	m->ino = l.ino;
	if ((m->path = strdup(l.name))) {
		r->path_bytes += strlen(l.name) + 1;
		r->n++;
	}
}

/* tgid's entry, or the oldest one emptied for it; under the lock. */
static struct entry *entry_of(uint32_t tgid)
{
	struct entry *old = &memo[0];

	for (size_t i = 0; i < FTFB_MAPS_MEMO_PROCS; i++) {
		if (memo[i].used && memo[i].tgid == tgid)
			return &memo[i];
		if (!memo[i].used ? old->used
				  : (old->used && memo[i].seq < old->seq))
			old = &memo[i];
	}
	ftfb_memo_maps_free(old->v, old->n);
	memset(old, 0, sizeof(*old));
	old->used = true;
	old->tgid = tgid;
	return old;
}

void ftfb_memo_read_end(struct ftfb_memo_read *r)
{
	struct entry *e;

	pthread_mutex_lock(&lock);
	e = entry_of(r->tgid);
	e->seq = ++next_seq;
	/* (a read begun before an exec or exit already translated is of
	 * an image gone: not kept) */
	if (r->from_ns > e->bound_ns) {
		ftfb_memo_maps_free(e->v, e->n);
		e->v = r->v;
		e->n = r->n;
		e->from_ns = r->from_ns;
		r->v = NULL;
		r->n = 0;
	}
	pthread_mutex_unlock(&lock);
	ftfb_memo_maps_free(r->v, r->n);
	memset(r, 0, sizeof(*r));
}

void ftfb_maps_memo_bound(uint32_t tgid, uint64_t at_ns)
{
	struct entry *e;

	pthread_mutex_lock(&lock);
	e = entry_of(tgid);
	e->seq = ++next_seq;
	if (at_ns > e->bound_ns)
		e->bound_ns = at_ns;
	pthread_mutex_unlock(&lock);
}

/* A copy of n mappings, or NULL. */
static struct ftfb_memo_map *copy_maps(const struct ftfb_memo_map *v, size_t n)
{
	struct ftfb_memo_map *c = calloc(n ? n : 1, sizeof(*c));

	for (size_t i = 0; c && i < n; i++) {
		c[i] = v[i];
		if (!(c[i].path = strdup(v[i].path))) {
			ftfb_memo_maps_free(c, i);
			return NULL;
		}
	}
	return c;
}

/* A copy of tgid's maps and when their read began; under the lock. */
static int get_locked(uint32_t tgid, struct ftfb_memo_map **v, size_t *n,
		      uint64_t *from_ns)
{
	for (size_t i = 0; i < FTFB_MAPS_MEMO_PROCS; i++) {
		struct entry *e = &memo[i];

		if (!e->used || e->tgid != tgid)
			continue;
		/* (a read begun before the bound is not kept: see put) */
		if (!e->v || e->bound_ns >= e->from_ns ||
		    !(*v = copy_maps(e->v, e->n)))
			return -ENOENT;
		*n = e->n;
		*from_ns = e->from_ns;
		/* (used: a long-lived parent forking thousands of children
		 * must not be the oldest and go first) */
		e->seq = ++next_seq;
		return 0;
	}
	return -ENOENT;
}

int ftfb_maps_memo_get(uint32_t tgid, struct ftfb_memo_map **v, size_t *n)
{
	uint64_t from;
	int err;

	pthread_mutex_lock(&lock);
	err = get_locked(tgid, v, n, &from);
	pthread_mutex_unlock(&lock);
	return err;
}

void ftfb_maps_memo_fork(uint32_t parent, uint32_t child, uint64_t at_ns)
{
	struct ftfb_memo_map *v = NULL;
	uint64_t from = 0;
	struct entry *e;
	size_t n = 0;

	if (parent == child)
		return;
	pthread_mutex_lock(&lock);
	/* parent's image at the fork: a read begun before it and after
	 * parent's last exec (one begun after the fork may be of an image
	 * parent exec'd since) */
	if (get_locked(parent, &v, &n, &from) || from >= at_ns) {
		pthread_mutex_unlock(&lock);
		ftfb_memo_maps_free(v, n);
		return;
	}
	e = entry_of(child);
	e->seq = ++next_seq;
	/* (child's own read, begun after the fork, is better) */
	if (at_ns > e->bound_ns && !(e->v && e->from_ns > at_ns)) {
		ftfb_memo_maps_free(e->v, e->n);
		e->v = v;
		e->n = n;
		e->from_ns = at_ns;
		v = NULL;
	}
	pthread_mutex_unlock(&lock);
	ftfb_memo_maps_free(v, n);
}

void ftfb_maps_memo_clear(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < FTFB_MAPS_MEMO_PROCS; i++)
		ftfb_memo_maps_free(memo[i].v, memo[i].n);
	memset(memo, 0, sizeof(memo));
	pthread_mutex_unlock(&lock);
}
