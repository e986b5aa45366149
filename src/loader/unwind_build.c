// SPDX-License-Identifier: MIT
/*
 * unwind_build.c - the unwind loader's tables of binaries: built once per
 * file (device and inode), from the persistent cache when it has them
 * (uw_cache.h), installed in the shared rows (see unwind_maps.h).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "elfsym.h"
#include "go_topframe.h"
#include "grow_array.h"
#include "proc_file.h"
#include "unwind_maps_priv.h"
#include "uw_row_index.h"

/* The fault's delay (unwind_maps.c), for the builds of every file or,
 * with FTFB_FAULT_SLOW_UW_BUILD_OF=TEXT, of those whose path holds TEXT
 * (test_exit_before_table.py: one program's table late, the loader
 * answering everyone else meanwhile). */
static void injected_delay(const struct ftfb_uw_loader *u, const char *path)
{
	const char *only = getenv("FTFB_FAULT_SLOW_UW_BUILD_OF");
	unsigned left = only && !strstr(path, only) ? 0 : u->slow_build_s;

	while (left)
		left = sleep(left);
}

/* How often a build answers the walker's requests: a large binary's
 * build takes seconds (a browser's), during which new processes (a
 * build's cc1, as, sh) would get no entry at all, and their binaries,
 * built from the cache in milliseconds, would wait behind it. */
#define ANSWER_NS 5000000ull

/* The table builder's cancel test, polled every few thousand FDEs: a
 * stop ends a build under way, and requests are answered meanwhile
 * (entries written, builds queued; nothing built: the binary being built
 * is PENDING to them, and queued again for them). */
static bool build_cancelled(void *arg)
{
	struct ftfb_uw_loader *u = arg;
	uint64_t now;

	if (ftfb_uwl_stopping(u))
		return true;
	now = ftfb_uwl_mono_ns();
	if (now - u->answered_ns >= ANSWER_NS) {
		u->answered_ns = now;
		ftfb_uwl_answer_wanted(u);
		ftfb_uwl_take_mmaps(u);
		ftfb_uwl_publish_stats(u);
	}
	return false;
}

/* ---- the persistent cache ------------------------------------------- */

/* The first refusal, for the summary (one line). */
static void note_refusal(struct ftfb_uw_loader *u, const char *msg)
{
	if (__atomic_load_n(&u->cache_msg_set, __ATOMIC_ACQUIRE))
		return;
	snprintf(u->cache_msg, sizeof(u->cache_msg), "%s", msg);
	__atomic_store_n(&u->cache_msg_set, 1, __ATOMIC_RELEASE);
}

void ftfb_uw_use_cache(struct ftfb_uw_loader *u, const char *dir)
{
	char err[FTFB_UW_CACHE_MSG];

	u->cache = ftfb_uw_cache_open(dir, 0, err, sizeof(err));
	if (!u->cache && err[0]) /* (once, at the start: the run goes on) */
		fprintf(stderr, "ftf-bpf: %s\n", err);
}

/* The key of the binary open at fd: false if it has no build id. */
static bool cache_key(int fd, struct ftfb_uw_cache_key *k)
{
	struct stat st;
	int n;

	if (fstat(fd, &st))
		return false;
	n = ftfb_elf_build_id_fd(fd, k->build_id, sizeof(k->build_id));
	if (n <= 0)
		return false;
	k->build_id_len = (size_t)n;
	k->file_size = (uint64_t)st.st_size;
	return true;
}

/* The table of the binary open at fd: the cache's when it has it (the
 * same budget as a build's), else built and kept there. */
static int table_of_fd(struct ftfb_uw_loader *u, int fd, const char *path,
		       const struct ftfb_uw_build_opts *o,
		       struct ftfb_uw_table_built *t, char *err, size_t errlen)
{
	struct ftfb_uw_cache_key k;
	bool keyed = u->cache && cache_key(fd, &k);
	int rc;

