/* SPDX-License-Identifier: MIT */
/*
 * reader_priority.h - the priority of the threads that read the BPF ring
 * buffers (the run loop's, and each ring shard's with --rings N).
 *
 * Why: on a loaded machine (2 cpus, load 12) a reader at the default
 * priority is runnable all the time yet gets a few percent of a cpu (it
 * shares its process's share with the unwind-table builder, and the
 * process shares the machine with every other), so the rings fill and
 * events are lost while the tracer uses little cpu. A reader only runs
 * while the rings hold data: its cpu time is the events' cost whatever
 * its priority, a higher one only lets it run when the data comes
 * instead of after the ring is full. The threads that can wait (table
 * building, gzip and file writes) keep the default.
 */
#ifndef FTFB_READER_PRIORITY_H
#define FTFB_READER_PRIORITY_H

/* Gives the calling thread (only it, not the process) the readers'
 * priority (see defaults.h). 0 or -errno (no CAP_SYS_NICE: the thread
 * keeps its priority, which is not an error worth stopping for). */
int ftfb_reader_priority(void);

#endif
