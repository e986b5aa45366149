// SPDX-License-Identifier: MIT
/*
 * named_tracks.c - slices on tracks named by what they hold, as Perfetto
 * TrackEvent packets in the FTF trace (see named_tracks.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow_array.h"
#include "named_tracks.h"
#include "pbwrite.h"

/* TracePacket */
#define F_TRACE_PACKET 1
#define F_TIMESTAMP 8
#define F_SEQ_ID 10
#define F_TRACK_EVENT 11
#define F_SEQ_FLAGS 13
#define F_TRACK_DESCRIPTOR 60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
/* TrackDescriptor, ProcessDescriptor */
#define F_TD_UUID 1
#define F_TD_NAME 2
#define F_TD_PROCESS 3
#define F_TD_PARENT 5
#define F_PD_PID 1
/* TrackEvent, DebugAnnotation */
#define F_TE_ANNOTATION 4
#define F_TE_TYPE 9
#define F_TE_TRACK 11
#define F_TE_CATEGORY 22
#define F_TE_NAME 23
#define TE_SLICE_BEGIN 1
#define TE_SLICE_END 2
#define F_DA_UINT 3
#define F_DA_INT 4
#define F_DA_STRING 6
#define F_DA_NAME 10

/* The sequence of these packets (stack samples: 1 and 2, command
 * lines: 3). */
#define NT_SEQ_ID 4
/* A blob holds a slice's packets and up to two track descriptors. */
#define BLOB_MAX 4096

/* FNV-1a of the name, with the pid: a sibling's key */
static uint64_t key_of(uint32_t pid, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull ^ pid;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
	return h;
}

