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

/* A read of a process's maps, kept. */
struct kept {
	uint64_t from_ns; /* when it began */
	struct ftfb_memo_map *v;
	size_t n;
};

/* The images kept per process: the one the translator is in and the
 * latest later ones. A process may exec twice before the translator
 * reaches its fork (make's child: sh, then gcc, within a few
 * milliseconds), and a fork's child gets its parent's image first: three
 * in all. */
#define IMAGES 3

struct entry {
	uint32_t tgid;
	bool used;
	uint64_t seq;	   /* of its last put, bound or use: the oldest goes */
	uint64_t bound_ns; /* of the last exec, exit or fork translated */
	/* reads begun after bound_ns, the latest of each image, oldest
	 * image first */
	struct kept reads[IMAGES];
	size_t nreads;
	/* the program mapped lowest in the image last said ended
	 * (ftfb_maps_memo_put_ended), if any since the last bound at or
	 * after its end (ended_ns): told before the translator reaches the
	 * image's own start (its fork, its exec), it waits for its end */
	bool ended_known;
	uint64_t ended_start, ended_dev, ended_ino, ended_ns;
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

/* Drops e's reads; under the lock. */
static void drop_reads(struct entry *e)
{
	for (size_t i = 0; i < e->nreads; i++)
		ftfb_memo_maps_free(e->reads[i].v, e->reads[i].n);
	e->nreads = 0;
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
	drop_reads(old);
	memset(old, 0, sizeof(*old));
	old->used = true;
	old->tgid = tgid;
	return old;
}

/* The mapping of a file lowest in memory: the program's own (libraries
 * and ld.so are mapped from the top down), at a new address after each
 * exec (ASLR); NULL if there is none. */
static const struct ftfb_memo_map *lowest_file(const struct kept *k)
{
	const struct ftfb_memo_map *low = NULL;

	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].path[0] == '/' &&
		    (!low || k->v[i].start < low->start))
			low = &k->v[i];
	return low;
}

/* Whether two reads are of one image: their programs are one file at
 * one address (a library mapped or unmapped in between does not make
 * another image). */
static bool same_image(const struct kept *a, const struct kept *b)
{
	const struct ftfb_memo_map *x = lowest_file(a), *y = lowest_file(b);

	if (!x || !y)
		return !x && !y;
	return x->start == y->start && x->dev == y->dev && x->ino == y->ino;
}

static bool holds(const struct kept *k, const struct ftfb_memo_map *v);

/* Whether k has room for one more mapping, named path: at most
 * FTFB_MAPS_MEMO_MAPS of them, their paths FTFB_MAPS_MEMO_PATH_BYTES in
 * all (as a read keeps them: a process's user chooses its paths). */
static bool room_for(const struct kept *k, const char *path)
{
	size_t bytes = strlen(path) + 1;

	if (k->n >= FTFB_MAPS_MEMO_MAPS)
		return false;
	for (size_t i = 0; i < k->n; i++)
		bytes += k->v[i].path ? strlen(k->v[i].path) + 1 : 0;
	return bytes <= FTFB_MAPS_MEMO_PATH_BYTES;
}

/* The mappings of old, a read of k's image, that k holds nothing in
 * place of, moved to k: a library the kernel recorded mapped
 * (ftfb_maps_memo_put_mapped) and dlclose'd since still names the
 * samples taken in it, which the translator reaches later. */
static void carry_over(struct kept *k, struct kept *old)
{
	for (size_t i = 0; i < old->n; i++) {
		struct ftfb_memo_map *more;

		if (!old->v[i].path || !room_for(k, old->v[i].path) ||
		    holds(k, &old->v[i]) ||
		    !(more = realloc(k->v, (k->n + 1) * sizeof(*k->v))))
			continue;
		k->v = more;
		k->v[k->n++] = old->v[i];
		old->v[i].path = NULL; /* (moved) */
	}
}

