/* SPDX-License-Identifier: MIT */
/*
 * ring_reader.h - one BPF ring buffer read on a thread of its own (a
 * lane's, --rings N): the loader hands over rings 1..N-1 with
 * ftfb_loader_split_rings() and keeps ring 0.
 */
#ifndef FTFB_RING_READER_H
#define FTFB_RING_READER_H

#include <stddef.h>
#include <stdint.h>

#include "bpf_loader.h"

struct ftfb_ring_reader;

/* Reads the ring map fd (not closed by the reader). 0 or -errno. */
int ftfb_ring_reader_new(struct ftfb_ring_reader **out, int fd);
void ftfb_ring_reader_free(struct ftfb_ring_reader *r);

/* As ftfb_loader_poll(): waits up to timeout_ms for data, consumes what
 * is there (for at most about two timeouts while events keep coming).
 * The number of events, fn's non-zero return, or -errno. */
int ftfb_ring_reader_poll(struct ftfb_ring_reader *r, int timeout_ms,
			  ftfb_event_fn fn, void *ctx);

/* After recording stopped: everything left, waiting at most about a
 * second for records still being written. 0, fn's non-zero return, or
 * -errno. */
int ftfb_ring_reader_drain(struct ftfb_ring_reader *r, ftfb_event_fn fn,
			   void *ctx);

#endif
