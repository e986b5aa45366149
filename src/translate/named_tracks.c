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
#define F_TD_THREAD 4
#define F_TD_PARENT 5
#define F_PD_PID 1
#define F_THD_PID 1
#define F_THD_TID 2
/* TrackEvent, DebugAnnotation */
#define F_TE_ANNOTATION 4
#define F_TE_TYPE 9
#define F_TE_TRACK 11
#define F_TE_CATEGORY 22
#define F_TE_NAME 23
#define TE_SLICE_BEGIN 1
#define TE_SLICE_END 2
#define F_DA_BOOL 2
#define F_DA_UINT 3
#define F_DA_INT 4
#define F_DA_STRING 6
#define F_DA_NAME 10

/* The sequence of these packets (stack samples: 1 and 2, command
 * lines: 3). */
#define NT_SEQ_ID 4
/* A string is written up to NT_STR_MAX bytes (names come from ELF notes
 * and probe arguments: a blob's size stays bounded), so a blob, a
 * slice's packets with at most NT_MAX_ARGS arguments and up to two track
 * descriptors, always fits in BLOB_MAX. */
#define NT_STR_MAX 256
#define NT_MAX_ARGS 16
#define BLOB_MAX (4 * 1024 + NT_MAX_ARGS * (2 * NT_STR_MAX + 32))
/* Packets are kept and written together, up to a blob record's most,
 * each record's header and padding shared by a few hundred packets (a
 * USDT pair's two packets were 126 bytes, 26 of them headers and
 * padding); written out when the next could not fit, and at
 * ftfb_nt_flush. */
#define BATCH_MAX FTF_MAX_BLOB_LEN

/* FNV-1a of the name, with the pid (or tid): a sibling's key */
static uint64_t key_of(uint32_t pid, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull ^ pid;

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
	return h;
}

/* s, at most NT_STR_MAX bytes of it (cut before a UTF-8 character that
 * would not fit whole) */
