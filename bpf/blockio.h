/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bpf/blockio.h - the raw events of the blockio source (--events=io): its
 * kinds and structs, shared by bpf/blockio.bpf.c and its translator
 * (src/translate/translate_blockio.c). Kind numbers: bpf/events.h.
 */
#ifndef FTFB_BLOCKIO_EVENTS_H
#define FTFB_BLOCKIO_EVENTS_H

#include "events.h"

enum {
	FTFB_EV_BLOCK_IO = 18, /* struct ftfb_block_io */
};

/* --events=io: one block request, sent at its completion. hdr.ts = the
 * completion, hdr.tid/tgid = the task that submitted it (0 if unknown:
 * a request the kernel made, e.g. a flush, with -a), hdr.cpu = the cpu it
 * completed on. start_ns: when it was made from its bios (block_io_start,
 * in the submitter's context), insert_ns: when it entered the I/O
 * scheduler's queue (0: never queued), issue_ns: when it went to the
 * driver. op: REQ_OP_* (0 read, 1 write, 2 flush, 3 discard, ...), flags:
 * FTFB_BLK_*; bytes as the completion reports them; dev: the disk's
 * major << 20 | first minor, disk its name (truncated to 15). */
#define FTFB_DISK_NAME_LEN 16
#define FTFB_BLK_SYNC 0x1
#define FTFB_BLK_META 0x2
#define FTFB_BLK_FUA 0x4
#define FTFB_BLK_PREFLUSH 0x8
struct ftfb_block_io {
	struct ftfb_hdr hdr;
	__u64 start_ns;
	__u64 insert_ns;
	__u64 issue_ns;
	__u64 sector;
	__u32 bytes;
	__u32 dev;
	__u8 op;
	__u8 flags;
	__u16 _pad;
	__s32 error;
	char disk[FTFB_DISK_NAME_LEN];
};

#endif
