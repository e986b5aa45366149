// SPDX-License-Identifier: MIT
/*
 * usdtspec.c - -u usdt:... parsing and matching against .note.stapsdt.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "probespec.h"
#include "usdt_notes.h"
#include "usdtspec.h"

/* ",str" or ",str=I,J" -> *auto_ / *mask. */
static int parse_strings(const char *s, const char *text,
			 struct ftfb_usdt_spec *out, char *err, size_t errlen)
{
	if (!strcmp(s, "str")) {
		out->str_auto = true;
		return 0;
	}
	if (strncmp(s, "str=", 4) || !s[4])
		goto bad;
	for (const char *p = s + 4; *p;) {
		char *end;
		long i = strtol(p, &end, 10);

		if (end == p || i < 0 || i > 11 || (*end && *end != ','))
			goto bad;
		out->strmask |= 1u << i;
		p = *end ? end + 1 : end;
	}
	return 0;
bad:
	ftfb_seterr(err, errlen,
		    "bad string suffix ',%s' in '%s': use ,str (every pointer argument) or ,str=0,2 (arguments 0 and 2, from 0 to 11)",
		    s, text);
	return -EINVAL;
}

int ftfb_usdtspec_parse(const char *text, struct ftfb_usdt_spec *out, char *err,
			size_t errlen)
{
	char *copy, *comma, *last, *prev;
	int rc = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!ftfb_is_usdt_spec(text)) {
		ftfb_seterr(err, errlen, "'%s' is not a usdt: spec", text);
		return -EINVAL;
	}
	copy = strdup(text + strlen(FTFB_USDT_PREFIX));
	if (!copy)
		return -ENOMEM;
	/* the suffix: from the first ',' after the last ':' */
	comma = strrchr(copy, ':') ? strchr(strrchr(copy, ':'), ',') : NULL;
	if (comma) {
		*comma = '\0';
		if (parse_strings(comma + 1, text, out, err, errlen))
			goto out;
	}
	last = strrchr(copy, ':');
	if (!last)
		goto bad;
	*last = '\0';
	prev = strrchr(copy, ':');
	if (prev) {
		*prev = '\0';
		out->binary = strdup(copy);
		out->provider = strdup(prev + 1);
	} else {
		out->provider = strdup(copy);
	}
	out->name = strdup(last + 1);
	if (!out->provider || !out->name || (prev && !out->binary)) {
		rc = -ENOMEM;
		goto out;
	}
	if (!*out->provider || !*out->name || (out->binary && !*out->binary))
		goto bad;
	rc = 0;
	goto out;
bad:
	ftfb_seterr(err, errlen,
		    "bad USDT spec '%s': expected usdt:PROVIDER:NAME or usdt:BINARY:PROVIDER:NAME (globs allowed, e.g. usdt:python:gc__*)",
		    text);
out:
	free(copy);
	if (rc)
		ftfb_usdtspec_free(out);
	return rc;
}

