// SPDX-License-Identifier: MIT
/*
 * probespec.c - -u SPEC parsing and function matching (the binary
 * lookup: binary_find.c).
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <libelf.h>

#include "elfsym.h"
#include "binary_find.h"
#include "probespec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <elf.h>

/* ------------------------------------------------------------------ */
/* Matching                                                            */
/* ------------------------------------------------------------------ */

/* "ns::f(int) const" -> "ns::f" (malloc'd), NULL if no parameter list. */
static char *strip_params(const char *dem)
{
	const char *close = strrchr(dem, ')');
	int depth = 0;

	if (!close)
		return NULL;
	for (const char *p = close; p >= dem; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			return p > dem ? strndup(dem, (size_t)(p - dem)) : NULL;
	}
	return NULL;
}

/* Does @pat match @name, its demangled form (@known_dem, or computed when
 * NULL), or that without params? On a match, *dem_out gets a malloc'd copy
 * of the demangled name (NULL if not mangled). */
static bool name_match(const char *pat, const char *name,
		       const char *known_dem, char **dem_out)
{
	char *own = known_dem ? NULL : ftfb_demangle(name);
	const char *dem = known_dem ? known_dem : own;
	bool m = fnmatch(pat, name, 0) == 0;

	if (!m && dem) {
		m = fnmatch(pat, dem, 0) == 0;
		if (!m) {
			char *stripped = strip_params(dem);

			m = stripped && fnmatch(pat, stripped, 0) == 0;
			free(stripped);
		}
	}
	if (m) {
		*dem_out = own ? own : dem ? strdup(dem) : NULL;
		return true;
	}
	free(own);
	return false;
}

int ftfb_glob_distance(const char *pattern, const char *name)
{
	enum { LIT, ANY1, STAR };
	struct tok {
		int kind;
		char c;
	} toks[256];
	size_t m = 0, n = strlen(name);
	int row0[257], row1[257];
	int *prev = row0, *cur = row1;

	for (const char *p = pattern; *p && m < 256; p++) {
		if (*p == '*') {
			toks[m++] = (struct tok){ STAR, 0 };
		} else if (*p == '?') {
			toks[m++] = (struct tok){ ANY1, 0 };
		} else if (*p == '[' && strchr(p + 2, ']')) {
			p = strchr(p + 2, ']');
			toks[m++] = (struct tok){ ANY1, 0 };
		} else if (*p == '\\' && p[1]) {
			toks[m++] = (struct tok){ LIT, *++p };
		} else {
			toks[m++] = (struct tok){ LIT, *p };
		}
	}
	if (n > 256)
		n = 256;
	/* prev[j]: cost of the first i tokens against the first j chars */
	for (size_t j = 0; j <= n; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= m; i++) {
		const struct tok *t = &toks[i - 1];

		cur[0] = prev[0] + (t->kind == STAR ? 0 : 1);
		for (size_t j = 1; j <= n; j++) {
			int best;

			if (t->kind == STAR) {
				best = prev[j] < cur[j - 1] ? prev[j]
							    : cur[j - 1];
			} else {
				int sub = prev[j - 1] +
					  (t->kind == ANY1 ||
							   t->c == name[j - 1]
						   ? 0
						   : 1);
				int del = prev[j] + 1, ins = cur[j - 1] + 1;

				best = sub < del ? sub : del;
				best = best < ins ? best : ins;
			}
			cur[j] = best;
		}
		int *tmp = prev;
		prev = cur;
		cur = tmp;
	}
	return prev[n];
}

struct cand {
	char *name;
	int dist;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist - b->dist;
	return strcmp(a->name, b->name);
}

/* Builds "no function matches ..." with up to 5 closest names: those
 * within a glob edit distance of max(2, literal characters / 3), in any
 * of the forms a symbol matches by (name, demangled, without params). */
