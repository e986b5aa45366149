/* SPDX-License-Identifier: MIT */
/*
 * tr_types.h - the small structs the translator shares with the code that
 * feeds it: a task as /proc or the recorder knows it, the function and
 * USDT probe tables indexed by BPF cookie. Included by the /proc reader,
 * the probe sets and the flight recorder's triggers, which need these and
 * nothing else of the translator.
 */
#ifndef FTFB_TR_TYPES_H
#define FTFB_TR_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "events.h"

#define FTFB_CMDLINE_MAX 512
struct ftfb_task_info {
	uint32_t tid, tgid;
	char comm[16];
	char process_name[64];
	/* the process's /proc/PID/cmdline (NUL-separated, cut at
	 * FTFB_CMDLINE_MAX - 1 bytes), for Perfetto's process details;
	 * cmdline_len 0: unknown */
	char cmdline[FTFB_CMDLINE_MAX];
	uint16_t cmdline_len;
};

/* Resolves a tid first seen in the stream (the tool reads /proc; tests
 * fake it). Returns 0 if found. */
typedef int (*ftfb_lookup_fn)(void *ctx, uint32_t tid,
			      struct ftfb_task_info *out);

/* uprobe cookie i -> funcs[i] */
struct ftfb_func {
	const char *name;
	const char *category;
};

/* USDT probe cookie i -> usdt[i]: an instant, or the start or the end of
 * a slice (START~END pairs: one complete record per pair, on the thread,
 * from a start to the next end of the same pair; nested pairs nest). */
enum ftfb_usdt_role {
	FTFB_USDT_INSTANT = 0,
	FTFB_USDT_BEGIN,
	FTFB_USDT_END,
};

struct ftfb_usdt_desc {
	const char *name;     /* the instant's, or the slice's */
	const char *category; /* the provider */
	uint8_t role;	      /* enum ftfb_usdt_role */
	int8_t name_arg;      /* BEGIN: the slice is named by this string
			       * argument when it was read (-1: by name) */
	bool name_prefixed;   /* ... as "NAME STRING" ("import gc": never
			       * taken for a slice named gc) */
	uint16_t pair;	      /* BEGIN and END of one pair share it */
	/* argument names (NULL: argN, or end_argN at an END; "": the
	 * argument is not written) */
	const char *arg_names[FTFB_USDT_MAX_ARGS];
};

#endif
