/* SPDX-License-Identifier: MIT */
/*
 * preflight.h - what is checked before anything is created or loaded,
 * so a run that cannot work says why in one line and leaves nothing
 * behind: privileges, the kernel's BTF, --freq against the kernel's
 * limit, and the target (-p a live user process, -- CMD on PATH).
 */
#ifndef FTFB_PREFLIGHT_H
#define FTFB_PREFLIGHT_H

#include <stddef.h>

#include "cli.h"

/* Privileges, BTF and --freq: 0, or -errno with one line in err. */
int preflight_system(const struct cli_opts *o, char *err, size_t errlen);

/* -p: a thread id becomes its process (said unless -q); -- CMD: its
 * path, the main binary for -u FUNC, in main_bin (*mb points at it;
 * NULL otherwise). 0, or -1 with one line in err. */
int preflight_target(struct cli_opts *o, char *main_bin, size_t len,
		     const char **mb, char *err, size_t errlen);

#endif