static void no_match_error(const char *pat, const char *bin,
			   const struct ftfb_symlist *all, char *errmsg,
			   size_t errlen)
{
	struct cand *c = NULL;
	size_t nc = 0, lits = 0, used, shown = 0;
	int limit;

	if (all->n == 0) {
		ftfb_seterr(errmsg, errlen,
		       "no function matches '%s' in %s: it has no function symbols (stripped?); use %s:0xOFFSET",
		       pat, bin, bin);
		return;
	}
	for (const char *p = pat; *p; p++)
		if (*p != '*' && *p != '?')
			lits++;
	limit = lits / 3 > 2 ? (int)(lits / 3) : 2;

	c = calloc(all->n, sizeof(*c));
	for (size_t i = 0; c && i < all->n; i++) {
		const struct ftfb_sym *s = &all->v[i];
		char *stripped = s->demangled ? strip_params(s->demangled)
					      : NULL;
		/* on ties the first form is shown: prefer the short one */
		const char *forms[3] = { s->name, stripped, s->demangled };
		const char *which = NULL;
		int d = INT_MAX;

		for (int k = 0; k < 3; k++) {
			int dk;

			if (!forms[k])
				continue;
			dk = ftfb_glob_distance(pat, forms[k]);
			if (dk < d) {
				d = dk;
				which = forms[k];
			}
		}
		if (d <= limit) {
			c[nc].name = strdup(which);
			c[nc].dist = d;
			if (c[nc].name)
				nc++;
		}
		free(stripped);
	}
	if (nc)
		qsort(c, nc, sizeof(*c), cand_cmp);

	used = (size_t)snprintf(errmsg, errlen,
				"no function matches '%s' in %s", pat, bin);
	if (nc == 0 && used < errlen)
		snprintf(errmsg + used, errlen - used,
			 " (%zu functions; see --list -u '%s:*')", all->n,
			 bin);
	for (size_t i = 0; i < nc && shown < 5 && used < errlen; i++) {
		if (i > 0 && strcmp(c[i].name, c[i - 1].name) == 0)
			continue;
		used += (size_t)snprintf(errmsg + used, errlen - used, "%s%s",
					 shown == 0 ? "; closest: " : ", ",
					 c[i].name);
		shown++;
	}
	for (size_t i = 0; i < nc; i++)
		free(c[i].name);
	free(c);
}

static int copy_sym(struct ftfb_sym *dst, const struct ftfb_sym *src,
		    const char *name, char *dem)
{
	memset(dst, 0, sizeof(*dst));
	dst->name = strdup(name);
	dst->binary = strdup(src->binary);
	dst->offset = src->offset;
	dst->size = src->size;
	dst->demangled = dem;
	if (!dst->name || !dst->binary)
		return -ENOMEM;
	return 0;
}

static bool parse_hex(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return false;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	return errno == 0 && *end == '\0';
}

/* Splits at the first ':' that is not part of "::". */
static const char *find_sep(const char *spec)
{
	for (const char *p = spec; *p; p++) {
		if (*p != ':')
			continue;
		if (p[1] == ':') {
			p++;
			continue;
		}
		return p;
	}
	return NULL;
}

/* The file a spec names (BINARY:FUNC) or the target's main binary
 * (FUNC), into path; *func points at the FUNC part. 0 or -errno (errmsg
 * set). */
static int spec_binary(const char *spec, int pid, const char *main_binary,
		       char *path, size_t pathlen, const char **func,
		       char *errmsg, size_t errlen)
{
	const char *sep = find_sep(spec);
	char *binname;
	int err;

	if (!sep) {
		*func = spec;
		return ftfb_probespec_main_binary(pid, main_binary, path,
						  pathlen, errmsg, errlen);
	}
	*func = sep + 1;
	binname = strndup(spec, (size_t)(sep - spec));
	if (!binname)
		return -ENOMEM;
	if (!*binname || !**func) {
		ftfb_seterr(errmsg, errlen,
			    "bad probe spec '%s': expected BINARY:FUNC", spec);
		free(binname);
		return -EINVAL;
	}
	err = ftfb_probespec_find_binary(binname, pid, path, pathlen, errmsg,
					 errlen);
	/* Not started yet: the command's own RUNPATH/RPATH. */
	if (err == -ENOENT && pid <= 0 && !strchr(binname, '/') &&
	    ftfb_find_in_runpath(main_binary, binname, path, pathlen) == 0)
		err = 0;
	free(binname);
	return err;
}

/* A raw offset must be code: a probe on data or headers never fires
 * (seen: libc:0x0 traced nothing, silently). An error naming the code's
 * range, unless the file cannot be read as ELF (that is said later). */
static bool offset_outside_code(const char *path, uint64_t raw, char *errmsg,
				size_t errlen)
{
	uint64_t lo, hi;

	if (ftfb_elf_code_range(path, raw, &lo, &hi) != 0)
		return false;
	if (!hi)
		ftfb_seterr(errmsg, errlen,
			    "offset 0x%" PRIx64 " of %s: the file has no executable segment",
			    raw, path);
	else
		ftfb_seterr(errmsg, errlen,
			    "offset 0x%" PRIx64 " is not in the code of %s (file offsets 0x%" PRIx64 "..0x%" PRIx64 "): give a function's name, or an instruction's offset (objdump -d)",
			    raw, path, lo, hi);
	return true;
}

/* An offset inside a function, not at its start, must be an
 * instruction's first byte, which only the user can know: said once
 * (seen: malloc + 1 made the program spin forever). */
