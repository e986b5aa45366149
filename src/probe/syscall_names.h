/* SPDX-License-Identifier: MIT */
/*
 * src/syscall_names.h - system call numbers and names (x86-64), and the
 * --syscalls=LIST parser. The table is generated at build time from the
 * kernel headers (src/probe/gen/syscall_names.py).
 */
#ifndef FTFB_SYSCALL_NAMES_H
#define FTFB_SYSCALL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

/* NULL where the number has no call in the headers. */
extern const char *const ftfb_syscall_names[FTFB_NR_SYSCALLS];

/* The name of nr, or "syscall_NR" in buf for a number the headers of the
 * build did not know (a newer kernel). */
const char *ftfb_syscall_name(uint32_t nr, char *buf, size_t len);

/* -1 if no call has that name. */
int ftfb_syscall_nr(const char *name);

/* Parses "read,write,*sock*" into wanted[FTFB_NR_SYSCALLS] (1 for each
 * call named or matched). 0, or -EINVAL with one line in err: a name no
 * call has (with the closest names), a glob that matches none. */
int ftfb_syscall_list(const char *list, uint8_t *wanted, char *err,
		      size_t errlen);

#endif
