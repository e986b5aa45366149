/* SPDX-License-Identifier: MIT */
/*
 * process_order.h - where Perfetto's UI lists a process group: the
 * untraced tasks' group (pid 0, see proctree.h) after the traced
 * processes (-p/--).
 *
 * The UI (plugin dev.perfetto.ProcessThreadGroups) orders the top-level
 * process groups by the process arg `process_sort_index_hint` (lowest
 * first, 0 when absent), and only then by stack samples, running time
 * and slices: a group of strangers that ran longer than the traced
 * process came first, and was the one a user opened. trace_processor
 * sets that arg from the `sibling_order_rank` of a process's
 * TrackDescriptor, once the root TrackDescriptor (uuid 0) asks for
 * PROCESS_ORDERING_EXPLICIT (ProcessDescriptor.legacy_sort_index is not
 * read any more). So: those two descriptors, as Perfetto TracePackets in
 * a blob; the traced processes get none (rank 0) and keep the UI's own
 * order among themselves.
 */
#ifndef FTFB_PROCESS_ORDER_H
#define FTFB_PROCESS_ORDER_H

#include <stdint.h>

#include "ftf/writer.h"

/* Writes the descriptors that list process pid after every process
 * without a rank, in a blob named blob_name (a string id), at ts_ns
 * (Perfetto ns). 0 or the writer's error. */
int ftfb_process_order_last(struct ftf_writer *w, int blob_name, uint64_t ts_ns,
			    uint32_t pid);

#endif