	if (keyed) {
		rc = ftfb_uw_cache_load(u->cache, &k, t, err, errlen);
		if (!rc && t->n > o->max_rows) {
			ftfb_uw_table_free(t);
			return -E2BIG;
		}
		if (!rc) {
			u->st.cache_read++;
			return 0;
		}
		if (rc != -ENOENT) {
			u->st.cache_refused++;
			note_refusal(u, err);
		}
	}
	injected_delay(u, path); /* (a build's: not a table from the cache) */
	rc = ftfb_uw_table_from_fd(fd, path, o, t, err, errlen);
	if (!rc && keyed && !ftfb_uw_cache_store(u->cache, &k, t))
		u->st.cache_written++;
	return rc;
}

/* ---- tables of binaries --------------------------------------------- */

/* Tells the walker file (dev, ino) has table b (uw_files): an image
 * that ends with a mapping its entry missed finds it there
 * (bpf/uw_refresh.bpf.h). A binary with more executable segments than
 * the map holds is left out (its copies stay "not loaded yet"). */
static void publish_file(struct ftfb_uw_loader *u, const struct binary *b,
			 uint64_t dev, uint64_t ino)
{
	struct ftfb_uw_file_key k = {dev, ino};
	struct ftfb_uw_file f = {.table = b->table, .base = b->base};

	if (u->files_fd < 0 || b->nsegs > FTFB_UW_FILE_SEGS)
		return;
	f.nsegs = (uint32_t)b->nsegs;
	for (size_t i = 0; i < b->nsegs; i++)
		f.segs[i] = (struct ftfb_uw_file_seg){
			b->segs[i].offset, b->segs[i].vaddr, b->segs[i].filesz};
	bpf_map_update_elem(u->files_fd, &k, &f, BPF_ANY);
}

/* Copies t's rows into the shared array, followed by their page index
 * (bpf/uw_index.h; none when only the rows fit: the walker searches
 * the whole table), and gives them a table index; b->table stays NONE
 * when there is no room. The index is written before the uw_tables
 * entry, which the walker may read at once. */
static void install_table(struct ftfb_uw_loader *u,
			  const struct ftfb_uw_table_built *t, struct binary *b,
			  uint64_t dev, uint64_t ino)
{
	struct ftfb_uw_table ent = {.first = u->next_row, .n = (uint32_t)t->n};
	uint32_t id = u->next_table, room = u->max_rows - u->next_row, slots;

	b->table = FTFB_UW_TABLE_NONE;
	b->base = t->base;
	memcpy(b->segs, t->segs, sizeof(b->segs));
	b->nsegs = t->nsegs;
	if (t->n > room || id >= u->max_tables) {
		u->st.table_space_full++;
		return;
	}
	memcpy(u->rows + u->next_row, t->rows, t->n * sizeof(*t->rows));
	slots = ftfb_uw_idx_write(u->rows, room - ent.n, &ent);
	if (bpf_map_update_elem(u->tables_fd, &id, &ent, BPF_ANY))
		return;
	u->next_row += (uint32_t)t->n + slots;
	u->next_table++;
	b->table = id;
	publish_file(u, b, dev, ino);
	u->st.binaries++;
	u->st.rows = u->next_row;
}

static uint64_t file_key(uint64_t dev, uint64_t ino)
{
	return ftfb_mix64(dev ^ ftfb_mix64(ino));
}

/* The binary of file (dev, ino) if its table was built, else NULL. */
struct binary *ftfb_uwl_binary_built(struct ftfb_uw_loader *u, uint64_t dev,
				     uint64_t ino)
{
	uint32_t i = ftfb_idtab_get(&u->by_file, file_key(dev, ino));

	return i ? &u->bins[i - 1] : NULL;
}

/* A binary with no CFI walked by frame pointer: if it is Go's, 1 + the
 * file offset of runtime.mstart, where its threads' stacks end (fd: the
 * file as the process maps it, see build_binary). */
static uint64_t go_mstart(int fd, const char *path)
{
	uint64_t off;

	if (fd < 0 || lseek(fd, 0, SEEK_SET))
		return 0;
	return ftfb_go_mstart_offset(fd, path, &off) ? 0 : off + 1;
}

