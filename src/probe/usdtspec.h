/* SPDX-License-Identifier: MIT */
/*
 * usdtspec.h - -u usdt:... specs: parsing, and resolving them to the
 * probes of a binary's .note.stapsdt.
 *
 * Forms (PROVIDER and NAME are fnmatch globs):
 *   usdt:PROVIDER:NAME          in the target's main binary
 *   usdt:BINARY:PROVIDER:NAME   BINARY as in -u BINARY:FUNC: a path, a
 *                               name on PATH, or a short library name
 *                               (libc, libpython3.11)
 * and, after either, ",str" (read every pointer-like argument, "8@", as a
 * C string) or ",str=I,J" (arguments I and J; from 0). A START~END pair is
 * two such specs joined by '~' (split by the caller).
 */
#ifndef FTFB_USDTSPEC_H
#define FTFB_USDTSPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FTFB_USDT_PREFIX "usdt:"

struct ftfb_usdt_spec {
	char *binary;	  /* NULL: the target's main binary */
	char *provider;	  /* glob */
	char *name;	  /* glob */
	bool str_auto;	  /* ",str": the pointer-like arguments */
	uint32_t strmask; /* ",str=I,J" */
};

/* One probe to attach: a (provider, name) of one file, all its sites. */
struct ftfb_usdt_probe {
	char *path; /* the file, openable from here */
	char *provider;
	char *name;
	char *args;	    /* the first site's argument specs */
	uint64_t semaphore; /* the first site's, 0: none */
	unsigned nsites;
	uint32_t strmask; /* arguments to read as strings */
};

struct ftfb_usdt_probes {
	struct ftfb_usdt_probe *v;
	size_t n;
};

static inline bool ftfb_is_usdt_spec(const char *s)
{
	return s && !__builtin_strncmp(s, FTFB_USDT_PREFIX, 5);
}

/* Parses one spec (no '~'). 0, or -EINVAL with one line in err. */
int ftfb_usdtspec_parse(const char *text, struct ftfb_usdt_spec *out, char *err,
			size_t errlen);
void ftfb_usdtspec_free(struct ftfb_usdt_spec *s);

/* Appends the probes s matches to out (strings: --usdt-strings, read
 * the pointer-like arguments of every probe). pid/main_binary: the
 * target, as for ftfb_probespec_resolve(). 0 (at least one probe added),
 * or -errno with one line in err naming what was searched: -ENOENT for
 * no such probe or a binary without USDT notes. */
int ftfb_usdtspec_resolve(const struct ftfb_usdt_spec *s, const char *text,
			  int pid, const char *main_binary, bool strings,
			  struct ftfb_usdt_probes *out, char *err,
			  size_t errlen);
void ftfb_usdt_probes_free(struct ftfb_usdt_probes *p);

/* One line per probe: provider, name, sites, semaphore, args, binary. */
void ftfb_usdt_probes_print(FILE *f, const struct ftfb_usdt_probes *p,
			    size_t from);

#endif
