/* SPDX-License-Identifier: MIT */
/*
 * named_tracks.h - slices on tracks Perfetto names by what they hold
 * ("block I/O" in a process, "disk sda" at the top), with no thread id or
 * pid made up for them: Perfetto TrackEvent packets inside the FTF trace
 * (blobs of type 3, as proctree.h writes its packets).
 *
 * FTF can only put a slice on a thread of a process, and Perfetto's UI
 * shows a thread with its tid and a process with its pid: tracks as
 * pseudo threads showed `block I/O 2097152004`, a disk a pid of
 * 2,081,415,168. A TrackEvent track is shown by its name. Slices that
 * overlap go to siblings, tracks of one name and parent, which the UI merges
 * into one track (its rows laid out as for async slices): a process shows
 * one "block I/O" track however many requests it has in flight.
 *
 * A slice of ftfb_nt_slice is written at its end, as a begin and an end
 * packet; Perfetto sorts them by time. Packets are kept and written a
 * blob record of a few hundred at a time (ftfb_nt_flush at the end). A thread's
 * track (ftfb_nt_thread_begin, ftfb_nt_end: USDT pairs of one kind) is one
 * track, not siblings: its slices nest, each begin written when it happens
 * and each end when it happens, so they reach Perfetto in the order they
 * nest in, even at equal timestamps.
 */
#ifndef FTFB_NAMED_TRACKS_H
#define FTFB_NAMED_TRACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"

enum ftfb_nt_arg_type { FTFB_NT_UINT, FTFB_NT_INT, FTFB_NT_STR, FTFB_NT_BOOL };

struct ftfb_nt_arg {
	const char *name;
	uint8_t type;  /* enum ftfb_nt_arg_type */
	uint64_t u;    /* UINT, BOOL, and INT as two's complement */
	const char *s; /* STR (NUL-terminated) */
};

/* A process's own track (tid 0) or a thread's */
struct ftfb_nt_proc {
	uint32_t pid, tid;
	uint64_t uuid;
};

/* One sibling: a track of its parent and name, free from last_end on; or
 * (tid not 0) the one track of a thread and name. */
struct ftfb_nt_sibling {
	uint64_t uuid;
	uint64_t key; /* parent and name */
	uint64_t last_end;
	uint32_t pid, tid;
	uint16_t n; /* its number among the siblings of its key */
};

struct ftfb_named_tracks {
	struct ftfb_nt_sibling *siblings;
	size_t n, cap;
	struct ftfb_nt_proc *procs; /* processes whose track was declared */
	size_t nprocs, procs_cap;
	uint64_t next_uuid;
	uint32_t *idx; /* the threads' tracks: sibling index + 1, 0: empty */
	size_t idx_cap, nidx;
	uint8_t *buf;	/* packets not written yet (ftfb_nt_flush) */
	size_t pending; /* their bytes */
	size_t buf_cap;
	bool seq_started; /* the first packet cleared the sequence's state */
};

/* Writes a slice [begin_ns, end_ns] (Perfetto ns) named `name`, category
 * cat, with args, on a sibling of track `track` of process pid (pid 0: a
 * track at the top), the first whose last slice ended by begin_ns, or a
 * new one. 0, -ENOMEM or the writer's error. */
int ftfb_nt_slice(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		  int blob_name, uint32_t pid, const char *track,
		  const char *cat, const char *name, uint64_t begin_ns,
		  uint64_t end_ns, const struct ftfb_nt_arg *args,
		  size_t nargs);

/* Begins a slice at ts (Perfetto ns) named `name`, category cat, with
 * args (at most 16 are written), on the track named `track` of thread
 * tid of process pid, declared (under the thread) at its first slice; the
 * track's uuid in *uuid, for ftfb_nt_end. Strings are written up to 256
 * bytes. 0, -ENOMEM or the writer's error. */
int ftfb_nt_thread_begin(struct ftfb_named_tracks *nt, struct ftf_writer *w,
			 int blob_name, uint32_t pid, uint32_t tid,
			 const char *track, const char *cat, const char *name,
			 uint64_t ts, const struct ftfb_nt_arg *args,
			 size_t nargs, uint64_t *uuid);

/* Ends the newest slice open on track uuid at ts, adding args to its
 * arguments. */
int ftfb_nt_end(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		int blob_name, uint64_t uuid, uint64_t ts,
		const struct ftfb_nt_arg *args, size_t nargs);

/* Thread tid exited: its tracks are forgotten (a tid reused is another
 * thread, its tracks declared anew). */
void ftfb_nt_forget_thread(struct ftfb_named_tracks *nt, uint32_t tid);

/* Writes the packets kept (as one blob record): before the writer is
 * flushed or closed. 0 or the writer's error. */
int ftfb_nt_flush(struct ftfb_named_tracks *nt, struct ftf_writer *w,
		  int blob_name);

/* Process pid exited: its siblings are forgotten (a pid reused is another
 * process, its tracks declared anew). */
void ftfb_nt_forget(struct ftfb_named_tracks *nt, uint32_t pid);

void ftfb_nt_free(struct ftfb_named_tracks *nt);

#endif