/* Keeps k (taken) in e, by image; under the lock. */
static void keep_read(struct entry *e, struct kept *k)
{
	struct kept *last = e->nreads ? &e->reads[e->nreads - 1] : NULL;

	if (!last || !same_image(last, k)) {
		if (e->nreads < IMAGES)
			last = &e->reads[e->nreads++];
		else /* (an image between the two is lost: named as the
		      * latest, as a read of /proc would) */
			ftfb_memo_maps_free(last->v, last->n);
	} else {
		carry_over(k, last);
		ftfb_memo_maps_free(last->v, last->n);
	}
	*last = *k;
	memset(k, 0, sizeof(*k));
}

/* The paths of the files reads named, kept past the reads (dropped at
 * each exec and exit): a library one process mapped is named in
 * another that mapped it after its maps were read, and exited
 * (ftfb_maps_memo_put_ended). A hash of (dev, ino): at start, with -a,
 * every process's read passes here; a file whose few slots are taken
 * takes the first one's place. */
#define PATHS 2048 /* (a power of 2) */
#define PATH_PROBES 8
static struct {
	uint64_t dev, ino;
	char *path;
} paths[PATHS];

/* The slot of file (dev, ino): its own, else a free one, else the one
 * it would replace; under the lock. */
static size_t path_slot(uint64_t dev, uint64_t ino)
{
	size_t h = (size_t)((dev * 0x9e3779b97f4a7c15ull) ^ ino) * 31;

	for (size_t i = 0; i < PATH_PROBES; i++) {
		size_t at = (h + i) & (PATHS - 1);

		if (!paths[at].path ||
		    (paths[at].dev == dev && paths[at].ino == ino))
			return at;
	}
	return h & (PATHS - 1);
}

/* Keeps the paths of k's files; under the lock. */
static void keep_paths(const struct kept *k)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct ftfb_memo_map *m = &k->v[i];
		size_t at;

		if (m->path[0] != '/')
			continue;
		at = path_slot(m->dev, m->ino);
		if (paths[at].path && paths[at].dev == m->dev &&
		    paths[at].ino == m->ino)
			continue;
		free(paths[at].path);
		paths[at].dev = m->dev;
		paths[at].ino = m->ino;
		paths[at].path = strdup(m->path);
	}
}

/* A copy of the path of file (dev, ino), or NULL; under the lock. */
static char *path_of_locked(uint64_t dev, uint64_t ino)
{
	size_t at = path_slot(dev, ino);

	return paths[at].path && paths[at].dev == dev && paths[at].ino == ino
		       ? strdup(paths[at].path)
		       : NULL;
}

void ftfb_memo_read_end(struct ftfb_memo_read *r)
{
	struct kept k = {r->from_ns, r->v, r->n};
	uint32_t tgid = r->tgid;
	struct entry *e;

	memset(r, 0, sizeof(*r));
	/* (no mapping: a zombie's maps, or a read cut short; it would
	 * hide the read before it) */
	if (!k.n) {
		ftfb_memo_maps_free(k.v, k.n);
		return;
	}
	pthread_mutex_lock(&lock);
	e = entry_of(tgid);
	e->seq = ++next_seq;
	keep_paths(&k);
	/* (a read begun before an exec or exit already translated is of
	 * an image gone: not kept) */
	if (k.from_ns > e->bound_ns)
		keep_read(e, &k);
	pthread_mutex_unlock(&lock);
	ftfb_memo_maps_free(k.v, k.n);
}

static struct entry *find_locked(uint32_t tgid);

/* Whether mapping v is a file's (not anonymous memory, not the vDSO). */
static bool of_a_file(const struct ftfb_memo_map *v)
{
	return v->dev != ~0ull && (v->dev || v->ino);
}

/* The mapping of a file lowest in v (n): its program's own (see
 * lowest_file), or NULL. */
static const struct ftfb_memo_map *lowest_of(const struct ftfb_memo_map *v,
					     size_t n)
{
	const struct ftfb_memo_map *y = NULL;

	for (size_t i = 0; i < n; i++)
		if (of_a_file(&v[i]) && (!y || v[i].start < y->start))
			y = &v[i];
	return y;
}

/* Whether v (n) is the image of read k: its file mapped lowest is k's
 * program, at its address (see same_image). */