static void put_str(struct ftfb_pb *pb, uint32_t field, const char *s)
{
	size_t n = strnlen(s, NT_STR_MAX + 1);

	if (n > NT_STR_MAX) {
		n = NT_STR_MAX;
		while (n && ((uint8_t)s[n] & 0xc0) == 0x80)
			n--;
	}
	ftfb_pb_bytes(pb, field, s, n);
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

/* The track of process pid (tid 0) or of its thread tid, declared at
 * its first named track. */
static int owner_track(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
		       uint32_t pid, uint32_t tid, uint64_t ts, uint64_t *uuid)
{
	size_t pk, td, d;

	for (size_t i = 0; i < nt->nprocs; i++)
		if (nt->procs[i].pid == pid && nt->procs[i].tid == tid) {
			*uuid = nt->procs[i].uuid;
			return 0;
		}
	if (ftfb_grow_array((void **)&nt->procs, &nt->procs_cap, nt->nprocs + 1,
			    sizeof(*nt->procs)))
		return -ENOMEM;
	*uuid = ++nt->next_uuid;
	nt->procs[nt->nprocs++] = (struct ftfb_nt_proc){pid, tid, *uuid};
	pk = ftfb_pb_begin(pb, F_TRACE_PACKET);
	packet_head(nt, pb, ts);
	td = ftfb_pb_begin(pb, F_TRACK_DESCRIPTOR);
	ftfb_pb_varint(pb, F_TD_UUID, *uuid);
	d = ftfb_pb_begin(pb, tid ? F_TD_THREAD : F_TD_PROCESS);
	ftfb_pb_varint(pb, tid ? F_THD_PID : F_PD_PID, pid);
	if (tid)
		ftfb_pb_varint(pb, F_THD_TID, tid);
	ftfb_pb_end_short(pb, d);
	ftfb_pb_end_short(pb, td);
	ftfb_pb_end_short(pb, pk);
	return 0;
}

/* A new track named `track` under parent (0: at the top), its uuid in
 * *uuid. */
static int declare(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
		   struct ftfb_nt_sibling sibling, uint64_t parent,
		   const char *track, uint64_t ts, uint64_t *uuid)
{
	size_t pk, td;

	if (ftfb_grow_array((void **)&nt->siblings, &nt->cap, nt->n + 1,
			    sizeof(*nt->siblings)))
		return -ENOMEM;
	sibling.uuid = *uuid = ++nt->next_uuid;
	nt->siblings[nt->n++] = sibling;
	pk = ftfb_pb_begin(pb, F_TRACE_PACKET);
	packet_head(nt, pb, ts);
	td = ftfb_pb_begin(pb, F_TRACK_DESCRIPTOR);
	ftfb_pb_varint(pb, F_TD_UUID, *uuid);
	if (parent)
		ftfb_pb_varint(pb, F_TD_PARENT, parent);
	put_str(pb, F_TD_NAME, track);
	ftfb_pb_end_short(pb, td);
	ftfb_pb_end_short(pb, pk);
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
	int err;

	for (size_t i = 0; i < nt->n; i++) {
		struct ftfb_nt_sibling *l = &nt->siblings[i];

		if (l->key != key || l->pid != pid || l->tid)
			continue;
		if (l->last_end <= begin) {
			l->last_end = end;
			*uuid = l->uuid;
			return 0;
		}
		n++;
	}
	if (pid && (err = owner_track(nt, pb, pid, 0, begin, &parent)))
		return err;
	return declare(nt, pb,
		       (struct ftfb_nt_sibling){
			       .key = key, .last_end = end, .pid = pid, .n = n},
		       parent, track, begin, uuid);
}

/*
 * The threads' tracks by (tid, key), for a START to find its track in a
 * few probes however many threads there are: sibling index + 1 in an
 * open-addressing table (0: empty) of at least twice their number. Siblings
 * are appended, so an index stays valid until a forget moves them; the
 * table is then built again in place (it never shrinks: no allocation).
 */
static size_t slot_of(uint64_t key, uint32_t tid, size_t cap)
{
	return (size_t)(((key ^ tid) * 0x9e3779b97f4a7c15ull) >> 32) &
	       (cap - 1);
}

static void index_put(struct ftfb_named_tracks *nt, size_t sibling)
{
	const struct ftfb_nt_sibling *l = &nt->siblings[sibling];
	size_t i = slot_of(l->key, l->tid, nt->idx_cap);

	while (nt->idx[i])
		i = (i + 1) & (nt->idx_cap - 1);
	nt->idx[i] = (uint32_t)sibling + 1;
	nt->nidx++;
}

/* The index built anew, with room for `want` threads' tracks. */
static int index_build(struct ftfb_named_tracks *nt, size_t want)
{
	size_t cap = nt->idx_cap ? nt->idx_cap : 64;

	while (cap < 2 * want)
		cap *= 2;
	if (cap != nt->idx_cap) {
		uint32_t *p = realloc(nt->idx, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		nt->idx = p;
		nt->idx_cap = cap;
	}
	memset(nt->idx, 0, cap * sizeof(*nt->idx));
	nt->nidx = 0;
	for (size_t i = 0; i < nt->n; i++)
		if (nt->siblings[i].tid)
			index_put(nt, i);
	return 0;
}

static const struct ftfb_nt_sibling *
index_find(struct ftfb_named_tracks *nt, uint32_t pid, uint32_t tid,
	   uint64_t key)
{
	if (!nt->idx_cap)
		return NULL;
	for (size_t i = slot_of(key, tid, nt->idx_cap); nt->idx[i];
	     i = (i + 1) & (nt->idx_cap - 1)) {
		const struct ftfb_nt_sibling *l = &nt->siblings[nt->idx[i] - 1];

		if (l->tid == tid && l->key == key && l->pid == pid)
			return l;
	}
	return NULL;
}

/* Thread tid's track named `track`, or a new one declared under the
 * thread's. */
static int thread_track(struct ftfb_named_tracks *nt, struct ftfb_pb *pb,
			uint32_t pid, uint32_t tid, const char *track,
			uint64_t ts, uint64_t *uuid)
{
	uint64_t key = key_of(tid, track), parent;
	const struct ftfb_nt_sibling *l = index_find(nt, pid, tid, key);
	int err;

	if (l) {
		*uuid = l->uuid;
		return 0;
	}
	if (2 * (nt->nidx + 1) > nt->idx_cap &&
	    (err = index_build(nt, nt->nidx + 1)))
		return err;
	err = owner_track(nt, pb, pid, tid, ts, &parent);
	if (!err)
		err = declare(nt, pb,
			      (struct ftfb_nt_sibling){
				      .key = key, .pid = pid, .tid = tid},
			      parent, track, ts, uuid);
	if (!err)
		index_put(nt, nt->n - 1);
	return err;
}

static void annotation(struct ftfb_pb *pb, const struct ftfb_nt_arg *a)
{
	size_t m = ftfb_pb_begin(pb, F_TE_ANNOTATION);

	put_str(pb, F_DA_NAME, a->name);
	if (a->type == FTFB_NT_STR)
		put_str(pb, F_DA_STRING, a->s ? a->s : "");
	else if (a->type == FTFB_NT_BOOL)
		ftfb_pb_varint(pb, F_DA_BOOL, a->u ? 1 : 0);
	else
		ftfb_pb_varint(pb,
			       a->type == FTFB_NT_INT ? F_DA_INT : F_DA_UINT,
			       a->u);
	ftfb_pb_end_short(pb, m);
}

/* A begin (with the name, category and arguments) or an end packet
 * (with arguments, which Perfetto adds to the slice's). */
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
		put_str(pb, F_TE_CATEGORY, cat);
		put_str(pb, F_TE_NAME, name);
	}
	for (size_t i = 0; i < nargs && i < NT_MAX_ARGS; i++)
		annotation(pb, &args[i]);
	ftfb_pb_end_short(pb, te);
	ftfb_pb_end_short(pb, pk);
}

