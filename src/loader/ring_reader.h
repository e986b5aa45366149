/* SPDX-License-Identifier: MIT */
/*
 * ring_reader.h - BPF ring buffers read by one thread, records handed to
 * a callback: the loader's (every ring, or ring 0 once split) and each
 * shard's (one of rings 1..N-1, --rings N, handed over with
 * ftfb_loader_split_rings()). A poll returns within about two timeouts
 * even while records keep coming, so its caller sees its stop
 * conditions; a drain waits for records still being written.
 */
#ifndef FTFB_RING_READER_H
#define FTFB_RING_READER_H

#include <stddef.h>
#include <stdint.h>

#include <stddef.h>

/* Called for each raw event (starting with struct ftfb_hdr); a non-zero
 * return stops the poll/drain, which returns it. */
typedef int (*ftfb_event_fn)(void *ctx, const void *data, size_t size);

struct ftfb_ring_reader;

/* Reads the ring map fd (not closed by the reader). 0 or -errno. */
int ftfb_ring_reader_new(struct ftfb_ring_reader **out, int fd);
/* Reads the ring map fd too. 0 or -errno. */
int ftfb_ring_reader_add(struct ftfb_ring_reader *r, int fd);
void ftfb_ring_reader_free(struct ftfb_ring_reader *r);

/* Waits up to timeout_ms for data, consumes what is there (for at most
 * about two timeouts while records keep coming). The number of records,
 * fn's non-zero return, or -errno. */
int ftfb_ring_reader_poll(struct ftfb_ring_reader *r, int timeout_ms,
			  ftfb_event_fn fn, void *ctx);

/* After recording stopped: everything left, waiting at most about a
 * second for records still being written. 0, fn's non-zero return, or
 * -errno. */
int ftfb_ring_reader_drain(struct ftfb_ring_reader *r, ftfb_event_fn fn,
			   void *ctx);

#endif
