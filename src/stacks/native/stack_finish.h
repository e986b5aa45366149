/* SPDX-License-Identifier: MIT */
/*
 * stack_finish.h - on-CPU samples whose user stack walk stopped "not
 * loaded yet", sent with a copy of the user stack (bpf/stackcopy.h),
 * held until their process's entry has the table of the binary the walk
 * stopped in, then finished over the copy (copy_walk.h) and handed on as
 * ordinary FTFB_EV_STACK_ON events.
 *
 * Bounded: a copy waits at most deadline_ns, and copies held take at
 * most max_bytes; one that cannot be finished (its table did not come
 * in time; its image ended, by exec or exit, with no list of its
 * mappings; no room) goes on as it was, its stop frame saying "not
 * loaded yet". A copy of an image that ended while a table it needs was
 * still being built waits on with that image's entry, whose tables are
 * found by the files its mappings list once they are built. A copy is the traced process's
 * data: its sizes are checked against the record's before any is used.
 */
#ifndef FTFB_STACK_FINISH_H
#define FTFB_STACK_FINISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackcopy.h"
#include "unwind.h"

/* Where the tables are read (the BPF walker's maps, or a test's). */
struct ftfb_sf_source {
	/* the process's entry: 0, or -ENOENT */
	int (*proc)(void *ctx, uint32_t tgid, struct ftfb_uw_proc *out);
	/* the entry of process tgid's image `image` (FTFB_IMAGE_ID) as it
	 * ended, by exec or exit, taken out: 0, or -ENOENT (NULL: none
	 * kept); and in *vmas its mappings then, when the walker listed
	 * them (bpf/uw_refresh.bpf.h), else none (n 0) */
	int (*exited)(void *ctx, uint32_t tgid, uint32_t image,
		      struct ftfb_uw_proc *out, struct ftfb_uw_vmas *vmas);
	/* the table of file (dev, ino), once built (uw_files): 0, or
	 * -ENOENT (NULL: none known) */
	int (*file)(void *ctx, uint64_t dev, uint64_t ino,
		    struct ftfb_uw_file *out);
	/* the mappings tgid made in its image before at_ns, as the kernel
	 * recorded them (mapped_log.h), the latest first, into out (at most
	 * max): how many (NULL: none) */
	size_t (*mapped)(void *ctx, uint32_t tgid, uint64_t at_ns,
			 struct ftfb_uw_vma *out, size_t max);
	/* the time up to which that log is whole (NULL: always): a copy
	 * taken later waits, until its deadline */
	uint64_t (*mapped_until)(void *ctx);
	/* uw_tables[id]: 0, or -1 */
	int (*table)(void *ctx, uint32_t id, struct ftfb_uw_table *out);
	const struct ftfb_uw_row *rows;
	uint32_t nrows;
	void *ctx;
};

/* Takes an event on (the sink's event operation): 0 or -errno. */
typedef int (*ftfb_sf_emit_fn)(void *ctx, const void *data, size_t size);

/* (a table may wait behind builds of large libraries for seconds: 2,364
 * copies in a 20 s -a -g run beside a build, 1,739 not finished in 3 s) */
#define FTFB_SF_DEADLINE_NS 10000000000ull
#define FTFB_SF_MAX_BYTES (32u << 20)

struct ftfb_sf_stats {
	uint64_t copies;   /* copy records received */
	uint64_t finished; /* walked on to the outermost frame */
	uint64_t resumed;  /* walked on, ended for another reason */
	uint64_t as_is;	   /* no table in time, or exec/exit first */
	uint64_t gone;	   /* of those: exec/exit first */
	uint64_t no_room;  /* as is: max_bytes held already */
	uint64_t bad;	   /* not a copy record of ours: skipped */
};

struct ftfb_sf;

int ftfb_sf_new(struct ftfb_sf **out, const struct ftfb_sf_source *src,
		uint64_t deadline_ns, uint64_t max_bytes, ftfb_sf_emit_fn emit,
		void *emit_ctx);
/* An event from the ring: 1 when it was a copy (kept, or handed on
 * already), 0 when the caller hands it on itself (an exec or exit of a
 * process with copies held hands those on first), < 0 an emit's error. */
int ftfb_sf_event(struct ftfb_sf *f, const void *data, size_t size,
		  uint64_t now_ns);
/* Finishes the copies whose tables are there, hands on those past their
 * deadline: once per loop turn. 0 or an emit's error. */
int ftfb_sf_tick(struct ftfb_sf *f, uint64_t now_ns);
/* At the stop: a last try, then everything held goes on. */
int ftfb_sf_flush(struct ftfb_sf *f);
void ftfb_sf_get_stats(const struct ftfb_sf *f, struct ftfb_sf_stats *st);
void ftfb_sf_free(struct ftfb_sf *f);

/* The sample of copy record data as an FTFB_EV_STACK_ON into out (room
 * for FTFB_SF_OUT_MAX bytes), its user stack finished by the walk over
 * the copy when p (the process's entry) is not NULL; returns its size,
 * or 0 when data is not a well-formed copy record. *why: how the user
 * stack ends (FTFB_UW_*). For the fuzz target and the tests. */
#define FTFB_SF_OUT_MAX                                                        \
	(sizeof(struct ftfb_stack) +                                           \
	 (2 * FTFB_STACK_MAX_DEPTH + FTFB_PY_MAX_DEPTH) * sizeof(uint64_t))
size_t ftfb_sf_build(const void *data, size_t size,
		     const struct ftfb_sf_source *src,
		     const struct ftfb_uw_proc *p, void *out, uint32_t *why);

#endif
