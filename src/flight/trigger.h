/* SPDX-License-Identifier: MIT */
/*
 * src/trigger.h - --trigger 'SPEC>DUR': finds, in the raw event stream,
 * the returns of calls of chosen functions that lasted longer than a
 * threshold. Each thread's open calls of those functions are kept on a
 * small stack (entry time, cookie); other functions cost a table lookup.
 */
#ifndef FTFB_TRIGGER_H
#define FTFB_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tr_types.h"

struct ftfb_triggers;

/* threshold_ns[cookie]: a call must last longer than this (0: any call);
 * UINT64_MAX: not a trigger. NULL if threshold_ns is NULL or no memory. */
struct ftfb_triggers *ftfb_triggers_new(const uint64_t *threshold_ns,
					size_t nfuncs);
void ftfb_triggers_free(struct ftfb_triggers *t);

/* One raw event; true if it is the return of a triggering call, with why
 * ("rare() took 83.2 ms") in why. */
bool ftfb_triggers_event(struct ftfb_triggers *t, const void *data,
			 size_t size, char *why, size_t whylen,
			 const struct ftfb_func *funcs);

#endif
