// SPDX-License-Identifier: MIT
/*
 * uprobe_set.c - the -u function specs of a trace resolved, the functions
 * that must not be probed left out (see uprobe_set.h for why), and the
 * cookie -> name table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probespec.h"
#include "uprobe_set.h"
#include "usdtspec.h"

const char *ftfb_short_binary_name(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	char *dot;

	snprintf(buf, len, "%s", base ? base + 1 : path);
	/* libc.so.6 -> libc, libssl.so.3 -> libssl */
	dot = strstr(buf, ".so");
	if (dot && dot != buf)
		*dot = '\0';
	return buf;
}

bool ftfb_x86_insn_probeable(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (b[i]) {
		case 0xf0: /* lock */
		case 0x26: /* es */
		case 0x2e: /* cs */
		case 0x36: /* ss */
		case 0x3e: /* ds (also "notrack") */
			return false;
		case 0x64: case 0x65: case 0x66: case 0x67: case 0xf2:
		case 0xf3:
			continue; /* other legacy prefixes: look further */
		default:
			return true;
		}
	}
	return true;
}

/* The function's first bytes, read at its file offset (true when they
 * cannot be read: we cannot tell). */
static bool first_insn_probeable(const char *path, uint64_t off)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned char b[4];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	n = pread(fd, b, sizeof(b), (off_t)off);
	close(fd);
	return ftfb_x86_insn_probeable(b, n > 0 ? (size_t)n : 0);
#else
	(void)path;
	(void)off;
	return true;
#endif
}

static const char *const returns_twice[] = {
	"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp",
	"savectx", "vfork", "__vfork", "clone", "__clone", "clone3",
	"__clone3", "__clone_internal", "getcontext", "__getcontext",
	"swapcontext", "__swapcontext", "setcontext", "__setcontext",
};

bool ftfb_returns_twice(const char *name)
{
	for (size_t i = 0; name && i < sizeof(returns_twice) /
				       sizeof(returns_twice[0]); i++)
		if (!strcmp(name, returns_twice[i]))
			return true;
	return false;
}

const char *ftfb_unprobeable(const struct ftfb_sym *s)
{
	bool twice = ftfb_returns_twice(s->name) ||
		     ftfb_returns_twice(s->demangled);

	for (size_t i = 0; !twice && i < s->naliases; i++)
		twice = ftfb_returns_twice(s->aliases[i]);
	if (twice)
		return "returns twice or on another stack (setjmp, vfork, clone, *context), which a uretprobe would break";
	if (!first_insn_probeable(s->binary, s->offset))
		return "starts with an instruction x86 uprobes cannot probe (LOCK or segment prefix)";
	return NULL;
}

/* The functions left out for one reason: the first three names. */
struct dropped {
	const char *why;
	char names[256];
	size_t n;
};

static void note_dropped(struct dropped *d, const struct ftfb_sym *s)
{
	if (d->n++ < 3) {
		size_t len = strlen(d->names);

		snprintf(d->names + len, sizeof(d->names) - len, "%s%s",
			 len ? ", " : "", s->demangled ? s->demangled : s->name);
	}
}

/* Moves the functions that can be probed to the front of sl, in order;
 * returns how many there are and groups the others by reason. */
static size_t keep_probeable(struct ftfb_symlist *sl, struct dropped g[2])
{
	size_t kept = 0;

	for (size_t i = 0; i < sl->n; i++) {
		struct ftfb_sym *s = &sl->v[i];
		const char *why = ftfb_unprobeable(s);
		int k;

		if (!why) {
			if (kept != i) {
				struct ftfb_sym tmp = sl->v[kept];

				sl->v[kept] = *s;
				*s = tmp;
			}
			kept++;
			continue;
		}
		k = g[0].why && g[0].why != why ? 1 : 0;
		g[k].why = why;
		note_dropped(&g[k], s);
	}
	return kept;
}

/* Drops the functions that must not be probed, with one warning line per
 * reason and spec; an error if a spec keeps none. */
