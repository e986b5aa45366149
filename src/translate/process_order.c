// SPDX-License-Identifier: MIT
/*
 * process_order.c - a process group listed last in Perfetto's UI (see
 * process_order.h).
 */
#include <errno.h>

#include "pbwrite.h"
#include "process_order.h"

/* Trace.packet; TracePacket.timestamp, .trusted_packet_sequence_id and
 * .track_descriptor */
#define F_TRACE_PACKET 1
#define F_TIMESTAMP 8
#define F_SEQ_ID 10
#define F_TRACK_DESCRIPTOR 60
/* TrackDescriptor.uuid, .process, .sibling_order_rank, .process_ordering;
 * ProcessDescriptor.pid */
#define F_UUID 1
#define F_PROCESS 3
#define F_RANK 12
#define F_PROCESS_ORDERING 19
#define F_PID 1
#define PROCESS_ORDERING_EXPLICIT 1

/* A sequence of their own (stacks: 1 to 3, command lines: 3, named
 * tracks: 4). */
#define ORDER_SEQ_ID 5
/* The root track is uuid 0; a process track's uuid is ours to choose,
 * unique in the trace: named_tracks.c counts its uuids up from 1. */
#define ROOT_UUID 0
#define PROCESS_UUID_BASE 0x6674666200000000ull /* "ftfb" */

/* Opens a TracePacket with a TrackDescriptor for uuid. */
static size_t begin_track(struct ftfb_pb *pb, uint64_t ts_ns, uint64_t uuid,
			  size_t *pk)
{
	size_t td;

	*pk = ftfb_pb_begin(pb, F_TRACE_PACKET);
	ftfb_pb_varint(pb, F_TIMESTAMP, ts_ns);
	ftfb_pb_varint(pb, F_SEQ_ID, ORDER_SEQ_ID);
	td = ftfb_pb_begin(pb, F_TRACK_DESCRIPTOR);
	/* (written even when 0: a descriptor without a uuid is dropped) */
	ftfb_pb_varint(pb, F_UUID, uuid);
	return td;
}

int ftfb_process_order_last(struct ftf_writer *w, int blob_name, uint64_t ts_ns,
			    uint32_t pid)
{
	uint8_t buf[128];
	struct ftfb_pb pb;
	size_t pk, td, pd;

	ftfb_pb_init(&pb, buf, sizeof(buf));
	/* the root first: the ranks below count only once it says so */
	td = begin_track(&pb, ts_ns, ROOT_UUID, &pk);
	ftfb_pb_varint(&pb, F_PROCESS_ORDERING, PROCESS_ORDERING_EXPLICIT);
	ftfb_pb_end(&pb, td);
	ftfb_pb_end(&pb, pk);
	/* rank 1: after the processes without a rank (0) */
	td = begin_track(&pb, ts_ns, PROCESS_UUID_BASE | pid, &pk);
	pd = ftfb_pb_begin(&pb, F_PROCESS);
	ftfb_pb_varint(&pb, F_PID, pid);
	ftfb_pb_end(&pb, pd);
	ftfb_pb_varint(&pb, F_RANK, 1);
	ftfb_pb_end(&pb, td);
	ftfb_pb_end(&pb, pk);
	if (pb.overflow)
		return -ENOBUFS; /* cannot happen: the buffer fits both */
	return ftf_write_blob(w, blob_name, FTF_BLOB_PERFETTO, pb.buf, pb.len);
}