void ftfb_usdtspec_free(struct ftfb_usdt_spec *s)
{
	free(s->binary);
	free(s->provider);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

/* The file a spec's probes are in. */
static int spec_binary(const struct ftfb_usdt_spec *s, int pid,
		       const char *main_binary, char *path, size_t len,
		       char *err, size_t errlen)
{
	if (s->binary)
		return ftfb_probespec_find_binary(s->binary, pid, path, len,
						  err, errlen);
	if (pid <= 0 && !main_binary) {
		ftfb_seterr(err, errlen,
			    "usdt:PROVIDER:NAME looks in the target's main binary: give -p PID or -- COMMAND, or write usdt:BINARY:PROVIDER:NAME");
		return -EINVAL;
	}
	return ftfb_probespec_main_binary(pid, main_binary, path, len, err,
					  errlen);
}

static struct ftfb_usdt_probe *find_probe(struct ftfb_usdt_probes *out,
					  size_t from, const char *path,
					  const struct ftfb_usdt_note *n)
{
	for (size_t i = from; i < out->n; i++)
		if (!strcmp(out->v[i].provider, n->provider) &&
		    !strcmp(out->v[i].name, n->name) &&
		    !strcmp(out->v[i].path, path))
			return &out->v[i];
	return NULL;
}

static int add_probe(struct ftfb_usdt_probes *out, const char *path,
		     const struct ftfb_usdt_note *n, uint32_t strmask)
{
	struct ftfb_usdt_probe *p, *nv;

	nv = realloc(out->v, (out->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	out->v = nv;
	p = &out->v[out->n];
	memset(p, 0, sizeof(*p));
	p->path = strdup(path);
	p->provider = strdup(n->provider);
	p->name = strdup(n->name);
	p->args = strdup(n->args);
	p->semaphore = n->semaphore;
	p->nsites = 1;
	p->strmask = strmask;
	out->n++;
	if (!p->path || !p->provider || !p->name || !p->args)
		return -ENOMEM;
	return 0;
}

/* "no USDT probe matches ...": with the provider's names when the
 * provider exists, else the providers there are. */
static void no_match(const struct ftfb_usdt_spec *s, const char *path,
		     const struct ftfb_usdt_notes *all, char *err,
		     size_t errlen)
{
	char known[256] = "";
	size_t used = 0;
	bool prov = false;

	for (size_t i = 0; i < all->n; i++)
		if (!fnmatch(s->provider, all->v[i].provider, 0))
			prov = true;
	for (size_t i = 0; i < all->n && used < sizeof(known) - 1; i++) {
		const char *what = prov ? all->v[i].name : all->v[i].provider;
		bool dup = false;

		if (prov && fnmatch(s->provider, all->v[i].provider, 0))
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = !strcmp(what, prov ? all->v[j].name
						 : all->v[j].provider) &&
			      (!prov ||
			       !fnmatch(s->provider, all->v[j].provider, 0));
		if (!dup)
			used += (size_t)snprintf(known + used,
						 sizeof(known) - used, "%s%s",
						 used ? ", " : "", what);
	}
	ftfb_seterr(err, errlen,
		    "no USDT probe matches provider '%s' name '%s' in %s; %s there: %s",
		    s->provider, s->name, path,
		    prov ? "its probes" : "the providers", known);
}

int ftfb_usdtspec_resolve(const struct ftfb_usdt_spec *s, const char *text,
			  int pid, const char *main_binary, bool strings,
			  struct ftfb_usdt_probes *out, char *err,
			  size_t errlen)
{
	struct ftfb_usdt_notes all;
	char path[PATH_MAX];
	size_t from = out->n;
	int rc;

	rc = spec_binary(s, pid, main_binary, path, sizeof(path), err, errlen);
	if (rc)
		return rc;
	rc = ftfb_usdt_notes_read(path, &all, err, errlen);
	if (rc)
		return rc;
	if (!all.n) {
		ftfb_seterr(err, errlen,
			    "%s has no USDT probes (no .note.stapsdt section) for '%s'",
			    path, text);
		return -ENOENT;
	}
	for (size_t i = 0; !rc && i < all.n; i++) {
		const struct ftfb_usdt_note *n = &all.v[i];
		struct ftfb_usdt_probe *p;
		uint32_t mask = s->strmask;

		if (fnmatch(s->provider, n->provider, 0) ||
		    fnmatch(s->name, n->name, 0))
			continue;
		if (strings || s->str_auto)
			mask |= ftfb_usdt_pointer_args(n->args);
		p = find_probe(out, from, path, n);
		if (p)
			p->nsites++;
		else
			rc = add_probe(out, path, n, mask & 0xfff);
	}
	if (!rc && out->n == from) {
		no_match(s, path, &all, err, errlen);
		rc = -ENOENT;
	}
	if (rc == -ENOMEM)
		ftfb_seterr(err, errlen, "out of memory resolving '%s'", text);
	ftfb_usdt_notes_free(&all);
	return rc;
}

void ftfb_usdt_probes_free(struct ftfb_usdt_probes *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].path);
		free(p->v[i].provider);
		free(p->v[i].name);
		free(p->v[i].args);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

void ftfb_usdt_probes_print(FILE *f, const struct ftfb_usdt_probes *p,
			    size_t from)
{
	for (size_t i = from; i < p->n; i++) {
		const struct ftfb_usdt_probe *u = &p->v[i];
		char sema[24] = "-";

		if (u->semaphore)
			snprintf(sema, sizeof(sema), "%#" PRIx64, u->semaphore);
		fprintf(f, "%-40s %-12s %-28s %5u %12s  %s\n", u->path,
			u->provider, u->name, u->nsites, sema,
			*u->args ? u->args : "(none)");
	}
}