/* A build over its budget of rows or time (o): the binary's stacks stop
 * at it, saying so, and the summary names it (the first few). */
static void refused(struct ftfb_uw_loader *u, struct binary *b,
		    const char *path, int rc,
		    const struct ftfb_uw_build_opts *o, bool no_room)
{
	uint64_t limit = rc == -E2BIG ? o->max_rows : FTFB_UW_MAX_BUILD_NS;

	b->table = FTFB_UW_TABLE_OVER_BUDGET;
	u->st.over_budget++;
	if (rc == -E2BIG && no_room)
		u->st.table_space_full++;
	if (u->nskips >= FTFB_UW_SKIPS_SHOWN)
		return;
	ftfb_uw_skip_fill(&u->skips[u->nskips], path, rc, limit, no_room);
	__atomic_store_n(&u->nskips, u->nskips + 1, __ATOMIC_RELEASE);
}

/* A new binary of file (dev, ino), PENDING (to requests answered while
 * it is built); NULL when out of memory. */
static struct binary *new_binary(struct ftfb_uw_loader *u, uint64_t dev,
				 uint64_t ino)
{
	struct binary *b;

	if (ftfb_grow_array((void **)&u->bins, &u->bins_cap, u->nbins + 1,
			    sizeof(*u->bins)) ||
	    ftfb_idtab_put(&u->by_file, file_key(dev, ino),
			   (uint32_t)u->nbins + 1))
		return NULL;
	b = &u->bins[u->nbins++];
	memset(b, 0, sizeof(*b));
	b->table = FTFB_UW_TABLE_PENDING;
	return b;
}

/* The file p names, opened as the process that mapped it maps it
 * (proc_file.h), never by a path its user may have replaced. */
static int open_mapped(const struct pending *p)
{
	struct ftfb_maps_line l = {
		.start = p->start,
		.end = p->end,
		.dev = p->dev,
		.ino = p->ino,
		.name = p->path,
	};

	int fd = ftfb_proc_file_open(p->tgid, &l);

	/* its process gone (a file the kernel recorded it mapping, in a
	 * process that lived a few milliseconds): the file at that path in
	 * ftf-bpf's own root, if it is that file (device and inode), with
	 * no link followed */
	return fd == -ENOENT || fd == -ESRCH ? ftfb_gone_file_open(&l) : fd;
}

/* The rows a table may have: no more than are left (a table that could
 * not be installed is not built). */
static uint32_t rows_allowed(const struct ftfb_uw_loader *u)
{
	uint32_t room = u->max_rows - u->next_row;

	return room < u->row_budget ? (room ? room : 1) : u->row_budget;
}

bool ftfb_uwl_load_cached(struct ftfb_uw_loader *u, const struct pending *p)
{
	struct binary *b = ftfb_uwl_binary_built(u, p->dev, p->ino);
	struct ftfb_uw_cache_key k;
	struct ftfb_uw_table_built t;
	char err[FTFB_UW_CACHE_MSG];
	int fd, rc = -ENOENT;

	if (b && b->table != FTFB_UW_TABLE_PENDING)
		return true;
	if (!u->cache || (fd = open_mapped(p)) < 0)
		return false;
	if (cache_key(fd, &k))
		rc = ftfb_uw_cache_load(u->cache, &k, &t, err, sizeof(err));
	close(fd);
	if (rc && rc != -ENOENT && rc != -ENOMEM) {
		u->st.cache_refused++;
		note_refusal(u, err);
	}
	if (!rc && (t.n > rows_allowed(u) ||
		    (!b && !(b = new_binary(u, p->dev, p->ino)))))
		rc = -E2BIG; /* (left to the build, which says so) */
	if (!rc) {
		install_table(u, &t, b, p->dev, p->ino);
		u->st.cache_read++;
	}
	if (!rc || rc == -E2BIG)
		ftfb_uw_table_free(&t);
	return !rc;
}