static void warn_inside_function(const char *path, uint64_t raw,
				 const struct ftfb_symlist *all)
{
	for (size_t i = 0; i < all->n; i++) {
		const struct ftfb_sym *f = &all->v[i];

		if (raw > f->offset && raw - f->offset < f->size) {
			fprintf(stderr,
				"ftf-bpf: warning: offset 0x%" PRIx64 " is inside %s of %s (0x%" PRIx64 ", %" PRIu64 " bytes), not at its start: it must be the first byte of an instruction (objdump -d), or the probe breaks the program\n",
				raw, f->name, path, f->offset, f->size);
			return;
		}
	}
}

/* BINARY:0xOFFSET: the function there if one starts there, else the
 * offset as its name. */
static int resolve_offset(const char *path, uint64_t raw,
			  const struct ftfb_symlist *all,
			  struct ftfb_symlist *out, char *errmsg,
			  size_t errlen)
{
	const struct ftfb_sym *at = NULL;
	struct stat st;
	char name[32];

	if (stat(path, &st) != 0 || raw >= (uint64_t)st.st_size) {
		ftfb_seterr(errmsg, errlen,
			    "offset 0x%" PRIx64 " is past the end of %s", raw,
			    path);
		return -EINVAL;
	}
	if (offset_outside_code(path, raw, errmsg, errlen))
		return -EINVAL;
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].offset == raw)
			at = &all->v[i];
	if (!at)
		warn_inside_function(path, raw, all);
	out->v = calloc(1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	out->n = 1;
	snprintf(name, sizeof(name), "0x%" PRIx64, raw);
	if (at)
		return copy_sym(&out->v[0], at, at->name,
				ftfb_demangle(at->name));
	return copy_sym(&out->v[0],
			&(struct ftfb_sym){ .binary = (char *)path,
					    .offset = raw },
			name, NULL);
}

/* FUNC (a glob): every function whose name or alias matches, named by
 * the name that matched. */
static int resolve_glob(const char *func, const char *path,
			const struct ftfb_symlist *all,
			struct ftfb_symlist *out, char *errmsg, size_t errlen)
{
	out->v = all->n ? calloc(all->n, sizeof(*out->v)) : NULL;
	if (all->n && !out->v)
		return -ENOMEM;
	for (size_t i = 0; i < all->n; i++) {
		const struct ftfb_sym *s = &all->v[i];
		char *dem = NULL;
		const char *hit = NULL;
		int err;

		if (name_match(func, s->name, s->demangled, &dem))
			hit = s->name;
		for (size_t a = 0; !hit && a < s->naliases; a++)
			if (name_match(func, s->aliases[a], NULL, &dem))
				hit = s->aliases[a];
		if (!hit)
			continue;
		err = copy_sym(&out->v[out->n++], s, hit, dem);
		if (err)
			return err;
	}
	if (out->n == 0) {
		no_match_error(func, path, all, errmsg, errlen);
		return -ENOENT;
	}
	return 0;
}

int ftfb_probespec_resolve(const char *spec, int pid, const char *main_binary,
			   struct ftfb_symlist *out, char *errmsg,
			   size_t errlen)
{
	struct ftfb_symlist all = { 0 };
	char path[PATH_MAX];
	const char *func;
	uint64_t raw;
	int err;

	out->v = NULL;
	out->n = 0;
	if (!spec || !*spec) {
		ftfb_seterr(errmsg, errlen, "empty probe spec");
		return -EINVAL;
	}
	if (pid > 0 && !ftfb_pid_exists(pid)) {
		ftfb_seterr(errmsg, errlen, "pid %d does not exist", pid);
		return -ESRCH;
	}
	err = spec_binary(spec, pid, main_binary, path, sizeof(path), &func,
			  errmsg, errlen);
	if (!err)
		err = ftfb_elf_functions(path, &all, errmsg, errlen);
	if (!err)
		err = parse_hex(func, &raw)
			      ? resolve_offset(path, raw, &all, out, errmsg,
					       errlen)
			      : resolve_glob(func, path, &all, out, errmsg,
					     errlen);
	if (err) {
		ftfb_symlist_free(out);
		if (err == -ENOMEM)
			ftfb_seterr(errmsg, errlen,
				    "out of memory resolving '%s'", spec);
	}
	ftfb_symlist_free(&all);
	return err;
}

void ftfb_symlist_print(FILE *f, const struct ftfb_symlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ftfb_sym *s = &l->v[i];

		fprintf(f, "%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\n",
			s->demangled ? s->demangled : s->name, s->binary,
			s->offset, s->size);
	}
}

int ftfb_probespec_list(FILE *f, const char *spec, int pid,
			const char *main_binary, char *errmsg, size_t errlen)
{
	struct ftfb_symlist l;
	int err, n;

	err = ftfb_probespec_resolve(spec, pid, main_binary, &l, errmsg,
				     errlen);
	if (err)
		return err;
	ftfb_symlist_print(f, &l);
	n = (int)l.n;
	ftfb_symlist_free(&l);
	return n;
}
