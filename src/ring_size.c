// SPDX-License-Identifier: MIT
/*
 * ring_size.c - default ring sizes (see ring_size.h).
 */
#include "defaults.h"
#include "ring_size.h"

uint64_t ftfb_auto_ring_bytes(const struct cli_opts *o, unsigned ncpus)
{
	uint64_t total = FTFB_DEFAULT_RING_BYTES, per;
	int rings = o->nr_rings > 0 ? o->nr_rings : 1;

	if (o->all) {
		/* the base holds 2 cpus' events */
		for (unsigned c = 2; c < ncpus; c *= 2)
			total *= 2;
		if (o->syscalls)
			total *= 2; /* an entry and an exit per call */
		if (o->stacks)
			total *= 2; /* samples, off-CPU and waker stacks */
	}
	if (total > FTFB_AUTO_RING_MAX_BYTES)
		total = FTFB_AUTO_RING_MAX_BYTES;
	/* rings are powers of 2: the smallest that gives each its share */
	for (per = FTFB_MIN_AUTO_RING_BYTES; per * rings < total; per *= 2)
		;
	return per;
}
