// SPDX-License-Identifier: MIT
/*
 * list.c - --list (see list.h).
 */
#include <limits.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include "list.h"
#include "preflight.h"
#include "probespec.h"
#include "session.h"
#include "syscall_names.h"
#include "usdt_set.h"
#include "usdtspec.h"

static void die_line(const char *msg)
{
	fprintf(stderr, "ftf-bpf: %s\n", msg);
}

/* --list --syscalls[=LIST]: number and name of each call it matches. */
static int list_syscalls(const struct cli_opts *o)
{
	uint8_t wanted[FTFB_NR_SYSCALLS];
	char err[512];

	if (o->syscall_list &&
	    ftfb_syscall_list(o->syscall_list, wanted, err, sizeof(err))) {
		die_line(err);
		return 1;
	}
	printf("%-5s %s\n", "NR", "SYSTEM CALL");
	for (int nr = 0; nr < FTFB_NR_SYSCALLS; nr++)
		if (ftfb_syscall_names[nr] && (!o->syscall_list || wanted[nr]))
			printf("%-5d %s\n", nr, ftfb_syscall_names[nr]);
	return 0;
}

/* The functions of the -u function specs, a line each. */
static int list_functions(const struct cli_opts *o, const char *mb)
{
	char err[512];
	bool header = false; /* (printed above the first row only) */
	int rc = 0;

	for (int i = 0; i < o->nuprobes; i++) {
		struct ftfb_symlist sl = { 0 };

		if (ftfb_is_usdt_spec(o->uprobes[i]))
			continue;
		if (ftfb_probespec_resolve(o->uprobes[i], o->pid, mb, &sl, err,
					   sizeof(err))) {
			die_line(err);
			rc = 1;
			continue;
		}
		if (sl.n && !header) {
			printf("%-40s %-40s %12s %8s\n", "FUNCTION", "BINARY",
			       "OFFSET", "SIZE");
			header = true;
		}
		for (size_t j = 0; j < sl.n; j++)
			printf("%-40s %-40s %#12llx %8llu\n",
			       sl.v[j].demangled ? sl.v[j].demangled
						 : sl.v[j].name,
			       sl.v[j].binary,
			       (unsigned long long)sl.v[j].offset,
			       (unsigned long long)sl.v[j].size);
		ftfb_symlist_free(&sl);
	}
	return rc;
}

int list_probes(struct cli_opts *o)
{
	char err[512], main_bin[PATH_MAX];
	const char *mb = NULL;
	struct ftfb_usdt_set_opts uo;
	int rc;

	if (o->syscalls && list_syscalls(o))
		return 1;
	if (!o->nuprobes && !o->python)
		return 0;
	if (preflight_target(o, main_bin, sizeof(main_bin), &mb, err,
			     sizeof(err))) {
		die_line(err);
		return 1;
	}
	rc = list_functions(o, mb);
	uo = session_usdt_opts(o, mb);
	if (ftfb_usdt_set_list(stdout, &uo))
		rc = 1;
	return rc;
}
