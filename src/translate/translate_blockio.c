// SPDX-License-Identifier: MIT
/*
 * src/translate_blockio.c - --events=io: block requests (struct
 * ftfb_block_io) as slices, in the process that made them and in a
 * pseudo process per disk ("disk vda", the per-device view).
 *
 * Not async events: Perfetto's Fuchsia importer (v49-era
 * fuchsia_trace_parser.cc) interns an async begin/end pair's track by
 * name and correlation id with a global scope, so every process's
 * "write" requests would share one global track, outside the process.
 * Requests in flight together overlap, which one thread's track cannot
 * show either; so each process (and each disk) gets tracks
 * (tracks.c) named "block I/O" (or the disk's name). The requests
 * arrive in completion order (one ring), so a track's slices never
 * overlap.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "translate_priv.h"

const char *ftfb_blk_op_name(unsigned op)
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

/* The disk's pseudo process, named "disk NAME". */
static int disk_task(struct ftfb_translator *t, const struct ftfb_block_io *e,
		     uint32_t *pid)
{
	char name[FTFB_COMM_LEN + FTFB_DISK_NAME_LEN];
	struct ftfb_task *k;

	*pid = FTFB_PSEUDO_DISK_PID +
	       (((e->dev >> 20) & 0x3ff) << 12 | (e->dev & 0xfff));
	/* (a thread name: comm length, truncated) */
	snprintf(name, sizeof(name), "disk %.*s", FTFB_DISK_NAME_LEN - 1,
		 e->disk[0] ? e->disk : "?");
	name[FTFB_COMM_LEN - 1] = '\0';
	return ftfb_tr_pseudo_task(t, *pid, *pid, name, &k);
}

/* The argument ids of a request (interned once, see ftfb_tr_cached_id). */
struct blk_ids {
	int name, cat, disk, disk_arg, sector, bytes, queue_ns, device_ns, flags, error,
		tid;
};

static int blk_ids(struct ftfb_translator *t, const struct ftfb_block_io *e,
		   struct blk_ids *d)
{
	struct ftfb_tr_blockio *b = &t->blk;
	/* a write of no data that flushes first is the flush an fsync
	 * asks for (blktrace's "FWS") */
	const char *op = e->op == 1 && !e->bytes && (e->flags & FTFB_BLK_PREFLUSH)
				 ? "flush"
				 : ftfb_blk_op_name(e->op);

	d->name = ftfb_tr_str_id(t, op, strlen(op), NULL);
	d->disk = ftfb_tr_str_id(t, e->disk, strnlen(e->disk, sizeof(e->disk)),
				 NULL);
	d->cat = ftfb_tr_cached_id(t, &b->s_cat, "block");
	d->disk_arg = ftfb_tr_cached_id(t, &b->s_disk, "disk");
	d->sector = ftfb_tr_cached_id(t, &b->s_sector, "sector");
	d->bytes = ftfb_tr_cached_id(t, &b->s_bytes, "bytes");
	d->queue_ns = ftfb_tr_cached_id(t, &b->s_queue_ns, "queue_ns");
	d->device_ns = ftfb_tr_cached_id(t, &b->s_device_ns, "device_ns");
	d->flags = ftfb_tr_cached_id(t, &b->s_flags, "flags");
	d->error = ftfb_tr_cached_id(t, &b->s_error, "error");
	d->tid = ftfb_tr_cached_id(t, &b->s_tid, "tid");
	if (d->name < 0 || d->disk < 0 || d->cat < 0 || d->sector < 0 ||
	    d->bytes < 0 || d->queue_ns < 0 || d->device_ns < 0 ||
	    d->flags < 0 || d->error < 0 || d->tid < 0 || d->disk_arg < 0)
		return -ENOMEM;
	return 0;
}

/* The request as one slice on track k, from its making to its completion
 * (queue_ns: made to issued, device_ns: issued to completed). */
static int write_request(struct ftfb_translator *t, struct ftfb_task *k,
			 const struct ftfb_block_io *e, uint64_t begin)
{
	uint64_t issue = e->issue_ns >= begin && e->issue_ns <= e->hdr.ts
				 ? e->issue_ns
				 : begin;
	int ref = ftfb_tr_thread_ref(t, k), err;
	struct blk_ids d;

	if (ref < 0)
		return ref;
	err = blk_ids(t, e, &d);
	if (!err)
		err = ftf_write_duration_complete(
			t->w, FTF_ARG_TYPES(3, 4, 0, 0, 1, 0), ref, d.cat,
			d.name, ftfb_tr_ticks(t, begin),
			ftfb_tr_ticks(t, e->hdr.ts));
	if (!err)
		err = ftf_arg_string(t->w, d.disk_arg, d.disk);
	if (!err)
		err = ftf_arg_uint64(t->w, d.sector, e->sector);
	if (!err)
		err = ftf_arg_uint32(t->w, d.bytes, e->bytes);
	if (!err)
		err = ftf_arg_uint64(t->w, d.queue_ns, issue - begin);
	if (!err)
		err = ftf_arg_uint64(t->w, d.device_ns, e->hdr.ts - issue);
	if (!err)
		err = ftf_arg_uint32(t->w, d.flags, e->flags);
	if (!err)
		err = ftf_arg_int32(t->w, d.error, e->error);
	if (!err)
		err = ftf_arg_uint32(t->w, d.tid, e->hdr.tid);
	if (err)
		return err;
	t->st.records++;
	return 0;
}

static int on_block_io(struct ftfb_translator *t, const struct ftfb_block_io *e)
{
	uint64_t begin = e->start_ns <= e->hdr.ts ? e->start_ns : e->hdr.ts;
	char disk[FTFB_DISK_NAME_LEN];
	struct ftfb_task *k;
	uint32_t pid;
	int err;

	t->blk.requests++;
	if (e->hdr.tid) {
		err = ftfb_tr_ensure_task(t, e->hdr.tid, e->hdr.tgid, &k);
		if (!err)
			err = ftfb_tr_track_for(t, k->tgid, "block I/O", begin,
					       e->hdr.ts, &k);
		if (!err && k)
			err = write_request(t, k, e, begin);
		if (err)
			return err;
	}
	snprintf(disk, sizeof(disk), "%.*s", FTFB_DISK_NAME_LEN - 1, e->disk);
	err = disk_task(t, e, &pid);
	if (!err)
		err = ftfb_tr_track_for(t, pid, disk, begin, e->hdr.ts, &k);
	if (!err && k)
		err = write_request(t, k, e, begin);
	return err;
}

int ftfb_tr_ev_block_io(struct ftfb_translator *t, const void *data,
			size_t size)
{
	struct ftfb_block_io e;

	(void)size;
	memcpy(&e, data, sizeof(e)); /* (aligned, whatever the caller's) */
	return on_block_io(t, &e);
}
