// SPDX-License-Identifier: MIT
/*
 * usdt_set.c - -u usdt:... specs and --python to probes and descriptions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "target.h"
#include "usdt_set.h"

/* --python: Python's span probes (Include/pydtrace.d of CPython). */
static const struct python_pair {
	const char *start, *end, *name;
	const char *start_args[2], *end_args[2];
	/* the start's string argument naming the slice, after the name
	 * ("import json": a module gc is not a collection) */
	int name_arg;
} python_pairs[] = {
	{
		.start = "gc__start",
		.end = "gc__done",
		.name = "gc",
		.start_args = {"generation"},
		.end_args = {"collected"},
		.name_arg = -1,
	},
	{
		.start = "import__find__load__start",
		.end = "import__find__load__done",
		.name = "import",
		.start_args = {""},
		.end_args = {"", "found"},
		.name_arg = 0,
	},
};

/* Grows the descriptions to the probes' count (new ones zeroed). */
static int grow(struct ftfb_usdt_set *s)
{
	size_t n = s->probes.n;
	struct ftfb_usdt_desc *d;
	char **names;

	d = realloc(s->descs, (n ? n : 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	s->descs = d;
	names = realloc(s->names, (n ? n : 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	s->names = names;
	for (size_t i = s->n; i < n; i++) {
		memset(&s->descs[i], 0, sizeof(s->descs[i]));
		s->names[i] = NULL;
		s->descs[i].name = s->probes.v[i].name;
		s->descs[i].category = s->probes.v[i].provider;
		s->descs[i].name_arg = -1;
	}
	s->n = n;
	return 0;
}

static int resolve_one(struct ftfb_usdt_set *s, const char *text,
		       const struct ftfb_usdt_set_opts *o, uint32_t strmask,
		       char *err, size_t errlen)
{
	struct ftfb_usdt_spec sp;
	int rc = ftfb_usdtspec_parse(text, &sp, err, errlen);

	if (rc)
		return rc;
	sp.strmask |= strmask;
	rc = ftfb_usdtspec_resolve(&sp, text, o->pid, o->main_binary,
				   o->strings, &s->probes, err, errlen);
	ftfb_usdtspec_free(&sp);
	return rc ? rc : grow(s);
}

/* "req__start", "req__done" -> "req"; NULL if they share nothing. */
static char *common_name(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	while (n && (a[n - 1] == '_' || a[n - 1] == '-' || a[n - 1] == '.'))
		n--;
	return n ? strndup(a, n) : NULL;
}

/* START~END: the START probes begin slices of pair `pair`, the END
 * probes end them; a slice is named by what the two names share. */
static int add_pair(struct ftfb_usdt_set *s, const char *text, int pair,
		    const struct ftfb_usdt_set_opts *o, char *err,
		    size_t errlen)
{
	const char *tilde = strchr(text, '~');
	char *start = strndup(text, (size_t)(tilde - text));
	size_t first = s->n, mid;
	int rc;

	if (!start)
		return -ENOMEM;
	if (!ftfb_is_usdt_spec(tilde + 1) || strchr(tilde + 1, '~')) {
		ftfb_seterr(err, errlen,
			    "bad slice spec '%s': give usdt:PROVIDER:START~usdt:PROVIDER:END",
			    text);
		free(start);
		return -EINVAL;
	}
	rc = resolve_one(s, start, o, 0, err, errlen);
	free(start);
	mid = s->n;
	if (!rc)
		rc = resolve_one(s, tilde + 1, o, 0, err, errlen);
	for (size_t i = first; !rc && i < s->n; i++) {
		s->descs[i].role = i < mid ? FTFB_USDT_BEGIN : FTFB_USDT_END;
		s->descs[i].pair = (uint16_t)pair;
		if (i >= mid)
			continue;
		s->names[i] =
			common_name(s->probes.v[i].name, s->probes.v[mid].name);
		if (s->names[i])
			s->descs[i].name = s->names[i];
	}
	return rc;
}

static int add_python(struct ftfb_usdt_set *s, int *pair,
		      const struct ftfb_usdt_set_opts *o, char *err,
		      size_t errlen)
{
	/* the target's main binary, or python3 on PATH (-a) */
	const char *bin = o->pid > 0 || o->main_binary ? "" : "python3:";
	char interp[200];

	/* a command that is a script (a pyenv shim, a venv's wrapper):
	 * its probes are in the interpreter it execs, which only running
	 * it would tell */
	if (o->main_binary && target_is_script(o->main_binary, interp,
					       sizeof(interp))) {
		const char *base = strrchr(o->main_binary, '/');

		base = base ? base + 1 : o->main_binary;
		if (strstr(o->main_binary, "/shims/"))
			ftfb_seterr(err, errlen,
				    "--python: %s is a script (#!%s), not a Python executable: give the interpreter it runs (for a pyenv shim: -- $(pyenv which %s) ...)",
				    o->main_binary, interp, base);
		else
			ftfb_seterr(err, errlen,
				    "--python: %s is a script (#!%s), not a Python executable: give the interpreter it runs, e.g. -- /usr/bin/python3.11 ...",
				    o->main_binary, interp);
		return -ENOEXEC;
	}

	for (size_t p = 0; p < sizeof(python_pairs) / sizeof(*python_pairs);
	     p++) {
		const struct python_pair *pp = &python_pairs[p];
		char text[256];
		size_t first = s->n;
		int rc;

		snprintf(text, sizeof(text),
			 "usdt:%spython:%s~usdt:%spython:%s", bin, pp->start,
			 bin, pp->end);
		rc = add_pair(s, text, (*pair)++, o, err, errlen);
		if (rc == -ENOENT) {
			char why[400];

			snprintf(why, sizeof(why), "%s", err);
			ftfb_seterr(
				err, errlen,
				"--python: %s (is the target a Python built with --with-dtrace, e.g. Debian's python3?)",
				why);
		}
		if (rc)
			return rc;
		for (size_t i = first; i < s->n; i++) {
			struct ftfb_usdt_desc *d = &s->descs[i];
			const char *const *names = d->role == FTFB_USDT_BEGIN
							   ? pp->start_args
							   : pp->end_args;

			d->category = "python";
			d->arg_names[0] = names[0];
			d->arg_names[1] = names[1];
			if (d->role != FTFB_USDT_BEGIN)
				continue;
			d->name = pp->name;
			d->name_arg = (int8_t)pp->name_arg;
			d->name_prefixed = pp->name_arg >= 0;
			if (pp->name_arg >= 0)
				s->probes.v[i].strmask |= 1u << pp->name_arg;
		}
	}
	return 0;
}

int ftfb_usdt_set_build(struct ftfb_usdt_set *s,
			const struct ftfb_usdt_set_opts *o, char *err,
			size_t errlen)
{
	int pair = 0, rc = 0;

	memset(s, 0, sizeof(*s));
	for (int i = 0; !rc && i < o->nspecs; i++) {
		const char *text = o->specs[i];

		if (!ftfb_is_usdt_spec(text))
			continue;
		if (strchr(text, '~'))
			rc = add_pair(s, text, pair++, o, err, errlen);
		else
			rc = resolve_one(s, text, o, 0, err, errlen);
	}
	if (!rc && o->python)
		rc = add_python(s, &pair, o, err, errlen);
	if (rc == -ENOMEM)
		ftfb_seterr(err, errlen, "out of memory resolving USDT probes");
	if (rc)
		ftfb_usdt_set_free(s);
	return rc;
}

void ftfb_usdt_set_free(struct ftfb_usdt_set *s)
{
	for (size_t i = 0; s->names && i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->descs);
	ftfb_usdt_probes_free(&s->probes);
	memset(s, 0, sizeof(*s));
}

uint64_t ftfb_usdt_set_cookie(const struct ftfb_usdt_set *s, size_t i)
{
	return (uint64_t)i | (uint64_t)(s->probes.v[i].strmask & 0xfff) << 32;
}

int ftfb_usdt_set_list(FILE *f, const struct ftfb_usdt_set_opts *o)
{
	struct ftfb_usdt_set_opts one = *o;
	char err[1024];
	int rc = 0;
	bool header = false;

	for (int i = 0; i <= o->nspecs; i++) {
		struct ftfb_usdt_set s;

		/* each spec on its own, so each failure has its line;
		 * --python last */
		one.specs = i < o->nspecs ? &o->specs[i] : NULL;
		one.nspecs = i < o->nspecs ? 1 : 0;
		one.python = i == o->nspecs && o->python;
		if (i < o->nspecs && !ftfb_is_usdt_spec(o->specs[i]))
			continue;
		if (i == o->nspecs && !o->python)
			break;
		if (ftfb_usdt_set_build(&s, &one, err, sizeof(err))) {
			fprintf(stderr, "ftf-bpf: %s\n", err);
			rc = 1;
			continue;
		}
		if (!header)
			fprintf(f, "%-40s %-12s %-28s %5s %12s  %s\n", "BINARY",
				"PROVIDER", "NAME", "SITES", "SEMAPHORE",
				"ARGUMENTS");
		header = true;
		ftfb_usdt_probes_print(f, &s.probes, 0);
		ftfb_usdt_set_free(&s);
	}
	return rc;
}