static bool image_of_read(const struct kept *k, const struct ftfb_memo_map *v,
			  size_t n)
{
	const struct ftfb_memo_map *x = lowest_file(k), *y = lowest_of(v, n);

	return x && y && x->start == y->start && x->dev == y->dev &&
	       x->ino == y->ino;
}

/* Notes which image v (n), said ended at ended_ns, was: its file
 * mapped lowest. */
static void note_ended(struct entry *e, const struct ftfb_memo_map *v, size_t n,
		       uint64_t ended_ns)
{
	const struct ftfb_memo_map *y = lowest_of(v, n);

	e->ended_ns = ended_ns;
	e->ended_known = y != NULL;
	if (y) {
		e->ended_start = y->start;
		e->ended_dev = y->dev;
		e->ended_ino = y->ino;
	}
}

/* Whether read k is known not to be of the image said ended last, at a
 * bound at_ns (that image's end, or later). */
static bool not_the_ended(const struct entry *e, const struct kept *k,
			  uint64_t at_ns)
{
	const struct ftfb_memo_map *x = lowest_file(k);

	return e->ended_known && at_ns >= e->ended_ns && x &&
	       (x->start != e->ended_start || x->dev != e->ended_dev ||
		x->ino != e->ended_ino);
}

/* Whether k holds a mapping overlapping v. */
static bool holds(const struct kept *k, const struct ftfb_memo_map *v)
{
	for (size_t i = 0; i < k->n; i++)
		if (v->start < k->v[i].end && k->v[i].start < v->end)
			return true;
	return false;
}

/* Adds to k the mappings of v (n) it holds none of, each file named by
 * the path the other reads gave it (the vDSO by its own); anonymous
 * memory, and files no read names, are left out; under the lock. */
static void add_named(struct kept *k, const struct ftfb_memo_map *v, size_t n)
{
	for (size_t i = 0; i < n && k->n < FTFB_MAPS_MEMO_MAPS; i++) {
		struct ftfb_memo_map m = v[i], *more;

		if (v[i].dev == ~0ull || holds(k, &v[i]))
			continue;
		m.path = of_a_file(&v[i]) ? path_of_locked(v[i].dev, v[i].ino)
					  : strdup("[vdso]");
		more = m.path ? realloc(k->v, (k->n + 1) * sizeof(*k->v))
			      : NULL;
		if (!more) {
			free(m.path);
			continue;
		}
		k->v = more;
		k->v[k->n++] = m;
	}
}

/* A read of v (n) begun at from_ns, kept in e when no read of that
 * image is (a process gone before the loader read its maps, or read
 * only after its exec: the walker's list is all there is of that
 * image), if its program's file is named; under the lock. It goes
 * before the reads there are, all begun later (of later images); not
 * when one began between e's bound and from_ns (of an image before, or
 * of the next one, read within the exec: which, is not known), nor
 * before e's bound. (A read made at the put, later than the image's
 * end, would stand as a later image.) */
static void keep_ended_read(struct entry *e, const struct ftfb_memo_map *v,
			    size_t n, uint64_t from_ns)
{
	const struct ftfb_memo_map *prog = lowest_of(v, n), *named;
	struct kept k = {from_ns, NULL, 0};

	if (!prog || from_ns <= e->bound_ns || e->nreads >= IMAGES ||
	    (e->nreads && e->reads[0].from_ns <= from_ns))
		return;
	add_named(&k, v, n);
	/* (its program unnamed, a library would stand as the image's) */
	named = lowest_file(&k);
	if (!named || named->start != prog->start) {
		ftfb_memo_maps_free(k.v, k.n);
		return;
	}
	memmove(e->reads + 1, e->reads, e->nreads * sizeof(e->reads[0]));
	e->reads[0] = k;
	e->nreads++;
}

void ftfb_maps_memo_put_ended(uint32_t tgid, const struct ftfb_memo_map *v,
			      size_t n, uint64_t ended_ns)
{
	struct entry *e;
	struct kept *k;

	pthread_mutex_lock(&lock);
	e = entry_of(tgid);
	e->seq = ++next_seq;
	note_ended(e, v, n, ended_ns);
	/* (added to the read of that image, which names what no other read
	 * does, its program first; made a read when there is none:
	 * keep_ended_read) */
	k = NULL;
	for (size_t i = 0; i < e->nreads; i++)
		if (image_of_read(&e->reads[i], v, n))
			k = &e->reads[i]; /* (the latest of that image) */
	if (k)
		add_named(k, v, n);
	else
		keep_ended_read(e, v, n, ended_ns - 1);
	pthread_mutex_unlock(&lock);
}