static int drop_unprobeable(struct ftfb_symlist *sl, const char *spec,
			    char *err, size_t errlen)
{
	struct dropped g[2] = { { 0 } };
	size_t kept = keep_probeable(sl, g);

	if (kept == sl->n)
		return 0;
	if (!kept) {
		snprintf(err, errlen, "-u '%s': %s %s; probe its caller instead",
			 spec, g[0].names, g[0].why);
		return -ENOTSUP;
	}
	for (int k = 0; k < 2; k++)
		if (g[k].n)
			fprintf(stderr,
				"ftf-bpf: -u '%s': skipping %zu function%s (%s%s): %s %s\n",
				spec, g[k].n, g[k].n > 1 ? "s" : "", g[k].names,
				g[k].n > 3 ? ", ..." : "",
				g[k].n > 1 ? "each" : "it", g[k].why);
	ftfb_symlist_truncate(sl, kept); /* the dropped ones are at the end */
	return 0;
}

/* Whether a and b are one function: the same offset of the same file
 * (whatever path or link named it). */
static bool same_function(const struct ftfb_sym *a, const struct ftfb_sym *b)
{
	struct stat sa, sb;

	if (a->offset != b->offset)
		return false;
	if (!strcmp(a->binary, b->binary))
		return true;
	return !stat(a->binary, &sa) && !stat(b->binary, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int by_offset(const void *a, const void *b)
{
	const struct ftfb_sym *x = *(const struct ftfb_sym *const *)a;
	const struct ftfb_sym *y = *(const struct ftfb_sym *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Whether a function of the sorted index (n entries) is s. */
static bool in_index(struct ftfb_sym *const *idx, size_t n,
		     const struct ftfb_sym *s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first entry at s's offset or past it */
		size_t mid = lo + (hi - lo) / 2;

		if (idx[mid]->offset < s->offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && idx[lo]->offset == s->offset; lo++)
		if (same_function(idx[lo], s))
			return true;
	return false;
}

/* The functions of lists 0..list-1, sorted by offset (*n of them); NULL
 * with *n 0 when there are none, or no memory (then nothing is dropped). */
static struct ftfb_sym **index_before(struct ftfb_uprobe_set *u, int list,
				      size_t *n)
{
	struct ftfb_sym **idx;
	size_t total = 0, k = 0;

	for (int i = 0; i < list; i++)
		total += u->lists[i].n;
	*n = 0;
	if (!total || !(idx = malloc(total * sizeof(*idx))))
		return NULL;
	for (int i = 0; i < list; i++)
		for (size_t j = 0; j < u->lists[i].n; j++)
			idx[k++] = &u->lists[i].v[j];
	qsort(idx, total, sizeof(*idx), by_offset);
	*n = total;
	return idx;
}

/* Drops the functions of list `list` that an earlier spec already
 * probes: one probe per function, else each call would be recorded
 * twice, the second slice of the pair left unfinished. One warning line
 * names them. (A spec's own matches are distinct already: aliases are
 * one function.) */
static void drop_repeated(struct ftfb_uprobe_set *u, int list,
			  const char *spec)
{
	struct ftfb_symlist *sl = &u->lists[list];
	struct dropped d = {.why = "already probed"};
	size_t kept = 0, n;
	struct ftfb_sym **idx = index_before(u, list, &n);

	for (size_t j = 0; j < sl->n; j++) {
		if (idx && in_index(idx, n, &sl->v[j])) {
			note_dropped(&d, &sl->v[j]);
			continue;
		}
		if (kept != j) {
			struct ftfb_sym tmp = sl->v[kept];

			sl->v[kept] = sl->v[j];
			sl->v[j] = tmp;
		}
		kept++;
	}
	free(idx);
	if (!d.n)
		return;
	fprintf(stderr,
		"ftf-bpf: -u '%s': %s%s already probed by an earlier -u; each function is probed once\n",
		spec, d.names, d.n > 3 ? ", ..." : "");
	ftfb_symlist_truncate(sl, kept); /* the repeated ones are at the end */
}

/* Whether @cand (a path as the target sees it, or a name on our PATH) is
 * the file @st describes. */
static bool same_file(int pid, const char *cand, const struct stat *st)
{
	char path[PATH_MAX];
	struct stat cs;

	if (cand[0] == '/')
		snprintf(path, sizeof(path), "/proc/%d/root%s", pid, cand);
	else if (strchr(cand, '/'))
		snprintf(path, sizeof(path), "/proc/%d/cwd/%s", pid, cand);
	else if (ftfb_probespec_find_binary(cand, 0, path, sizeof(path), NULL,
					    0) != 0)
		return false;
	return stat(path, &cs) == 0 && cs.st_dev == st->st_dev &&
	       cs.st_ino == st->st_ino;
}

/* The category of the functions of @binary: its short name, except for
 * the target's own executable started through a symlink of another name
 * (/usr/bin/redis-server -> redis-check-rdb): then the name it was
 * started by, as the user knows it (argv[0], or its first word when the
 * process set a title such as redis's "redis-server *:6379", when that
 * still names the same file). */
static void category_of(const char *binary, int pid, char *cat, size_t len)
{
	char exe[64], argv0[PATH_MAX] = "";
	struct stat bs, es;
	FILE *f;

	ftfb_short_binary_name(binary, cat, len);
	if (pid <= 0)
		return;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (stat(binary, &bs) || stat(exe, &es) || bs.st_dev != es.st_dev ||
	    bs.st_ino != es.st_ino)
		return;
	snprintf(exe, sizeof(exe), "/proc/%d/cmdline", pid);
	f = fopen(exe, "re");
	if (!f)
		return;
	argv0[fread(argv0, 1, sizeof(argv0) - 1, f)] = '\0';
	fclose(f);
	if (argv0[0] && !same_file(pid, argv0, &bs))
		argv0[strcspn(argv0, " ")] = '\0';
	if (argv0[0] && same_file(pid, argv0, &bs))
		ftfb_short_binary_name(argv0, cat, len);
}

/* The cookie -> (name, category) table, in spec order. */
static int make_table(struct ftfb_uprobe_set *u, int pid, size_t total)
{
	size_t k = 0;

	u->funcs = calloc(total ? total : 1, sizeof(*u->funcs));
	u->categories = calloc(total ? total : 1, sizeof(*u->categories));
	if (!u->funcs || !u->categories)
		return -ENOMEM;
	for (int i = 0; i < u->nlists; i++) {
		for (size_t j = 0; j < u->lists[i].n; j++, k++) {
			struct ftfb_sym *s = &u->lists[i].v[j];
			char cat[256];

			category_of(s->binary, pid, cat, sizeof(cat));
			u->categories[k] = strdup(cat);
			if (!u->categories[k])
				return -ENOMEM;
			u->nfuncs = k + 1;
			u->funcs[k].name = s->demangled ? s->demangled : s->name;
			u->funcs[k].category = u->categories[k];
		}
	}
	return 0;
}

int ftfb_uprobe_set_build(struct ftfb_uprobe_set *u, const char *const *specs,
			  int nspecs, int pid, const char *main_binary,
			  char *err, size_t errlen)
{
	size_t total = 0;

	memset(u, 0, sizeof(*u));
	if (!nspecs)
		return 0;
	u->lists = calloc((size_t)nspecs, sizeof(*u->lists));
	if (!u->lists)
		return -ENOMEM;
	for (int i = 0; i < nspecs; i++) {
		int r;

		u->nlists = i + 1;
		if (ftfb_is_usdt_spec(specs[i]))
			continue; /* usdt_set.c */
		r = ftfb_probespec_resolve(specs[i], pid, main_binary,
					   &u->lists[i], err, errlen);
		if (!r)
			r = drop_unprobeable(&u->lists[i], specs[i], err,
					     errlen);
		if (r)
			return r;
		drop_repeated(u, i, specs[i]);
		total += u->lists[i].n;
	}
	return make_table(u, pid, total);
}

void ftfb_uprobe_set_free(struct ftfb_uprobe_set *u)
{
	for (int i = 0; i < u->nlists; i++)
		ftfb_symlist_free(&u->lists[i]);
	free(u->lists);
	for (size_t i = 0; i < u->nfuncs; i++)
		free(u->categories[i]);
	free(u->categories);
	free(u->funcs);
	memset(u, 0, sizeof(*u));
}

long ftfb_uprobe_set_find(const struct ftfb_uprobe_set *u, const char *binary,
			  uint64_t offset)
{
	long k = 0;

	/* (by file, not path: a spec that named the function again by
	 * another path was dropped as a repeat, see drop_repeated) */
	const struct ftfb_sym want = {.binary = (char *)binary,
				      .offset = offset};

	for (int i = 0; i < u->nlists; i++)
		for (size_t j = 0; j < u->lists[i].n; j++, k++)
			if (same_function(&u->lists[i].v[j], &want))
				return k;
	return -1;
}
