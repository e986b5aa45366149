/* SPDX-License-Identifier: MIT */
/*
 * list.h - --list: what the -u specs and --syscalls[=LIST] match, printed
 * on stdout; nothing is traced.
 */
#ifndef FTFB_LIST_H
#define FTFB_LIST_H

#include "cli.h"

/* The exit code: 0, or 1 after an error line per spec that failed. */
int list_probes(struct cli_opts *o);

#endif