void ftfb_maps_memo_put_mapped(uint32_t tgid, const struct ftfb_memo_map *m,
			       uint64_t image_ns, uint64_t at_ns)
{
	struct kept one = {at_ns, (struct ftfb_memo_map *)m, 1}, *k = NULL;
	struct ftfb_memo_map copy = *m, *more;
	struct entry *e;

	copy.path = NULL;
	if (m->path[0] != '/' || strlen(m->path) >= 4096)
		return;
	pthread_mutex_lock(&lock);
	keep_paths(&one);
	e = find_locked(tgid);
	/* (the latest read begun before the mmap, after the exec that
	 * made its image: a read of the image before would take the new
	 * program's mappings for its own) */
	for (size_t i = 0; e && i < e->nreads; i++)
		if (e->reads[i].from_ns <= at_ns &&
		    e->reads[i].from_ns >= image_ns)
			k = &e->reads[i];
	if (k && room_for(k, m->path) && !holds(k, m) &&
	    (copy.path = strdup(m->path)) &&
	    (more = realloc(k->v, (k->n + 1) * sizeof(*k->v)))) {
		k->v = more;
		k->v[k->n++] = copy;
		copy.path = NULL;
	}
	free(copy.path);
	pthread_mutex_unlock(&lock);
}

/* Sets e's bound to at_ns, if later, dropping the reads begun before;
 * under the lock. An exec's or exit's bound (image_end) drops only the
 * reads of the image that ended, the first kept, unless it is known to
 * be of another image than the one said ended: a read begun before the
 * exec's event may be of the new image, as the kernel installs it (and
 * /proc/PID/maps shows it) before the tracepoint that gives the event's
 * time; the reads after the first are of later images. (Dropped with
 * the first, the new image's only read was lost, and with it the names
 * of every sample of a process that exited before its table came: one
 * run in five of test_exit_before_table.py.) */
static void bound_locked(struct entry *e, uint64_t at_ns, bool image_end)
{
	size_t keep = 0;

	if (at_ns <= e->bound_ns)
		return;
	e->bound_ns = at_ns;
	while (keep < e->nreads && e->reads[keep].from_ns <= at_ns)
		keep++;
	if (image_end && keep > 1)
		keep = 1;
	if (image_end && keep == 1 && not_the_ended(e, &e->reads[0], at_ns))
		keep = 0;
	if (at_ns >= e->ended_ns)
		e->ended_known = false;
	/* (the reads left are the later ones: moved to the front) */
	for (size_t i = 0; i < keep; i++)
		ftfb_memo_maps_free(e->reads[i].v, e->reads[i].n);
	memmove(e->reads, e->reads + keep,
		(e->nreads - keep) * sizeof(e->reads[0]));
	e->nreads -= keep;
}

