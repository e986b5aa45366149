/* SPDX-License-Identifier: MIT */
/*
 * uprobe_set.h - the functions of one trace: every -u function spec
 * (those not usdt:) resolved to functions and file offsets, less the ones
 * that must never be probed, with the translator's table (name and
 * category) indexed by the BPF cookie, which counts the functions in spec
 * order.
 *
 * Never probed (one warning line per spec and reason; an error when a
 * spec keeps nothing):
 *   - functions that return twice or on another stack (setjmp, vfork,
 *     clone, *context): a uretprobe replaces their return address with a
 *     trampoline, which setjmp saves, vfork/clone return through in two
 *     tasks and swapcontext leaves: the probed process then crashes or
 *     computes wrong results (seen: bash and python under -u 'libc:*');
 *   - functions whose first instruction has a LOCK, CS, DS, ES or SS
 *     prefix, which x86 uprobes refuse (the kernel's is_prefix_bad()),
 *     silently for a probe with no pid filter: no call would be seen.
 */
#ifndef FTFB_UPROBE_SET_H
#define FTFB_UPROBE_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"
#include "tr_types.h"

struct ftfb_uprobe_set {
	struct ftfb_symlist *lists; /* one per spec (empty for usdt: ones) */
	int nlists;
	struct ftfb_func *funcs;    /* [cookie]: name, category */
	char **categories;	    /* owned: the binaries' short names */
	size_t nfuncs;
};

/* Resolves the function specs among specs (usdt: ones are skipped) for
 * the target pid (0: none) and its main binary (NULL: /proc/PID/exe).
 * 0, or -errno with one line in err (the first spec that failed). */
int ftfb_uprobe_set_build(struct ftfb_uprobe_set *u, const char *const *specs,
			  int nspecs, int pid, const char *main_binary,
			  char *err, size_t errlen);
void ftfb_uprobe_set_free(struct ftfb_uprobe_set *u);

/* The cookie of the function at binary and file offset, or -1. */
long ftfb_uprobe_set_find(const struct ftfb_uprobe_set *u, const char *binary,
			  uint64_t offset);

/* The rules, exposed for the tests. */
/* true if name is one of the functions that return twice */
bool ftfb_returns_twice(const char *name);
/* false if the instruction bytes b[0..n) start with a prefix x86 uprobes
 * refuse (LOCK, CS, DS, ES, SS, also after other legacy prefixes); true
 * otherwise (and when n is 0: we cannot tell) */
bool ftfb_x86_insn_probeable(const unsigned char *b, size_t n);
/* NULL if s can be probed, else why not (reads its first bytes) */
const char *ftfb_unprobeable(const struct ftfb_sym *s);
/* "libc.so.6" -> "libc", "/usr/bin/python3.11" -> "python3.11": a
 * function's category */
const char *ftfb_short_binary_name(const char *path, char *buf, size_t len);

#endif