int ftfb_nt_flush(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		  int blob_name)
{
	size_t n = nt->pending;

	nt->pending = 0;
	return n ? ftf_write_blob(w, blob_name, FTF_BLOB_PERFETTO, nt->buf, n)
		 : 0;
}

/* pb over the room after the kept packets (written out first if one
 * more call's might not fit). */
static int blob_begin(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		      int blob_name, struct ftfb_pb *pb)
{
	int err;

	if (!nt->buf) {
		nt->buf = malloc(BATCH_MAX);
		if (!nt->buf)
			return -ENOMEM;
		nt->buf_cap = BATCH_MAX;
	}
	if (nt->buf_cap - nt->pending < BLOB_MAX &&
	    (err = ftfb_nt_flush(nt, w, blob_name)))
		return err;
	ftfb_pb_init(pb, nt->buf, nt->buf_cap);
	pb->len = nt->pending;
	return 0;
}

/* The call's packets kept. */
static int blob_write(struct ftfb_named_tracks *nt, const struct ftfb_pb *pb)
{
	if (pb->overflow) /* cannot happen: strings and arguments bounded */
		return -EOVERFLOW;
	nt->pending = pb->len;
	return 0;
}

int ftfb_nt_slice(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		  int blob_name, uint32_t pid, const char *track,
		  const char *cat, const char *name, uint64_t begin_ns,
		  uint64_t end_ns, const struct ftfb_nt_arg *args, size_t nargs)
{
	struct ftfb_pb pb;
	uint64_t uuid;
	int err = blob_begin(nt, w, blob_name, &pb);

	if (!err)
		err = sibling_for(nt, &pb, pid, track, begin_ns, end_ns, &uuid);
	if (err)
		return err;
	slice_packet(nt, &pb, begin_ns, uuid, TE_SLICE_BEGIN, cat, name, args,
		     nargs);
	slice_packet(nt, &pb, end_ns, uuid, TE_SLICE_END, NULL, NULL, NULL, 0);
	return blob_write(nt, &pb);
}

int ftfb_nt_thread_begin(struct ftfb_named_tracks *nt, struct ftf_writer *w,
			 int blob_name, uint32_t pid, uint32_t tid,
			 const char *track, const char *cat, const char *name,
			 uint64_t ts, const struct ftfb_nt_arg *args,
			 size_t nargs, uint64_t *uuid)
{
	struct ftfb_pb pb;
	int err = blob_begin(nt, w, blob_name, &pb);

	if (!err)
		err = thread_track(nt, &pb, pid, tid, track, ts, uuid);
	if (err)
		return err;
	slice_packet(nt, &pb, ts, *uuid, TE_SLICE_BEGIN, cat, name, args,
		     nargs);
	return blob_write(nt, &pb);
}

int ftfb_nt_end(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		int blob_name, uint64_t uuid, uint64_t ts,
		const struct ftfb_nt_arg *args, size_t nargs)
{
	struct ftfb_pb pb;
	int err = blob_begin(nt, w, blob_name, &pb);

	if (err)
		return err;
	slice_packet(nt, &pb, ts, uuid, TE_SLICE_END, NULL, NULL, args, nargs);
	return blob_write(nt, &pb);
}

/* Drops the siblings and owner tracks of pid (tid 0) or of thread tid,
 * and builds the threads' index again if a thread's track went. */
static void forget(struct ftfb_named_tracks *nt, uint32_t pid, uint32_t tid)
{
	size_t j = 0, threads = 0;

	for (size_t i = 0; i < nt->n; i++) {
		const struct ftfb_nt_sibling *l = &nt->siblings[i];

		if (tid ? l->tid != tid : l->pid != pid)
			nt->siblings[j++] = *l;
		else
			threads += l->tid != 0;
	}
	nt->n = j;
	j = 0;
	for (size_t i = 0; i < nt->nprocs; i++) {
		const struct ftfb_nt_proc *o = &nt->procs[i];

		if (tid ? o->tid != tid : o->pid != pid)
			nt->procs[j++] = *o;
	}
	nt->nprocs = j;
	if (threads)
		index_build(nt, 0); /* (in place: cannot fail) */
}

void ftfb_nt_forget(struct ftfb_named_tracks *nt, uint32_t pid)
{
	forget(nt, pid, 0);
}

void ftfb_nt_forget_thread(struct ftfb_named_tracks *nt, uint32_t tid)
{
	/* (tid 0 owns every process's own track; no index: no thread's) */
	if (tid && nt->nidx)
		forget(nt, 0, tid);
}

void ftfb_nt_free(struct ftfb_named_tracks *nt)
{
	free(nt->siblings);
	free(nt->procs);
	free(nt->buf);
	free(nt->idx);
	memset(nt, 0, sizeof(*nt));
}