void ftfb_maps_memo_bound(uint32_t tgid, uint64_t at_ns)
{
	struct entry *e;

	pthread_mutex_lock(&lock);
	e = entry_of(tgid);
	e->seq = ++next_seq;
	bound_locked(e, at_ns, true);
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

/* tgid's entry, or NULL; under the lock. */
static struct entry *find_locked(uint32_t tgid)
{
	for (size_t i = 0; i < FTFB_MAPS_MEMO_PROCS; i++)
		if (memo[i].used && memo[i].tgid == tgid)
			return &memo[i];
	return NULL;
}

int ftfb_maps_memo_get(uint32_t tgid, struct ftfb_memo_map **v, size_t *n)
{
	struct entry *e;
	int err = -ENOENT;

	pthread_mutex_lock(&lock);
	if ((e = find_locked(tgid)) && e->nreads &&
	    (*v = copy_maps(e->reads[0].v, e->reads[0].n))) {
		*n = e->reads[0].n;
		/* (used: a long-lived parent forking thousands of children
		 * must not be the oldest and go first) */
		e->seq = ++next_seq;
		err = 0;
	}
	pthread_mutex_unlock(&lock);
	return err;
}

bool ftfb_maps_memo_later(uint32_t tgid)
{
	struct entry *e;
	bool later;

	pthread_mutex_lock(&lock);
	later = (e = find_locked(tgid)) && e->nreads > 1;
	pthread_mutex_unlock(&lock);
	return later;
}

bool ftfb_maps_memo_other_program(uint32_t tgid, uint64_t start, uint64_t dev,
				  uint64_t ino)
{
	const struct ftfb_memo_map *x = NULL;
	struct entry *e;

	pthread_mutex_lock(&lock);
	if ((e = find_locked(tgid)) && e->nreads)
		x = lowest_file(&e->reads[0]);
	bool other = x && (x->start != start || x->dev != dev || x->ino != ino);
	pthread_mutex_unlock(&lock);
	return other;
}

/* A copy of parent's read of its image at at_ns (the latest read begun
 * before it), into *k; under the lock. */
static bool parent_at(uint32_t parent, uint64_t at_ns, struct kept *k)
{
	struct entry *e = find_locked(parent);
	const struct kept *best = NULL;

	for (size_t i = 0; e && i < e->nreads; i++)
		if (e->reads[i].from_ns < at_ns)
			best = &e->reads[i];
	if (!best || !(k->v = copy_maps(best->v, best->n)))
		return false;
	k->n = best->n;
	k->from_ns = at_ns;
	if (e)
		e->seq = ++next_seq;
	return true;
}

void ftfb_maps_memo_fork(uint32_t parent, uint32_t child, uint64_t at_ns)
{
	struct kept k = {0}, own[IMAGES];
	size_t nown;
	struct entry *e;

	if (parent == child)
		return;
	pthread_mutex_lock(&lock);
	e = entry_of(child);
	e->seq = ++next_seq;
	/* (what was read of the pid before is of a process gone) */
	bound_locked(e, at_ns - 1, false);
	if (!parent_at(parent, at_ns, &k)) {
		pthread_mutex_unlock(&lock);
		return;
	}
	/* child's own reads, begun after the fork, go after the copy: one
	 * of the same image is better (later), one of another is of an
	 * exec the translator has not reached */
	nown = e->nreads;
	memcpy(own, e->reads, sizeof(own));
	e->nreads = 0;
	keep_read(e, &k);
	for (size_t i = 0; i < nown; i++)
		keep_read(e, &own[i]);
	pthread_mutex_unlock(&lock);
	ftfb_memo_maps_free(k.v, k.n);
}

void ftfb_maps_memo_clear(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < FTFB_MAPS_MEMO_PROCS; i++)
		drop_reads(&memo[i]);
	memset(memo, 0, sizeof(memo));
	for (size_t i = 0; i < PATHS; i++)
		free(paths[i].path);
	memset(paths, 0, sizeof(paths));
	pthread_mutex_unlock(&lock);
}

void ftfb_maps_memo_put_vmas(uint32_t tgid, const struct ftfb_uw_vmas *vm,
			     uint64_t ended_ns)
{
	struct ftfb_memo_map v[FTFB_UW_VMAS_MAX];
	uint32_t n = vm->n < FTFB_UW_VMAS_MAX ? vm->n : FTFB_UW_VMAS_MAX;

	for (uint32_t i = 0; i < n; i++)
		v[i] = (struct ftfb_memo_map){
			.start = vm->v[i].start,
			.end = vm->v[i].end,
			.pgoff = vm->v[i].pgoff,
			.dev = vm->v[i].dev,
			.ino = vm->v[i].ino,
		};
	ftfb_maps_memo_put_ended(tgid, v, n, ended_ns);
}

void ftfb_maps_memo_touch(uint32_t tgid)
{
	struct entry *e;

	pthread_mutex_lock(&lock);
	if ((e = find_locked(tgid)))
		e->seq = ++next_seq;
	pthread_mutex_unlock(&lock);
}
