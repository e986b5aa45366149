/* SPDX-License-Identifier: MIT */
/*
 * early_reader.h - the rings read from the first attach until the run
 * loop takes over.
 *
 * Why: the sched programs are attached when the loader opens, then the
 * other sources, -g's tables (libc's, and with -p the target's, waited
 * for), the translator and the names of every live process are made
 * ready: seconds on a busy machine, while the programs write. With
 * nobody reading, the rings filled and the first seconds' events were
 * lost. This thread reads them from the first attach into memory; the
 * session hands them, in order, to the sink once it is started, before
 * any newer one.
 */
#ifndef FTFB_EARLY_READER_H
#define FTFB_EARLY_READER_H

#include <stddef.h>
#include <stdint.h>

#include "ring_reader.h"

struct ftfb_loader;
struct ftfb_early_reader;

/* Starts reading every ring of l (nothing else may poll l until
 * ftfb_early_reader_stop). 0 or -errno. */
int ftfb_early_reader_start(struct ftfb_early_reader **out,
			    struct ftfb_loader *l);

/* Ends the reading (the rings are then read by the caller again) and
 * hands every record kept, oldest first, to fn; the first non-zero
 * return of fn is returned (the rest are dropped). r may be NULL. */
int ftfb_early_reader_stop(struct ftfb_early_reader *r, ftfb_event_fn fn,
			   void *ctx);

/* Records kept, and those lost for want of memory (counted, not kept). */
uint64_t ftfb_early_reader_kept(const struct ftfb_early_reader *r);
uint64_t ftfb_early_reader_lost(const struct ftfb_early_reader *r);

/* Stops if needed (without handing anything over) and frees. r may be
 * NULL. */
void ftfb_early_reader_free(struct ftfb_early_reader *r);

#endif
