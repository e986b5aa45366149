/* SPDX-License-Identifier: MIT */
/*
 * ring_size.h - the size of each BPF ring buffer when --buffer-size is
 * not given: from the cpu count and what is on.
 *
 * Why: a ring must hold what comes while its reader waits for a cpu
 * (tens of ms on a loaded machine, 100 ms and more at load 12 on 2
 * cpus). System-wide, events come from every cpu; system calls and
 * stacks are most of the bytes when they are on. With -p or a command
 * the rate is one process's, and the base size holds it.
 */
#ifndef FTFB_RING_SIZE_H
#define FTFB_RING_SIZE_H

#include <stdint.h>

#include "cli.h"

/* Bytes per ring (a power of 2, FTFB_DEFAULT_RING_BYTES and up to
 * FTFB_AUTO_RING_MAX_BYTES in all rings together, split over
 * --rings N) for the options o on ncpus cpus. */
uint64_t ftfb_auto_ring_bytes(const struct cli_opts *o, unsigned ncpus);

#endif