/* Builds the table of the file p names (dev, ino), once: opened as
 * the process that mapped it maps it (proc_file.h), never by a path its
 * user may have replaced. */
struct binary *ftfb_uwl_build_binary(struct ftfb_uw_loader *u,
				     const struct pending *p)
{
	uint64_t dev = p->dev, ino = p->ino;
	struct binary *b = ftfb_uwl_binary_built(u, dev, ino);
	/* no more rows than are left: a table that could not be
	 * installed is not built */
	uint32_t room = u->max_rows - u->next_row;
	struct ftfb_uw_build_opts opts = {
		.cancelled = build_cancelled,
		.arg = u,
		.max_rows = room < u->row_budget ? (room ? room : 1)
						 : u->row_budget,
	};
	struct ftfb_uw_table_built t;
	uint64_t t0 = ftfb_uwl_mono_ns();
	char err[256];
	int fd, rc = -ENOENT;

	if (b && b->table != FTFB_UW_TABLE_PENDING)
		return b;
	if (!b && !(b = new_binary(u, dev, ino)))
		return NULL;
	fd = open_mapped(p);
	if (fd < 0) {
		/* its process is gone (a short-lived cc1 or sh, exited
		 * while the table waited in the queue): left PENDING, so the
		 * next process that maps it queues it again, opened there */
		return b;
	}
	rc = table_of_fd(u, fd, p->path, &opts, &t, err, sizeof(err));
	if (rc == -E2BIG || rc == -ETIMEDOUT) {
		refused(u, b, p->path, rc, &opts, room < u->row_budget);
	} else if (rc) {
		b->table = FTFB_UW_TABLE_NONE;
		u->st.no_cfi_files++;
		b->go_mstart = go_mstart(fd, p->path);
	} else {
		install_table(u, &t, b, dev, ino);
		ftfb_uw_table_free(&t);
	}
	close(fd);
	u->st.build_ns += ftfb_uwl_mono_ns() - t0;
	return b;
}

/* Notes that tgid waits for p (once); false when out of memory. */
static bool add_waiter(struct pending *p, uint32_t tgid)
{
	for (size_t i = 0; i < p->nwaiters; i++)
		if (p->waiters[i] == tgid)
			return true;
	if (ftfb_grow_array((void **)&p->waiters, &p->waiters_cap,
			    p->nwaiters + 1, sizeof(*p->waiters)))
		return false;
	p->waiters[p->nwaiters++] = tgid;
	return true;
}

bool ftfb_uwl_queue_build(struct ftfb_uw_loader *u, const char *path,
			  uint64_t dev, uint64_t ino, uint32_t tgid,
			  uint64_t start, uint64_t end)
{
	struct pending *p = NULL;

	for (size_t i = 0; i < u->npend && !p; i++)
		if (u->pend[i].dev == dev && u->pend[i].ino == ino)
			p = &u->pend[i];
	if (!p) {
		if (ftfb_grow_array((void **)&u->pend, &u->pend_cap,
				    u->npend + 1, sizeof(*u->pend)))
			return false;
		p = &u->pend[u->npend];
		memset(p, 0, sizeof(*p));
		p->dev = dev;
		p->ino = ino;
		p->tgid = tgid;
		p->start = start;
		p->end = end;
		if (!(p->path = strdup(path)))
			return false;
		u->npend++;
	}
	/* (tgid 0: a build ahead of need, nobody waits) */
	return !tgid || add_waiter(p, tgid);
}

struct binary *ftfb_uwl_vdso_binary(struct ftfb_uw_loader *u)
{
	struct ftfb_uw_table_built t;
	char err[256];

	if (u->vdso_tried)
		return &u->vdso;
	u->vdso_tried = true;
	u->vdso.table = FTFB_UW_TABLE_NONE;
	if (!ftfb_uw_table_from_vdso(&t, err, sizeof(err))) {
		install_table(u, &t, &u->vdso, 0, 0); /* (uw_files' vDSO) */
		ftfb_uw_table_free(&t);
	}
	return &u->vdso;
}
