/* SPDX-License-Identifier: MIT */
/*
 * proctree.h - processes' command lines as Perfetto ProcessTree packets
 * inside the FTF trace.
 *
 * Perfetto's Fuchsia importer gives an FTF process no command line, but
 * reads the payloads of blob records of blob type 3 as Perfetto
 * TracePackets (as --stacks uses them): a ProcessTree packet there sets a
 * process's cmdline, and its name to the first argument (cut at the first
 * space when there is only one, as for a title the process set; the
 * title, its padding spaces cut, is then given with an empty second
 * argument, as /proc shows the rest of a rewritten argv: NULs).
 *
 * Processes are collected (encoded at once, into a buffer reused, so no
 * allocation once it has grown) and written as one packet at a time the
 * caller chooses: the tasks found at the start have no time of their own,
 * and Perfetto would stretch the trace to a packet at time 0.
 */
#ifndef FTFB_PROCTREE_H
#define FTFB_PROCTREE_H

#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"

struct ftfb_proctree {
	uint8_t *pending; /* encoded ProcessTree.Process messages */
	size_t len, cap;
	size_t count;
};

/* Adds process pid (ppid 0: unknown) with its raw cmdline (NUL-separated,
 * as /proc gives it; trailing NULs ignored). Flushes at ts_ns first when
 * the pending packet would outgrow a blob. 0, -ENOMEM or the writer's
 * error. */
int ftfb_proctree_add(struct ftfb_proctree *p, struct ftf_writer *w,
		      int blob_name, uint64_t ts_ns, uint32_t pid, uint32_t ppid,
		      const char *cmdline, size_t len);

/* Adds thread tid named `name` (its comm, len bytes) with no process: a
 * task that only shared a CPU with the traced ones (-p/--), named on the
 * CPU tracks without a process entry of its own in Perfetto's list. */
int ftfb_proctree_add_thread(struct ftfb_proctree *p, struct ftf_writer *w,
			     int blob_name, uint64_t ts_ns, uint32_t tid,
			     const char *name, size_t len);

/* Writes what is pending as one packet at ts_ns (Perfetto ns), in a blob
 * named blob_name (a string id). */
int ftfb_proctree_flush(struct ftfb_proctree *p, struct ftf_writer *w,
			int blob_name, uint64_t ts_ns);

void ftfb_proctree_free(struct ftfb_proctree *p);

#endif
