/* SPDX-License-Identifier: MIT */
/*
 * usdt_set.h - the USDT probes of one trace: every -u usdt:... spec
 * (instants, and START~END pairs as slices) and --python, resolved to the
 * probes to attach and the translator's table (struct ftfb_usdt_desc),
 * both indexed by the probe's cookie.
 */
#ifndef FTFB_USDT_SET_H
#define FTFB_USDT_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tr_types.h"
#include "usdtspec.h"

struct ftfb_usdt_set {
	struct ftfb_usdt_probes probes; /* [cookie] */
	struct ftfb_usdt_desc *descs;	/* [cookie] */
	char **names;			/* owned slice names [cookie] */
	size_t n;
};

struct ftfb_usdt_set_opts {
	const char *const *specs; /* -u specs; those not usdt: are skipped */
	int nspecs;
	bool python;  /* --python */
	bool strings; /* --usdt-strings */
	int pid;      /* the target, as for ftfb_probespec_resolve() */
	const char *main_binary;
};

/* 0, or -errno with one line in err (the first spec that failed). */
int ftfb_usdt_set_build(struct ftfb_usdt_set *s,
			const struct ftfb_usdt_set_opts *o, char *err,
			size_t errlen);
void ftfb_usdt_set_free(struct ftfb_usdt_set *s);

/* The BPF cookie of probe i: its index and the arguments to read as
 * strings (bpf/usdt.bpf.c). */
uint64_t ftfb_usdt_set_cookie(const struct ftfb_usdt_set *s, size_t i);

/* --list: a header and one line per probe (see ftfb_usdt_probes_print);
 * 0, or 1 after an error line per spec that failed. */
int ftfb_usdt_set_list(FILE *f, const struct ftfb_usdt_set_opts *o);

#endif