static void packet_head(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
			uint64_t ts)
{
	ftfb_pb_varint(pb, F_TIMESTAMP, ts);
	ftfb_pb_varint(pb, F_SEQ_ID, NT_SEQ_ID);
	if (!nt->seq_started) {
		ftfb_pb_varint(pb, F_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		nt->seq_started = true;
	}
}

/* The process's own track (its pid's), declared at its first sibling. */
static int proc_track(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
		      uint32_t pid, uint64_t ts, uint64_t *uuid)
{
	size_t pk, td, pd;

	for (size_t i = 0; i < nt->nprocs; i++)
		if (nt->procs[i].pid == pid) {
			*uuid = nt->procs[i].uuid;
			return 0;
		}
	if (ftfb_grow_array((void **)&nt->procs, &nt->procs_cap, nt->nprocs + 1,
			    sizeof(*nt->procs)))
		return -ENOMEM;
	*uuid = ++nt->next_uuid;
	nt->procs[nt->nprocs++] = (struct ftfb_nt_proc){pid, *uuid};
	pk = ftfb_pb_begin(pb, F_TRACE_PACKET);
	packet_head(nt, pb, ts);
	td = ftfb_pb_begin(pb, F_TRACK_DESCRIPTOR);
	ftfb_pb_varint(pb, F_TD_UUID, *uuid);
	pd = ftfb_pb_begin(pb, F_TD_PROCESS);
	ftfb_pb_varint(pb, F_PD_PID, pid);
	ftfb_pb_end(pb, pd);
	ftfb_pb_end(pb, td);
	ftfb_pb_end(pb, pk);
	return 0;
}

/* The first sibling of (pid, track) free at begin, or a new one declared
 * (under its process's track, or at the top for pid 0). */
static int sibling_for(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
		       uint32_t pid, const char *track, uint64_t begin,
		       uint64_t end, uint64_t *uuid)
{
	uint64_t key = key_of(pid, track), parent = 0;
	uint16_t n = 0;
	size_t pk, td;
	int err;

	for (size_t i = 0; i < nt->n; i++) {
		struct ftfb_nt_sibling *l = &nt->siblings[i];

		if (l->key != key || l->pid != pid)
			continue;
		if (l->last_end <= begin) {
			l->last_end = end;
			*uuid = l->uuid;
			return 0;
		}
		n++;
	}
	if (pid && (err = proc_track(nt, pb, pid, begin, &parent)))
		return err;
	if (ftfb_grow_array((void **)&nt->siblings, &nt->cap, nt->n + 1,
			    sizeof(*nt->siblings)))
		return -ENOMEM;
	*uuid = ++nt->next_uuid;
	nt->siblings[nt->n++] = (struct ftfb_nt_sibling){
		.uuid = *uuid, .key = key, .last_end = end, .pid = pid, .n = n};
	pk = ftfb_pb_begin(pb, F_TRACE_PACKET);
	packet_head(nt, pb, begin);
	td = ftfb_pb_begin(pb, F_TRACK_DESCRIPTOR);
	ftfb_pb_varint(pb, F_TD_UUID, *uuid);
	if (parent)
		ftfb_pb_varint(pb, F_TD_PARENT, parent);
	ftfb_pb_string(pb, F_TD_NAME, track);
	ftfb_pb_end(pb, td);
	ftfb_pb_end(pb, pk);
	return 0;
}

static void annotation(struct ftfb_pb *pb, const struct ftfb_nt_arg *a)
{
	size_t m = ftfb_pb_begin(pb, F_TE_ANNOTATION);

	ftfb_pb_string(pb, F_DA_NAME, a->name);
	if (a->type == FTFB_NT_STR)
		ftfb_pb_string(pb, F_DA_STRING, a->s ? a->s : "");
	else
		ftfb_pb_varint(pb,
			       a->type == FTFB_NT_INT ? F_DA_INT : F_DA_UINT,
			       a->u);
	ftfb_pb_end(pb, m);
}

/* A begin (with the name, category and arguments) or an end packet. */
static void slice_packet(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
			 uint64_t ts, uint64_t uuid, int type, const char *cat,
			 const char *name, const struct ftfb_nt_arg *args,
			 size_t nargs)
{
	size_t pk = ftfb_pb_begin(pb, F_TRACE_PACKET), te;

	packet_head(nt, pb, ts);
	te = ftfb_pb_begin(pb, F_TRACK_EVENT);
	ftfb_pb_varint(pb, F_TE_TYPE, (uint64_t)type);
	ftfb_pb_varint(pb, F_TE_TRACK, uuid);
	if (type == TE_SLICE_BEGIN) {
		ftfb_pb_string(pb, F_TE_CATEGORY, cat);
		ftfb_pb_string(pb, F_TE_NAME, name);
		for (size_t i = 0; i < nargs; i++)
			annotation(pb, &args[i]);
	}
	ftfb_pb_end(pb, te);
	ftfb_pb_end(pb, pk);
}

int ftfb_nt_slice(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		  int blob_name, uint32_t pid, const char *track,
		  const char *cat, const char *name, uint64_t begin_ns,
		  uint64_t end_ns, const struct ftfb_nt_arg *args, size_t nargs)
{
	struct ftfb_pb pb;
	uint64_t uuid;
	int err;

	if (!nt->buf) {
		nt->buf = malloc(BLOB_MAX);
		if (!nt->buf)
			return -ENOMEM;
		nt->buf_cap = BLOB_MAX;
	}
	ftfb_pb_init(&pb, nt->buf, nt->buf_cap);
	err = sibling_for(nt, &pb, pid, track, begin_ns, end_ns, &uuid);
	if (err)
		return err;
	slice_packet(nt, &pb, begin_ns, uuid, TE_SLICE_BEGIN, cat, name, args,
		     nargs);
	slice_packet(nt, &pb, end_ns, uuid, TE_SLICE_END, NULL, NULL, NULL, 0);
	if (pb.overflow)
		return 0; /* cannot happen: names and args are short */
	return ftf_write_blob(w, blob_name, FTF_BLOB_PERFETTO, nt->buf, pb.len);
}

void ftfb_nt_forget(struct ftfb_named_tracks *nt, uint32_t pid)
{
	size_t j = 0;

	for (size_t i = 0; i < nt->n; i++)
		if (nt->siblings[i].pid != pid)
			nt->siblings[j++] = nt->siblings[i];
	nt->n = j;
	j = 0;
	for (size_t i = 0; i < nt->nprocs; i++)
		if (nt->procs[i].pid != pid)
			nt->procs[j++] = nt->procs[i];
	nt->nprocs = j;
}

void ftfb_nt_free(struct ftfb_named_tracks *nt)
{
	free(nt->siblings);
	free(nt->procs);
	free(nt->buf);
	memset(nt, 0, sizeof(*nt));
}
