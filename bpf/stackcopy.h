/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/stackcopy.h - an on-CPU sample whose user stack walk stopped "not
 * loaded yet" (its binary's unwind table was still being built), sent
 * with a bounded copy of the user stack so that userspace finishes the
 * walk once the table is there (src/stacks/native/stack_finish.c), then
 * hands the sample on as an ordinary FTFB_EV_STACK_ON.
 *
 * Sent only then (never in the common path): the copy costs ring bytes.
 */
#ifndef FTFB_STACKCOPY_H
#define FTFB_STACKCOPY_H

#include "events.h"

/* the user stack bytes copied at most, from sp up (to a page's end) */
#define FTFB_SC_MAX_BYTES 16384

/* ftfb_stack_copy.flags */
#define FTFB_SC_BP_KNOWN 1 /* bp is the stopped frame's rbp */
#define FTFB_SC_RETADDR 2  /* pc is a return address: its row is pc - 1 */

/* FTFB_EV_STACK_COPY. ev as the sample's FTFB_EV_STACK_ON would be,
 * except that its user ips are always there (ev.nu of them, the last the
 * stop frame FTFB_UW_STOP_IP(FTFB_UW_NOT_LOADED), the one before it the
 * pc the walk stopped at). Then the registers at that frame, the mapping
 * of pc in the process's entry as the walker saw it (0, 0: no entry yet),
 * and nbytes of user stack from sp. */
struct ftfb_stack_copy {
	struct ftfb_stack ev;
	__u64 pc, sp, bp;
	__u64 map_start, map_end;
	__u32 flags;
	__u32 nbytes;
	/* then __u64 ips[ev.nu + ev.nk + ev.py.n], then __u8 bytes[nbytes] */
};

#endif
