/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/mem.h - the raw events of the mem source (--events=mem): its
 * kinds and structs, shared by bpf/mem.bpf.c and its translator
 * (src/translate/translate_mem.c). Kind numbers: bpf/events.h.
 */
#ifndef FTFB_MEM_EVENTS_H
#define FTFB_MEM_EVENTS_H

#include "events.h"

enum {
	FTFB_EV_RSS = 20,   /* struct ftfb_rss */
	FTFB_EV_FAULT = 21, /* struct ftfb_fault */
};

/* --events=mem: a traced process's resident memory changed (rss_stat).
 * hdr.tid = hdr.tgid = the process (the mm's owner), member: 0 file
 * pages, 1 anonymous, 2 swap entries, 3 shared memory; pages: its new
 * value, exact (the per-cpu parts of the kernel's counter summed). */
#define FTFB_RSS_FILE 0
#define FTFB_RSS_ANON 1
#define FTFB_RSS_SWAP 2
#define FTFB_RSS_SHMEM 3
#define FTFB_RSS_MEMBERS 4
struct ftfb_rss {
	struct ftfb_hdr hdr;
	__u32 member;
	__u32 _pad2;
	__s64 pages;
};

/* --events=mem: a page fault from user mode during which the thread
 * blocked (a major fault: a read from disk or swap, a wait for a page
 * another task reads, reclaim), sent when the thread runs again. hdr.ts =
 * then, start_ns = the fault (page_fault_user), blocked_ns = its time off
 * CPU, addr the faulting address, error the x86 page fault error code
 * (bit 1: a write, bit 4: an instruction fetch). */
struct ftfb_fault {
	struct ftfb_hdr hdr;
	__u64 start_ns;
	__u64 blocked_ns;
	__u64 addr;
	__u32 error;
	__u32 _pad2;
};

#endif
