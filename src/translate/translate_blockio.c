// SPDX-License-Identifier: MIT
/*
 * src/translate_blockio.c - --events=io: block requests (struct
 * ftfb_block_io) as slices, in the process that made them and on a
 * track per disk at the top ("disk vda", the per-device view).
 *
 * Not async events: Perfetto's Fuchsia importer (v49-era
 * fuchsia_trace_parser.cc) interns an async begin/end pair's track by
 * name and correlation id with a global scope, so every process's
 * "write" requests would share one global track, outside the process.
 * Requests in flight together overlap, which one thread's track cannot
 * show either; so they go on named tracks (named_tracks.h): "block I/O"
 * in the process, "disk NAME" at the top, each as many siblings (tracks
 * of one name) as requests overlap, which Perfetto's UI shows as one
 * track. The requests
 * arrive in completion order (one ring), so a sibling's slices never
 * overlap.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blockio.h"
#include "translate_priv.h"

/* the translator's state of the source (ftfb_tr_state) */
struct blockio_state {
	uint64_t requests; /* seen */
};

/* REQ_OP_*: "read", ... */
static const char *blk_op_name(unsigned op)
{
	switch (op) {
	case 0:
		return "read";
	case 1:
		return "write";
	case 2:
		return "flush";
	case 3:
		return "discard";
	case 5:
		return "secure_erase";
	case 9:
		return "write_zeroes";
	case 34:
		return "drv_in";
	case 35:
		return "drv_out";
	default:
		return "other";
	}
}

/* The request's name: a write of no data that flushes first is the
 * flush an fsync asks for (blktrace's "FWS"). */
static const char *op_of(const struct ftfb_block_io *e)
{
	return e->op == 1 && !e->bytes && (e->flags & FTFB_BLK_PREFLUSH)
		       ? "flush"
		       : blk_op_name(e->op);
}

/* The request as one slice on track `track` of process pid (0: the
 * disk's, at the top), from its making to its completion (queue_ns:
 * made to issued, device_ns: issued to completed). */
static int write_request(struct ftfb_translator *t, uint32_t pid,
			 const char *track, const struct ftfb_block_io *e,
			 uint64_t begin)
{
	uint64_t issue = e->issue_ns >= begin && e->issue_ns <= e->hdr.ts
				 ? e->issue_ns
				 : begin;
	char disk[FTFB_DISK_NAME_LEN];
	struct ftfb_nt_arg a[8] = {
		{"disk", FTFB_NT_STR, 0, disk},
		{"sector", FTFB_NT_UINT, e->sector, NULL},
		{"bytes", FTFB_NT_UINT, e->bytes, NULL},
		{"queue_ns", FTFB_NT_UINT, issue - begin, NULL},
		{"device_ns", FTFB_NT_UINT, e->hdr.ts - issue, NULL},
		{"flags", FTFB_NT_UINT, e->flags, NULL},
		{"error", FTFB_NT_INT, (uint64_t)(int64_t)e->error, NULL},
		{"tid", FTFB_NT_UINT, e->hdr.tid, NULL},
	};
	int blob = ftfb_tr_str_id(t, "perfetto", 8, NULL), err;

	if (blob < 0)
		return blob;
	snprintf(disk, sizeof(disk), "%.*s", FTFB_DISK_NAME_LEN - 1, e->disk);
	err = ftfb_nt_slice(&t->ntracks, t->w, blob, pid, track, "block",
			    op_of(e), ftfb_tr_perfetto_ns(t, begin),
			    ftfb_tr_perfetto_ns(t, e->hdr.ts), a, 8);
	if (!err)
		t->st.records++;
	return err;
}

static int on_block_io(struct ftfb_translator *t, const struct ftfb_block_io *e)
{
	uint64_t begin = e->start_ns <= e->hdr.ts ? e->start_ns : e->hdr.ts;
	char disk[FTFB_COMM_LEN + FTFB_DISK_NAME_LEN];
	struct blockio_state *st = ftfb_tr_state(t, FTFB_EV_BLOCK_IO);
	struct ftfb_task *k;
	int err;

	st->requests++;
	if (e->hdr.tid) {
		err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
		if (!err)
			err = write_request(t, k->tgid, "block I/O", e, begin);
		if (err)
			return err;
	}
	snprintf(disk, sizeof(disk), "disk %.*s", FTFB_DISK_NAME_LEN - 1,
		 e->disk[0] ? e->disk : "?");
	return write_request(t, 0, disk, e, begin);
}

static int ev_block_io(struct ftfb_translator *t, const void *data, size_t size)
{
	struct ftfb_block_io e;

	(void)size;
	memcpy(&e, data, sizeof(e)); /* (aligned, whatever the caller's) */
	return on_block_io(t, &e);
}

static const struct ftfb_kind_info kinds[] = {
	{FTFB_EV_BLOCK_IO, sizeof(struct ftfb_block_io), "block_io",
	 "block requests", ev_block_io},
};

const struct ftfb_tr_source ftfb_tr_blockio = {"io", kinds, 1,
					       sizeof(struct blockio_state)};
