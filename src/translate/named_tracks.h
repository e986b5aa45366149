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
 * Each slice is written at its end, as a begin and an end packet in one
 * blob; Perfetto sorts them by time.
 */
#ifndef FTFB_NAMED_TRACKS_H
#define FTFB_NAMED_TRACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"

enum ftfb_nt_arg_type { FTFB_NT_UINT, FTFB_NT_INT, FTFB_NT_STR };

struct ftfb_nt_arg {
	const char *name;
	uint8_t type;  /* enum ftfb_nt_arg_type */
	uint64_t u;    /* UINT, and INT as two's complement */
	const char *s; /* STR (NUL-terminated) */
};

struct ftfb_nt_proc {
	uint32_t pid;
	uint64_t uuid;
};

/* One sibling: a track of its parent and name, free from last_end on. */
struct ftfb_nt_sibling {
	uint64_t uuid;
	uint64_t key; /* parent and name */
	uint64_t last_end;
	uint32_t pid;
	uint16_t n; /* its number among the siblings of its key */
};

struct ftfb_named_tracks {
	struct ftfb_nt_sibling *siblings;
	size_t n, cap;
	struct ftfb_nt_proc *procs; /* processes whose track was declared */
	size_t nprocs, procs_cap;
	uint64_t next_uuid;
	uint8_t *buf; /* one blob's packets */
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

/* Process pid exited: its siblings are forgotten (a pid reused is another
 * process, its tracks declared anew). */
void ftfb_nt_forget(struct ftfb_named_tracks *nt, uint32_t pid);

void ftfb_nt_free(struct ftfb_named_tracks *nt);

#endif
