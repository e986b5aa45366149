/* SPDX-License-Identifier: MIT */
/*
 * unwind_maps_priv.h - the state of the unwind table loader
 * (unwind_maps.h), shared by its halves: the processes' entries and the
 * thread (unwind_maps.c), the binaries' tables (unwind_build.c).
 */
#ifndef FTFB_UNWIND_MAPS_PRIV_H
#define FTFB_UNWIND_MAPS_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "idtab.h"
#include "unwind_maps.h"
#include "unwind_skips.h"
#include "unwind_table.h"
#include "uw_cache.h"

/* A binary whose table is loaded (or could not be). */
struct ftfb_mmap_watch;

struct binary {
	uint32_t table; /* index in uw_tables, or FTFB_UW_TABLE_NONE etc. */
	uint64_t base;	/* the virtual address of its rows' pc 0 */
	struct ftfb_uw_seg segs[FTFB_UW_MAX_SEGS];
	size_t nsegs;
	uint64_t go_mstart; /* no CFI: 1 + runtime.mstart's file offset */
};

/* A binary to build, and the processes waiting for it. */
struct pending {
	uint64_t dev, ino;
	char *path;	     /* as /proc/PID/maps names it */
	uint32_t tgid;	     /* the first process that mapped it */
	uint64_t start, end; /* there */
	/* the processes whose entries say "not loaded yet" for it: their
	 * entries are rewritten once it is built (only theirs: with -a,
	 * hundreds of processes wait, each for a few binaries) */
	uint32_t *waiters;
	size_t nwaiters, waiters_cap;
	bool cache_tried; /* looked for in the cache, not there */
};

struct ftfb_uw_loader {
	int rows_fd, tables_fd, procs_fd, wanted_fd, stats_fd;
	int files_fd; /* uw_files, or -1 */
	struct ftfb_uw_row *rows; /* mmap of uw_rows */
	uint32_t max_rows, next_row, max_tables, next_table;
	struct ftfb_idtab by_file; /* hash of (dev, ino) -> binary + 1 */
	struct binary *bins;
	size_t nbins, bins_cap;
	struct binary vdso;
	bool vdso_tried;
	struct ftfb_idtab rereads; /* tgid -> rereads + 1 of its image */
	struct pending *pend;	   /* binaries mapped, not built yet */
	size_t npend, pend_cap;
	struct ftfb_uw_stats st; /* the thread's own */
	/* st as of the thread's last step, for the stats readers: copied
	 * and read field by field, atomically, never under a lock the
	 * thread holds while it opens a file or builds a table (either can
	 * take minutes, or forever: a FIFO over a mapped library) */
	struct ftfb_uw_stats pub;
	int ncpus;
	pthread_t thread;
	bool running;
	/* a stop the thread did not see in time: it may still be in a
	 * build, so what it uses is never freed (the process exits) */
	bool abandoned;
	bool settled; /* the thread answered the requests and built all */
	/* the thread's id once it runs, and the nice value it is to take
	 * (ftfb_uw_set_nice: whichever of the two comes second applies it) */
	int tid;
	int nice;
	bool nice_set;
	unsigned slow_build_s; /* FTFB_FAULT_SLOW_UW_BUILD_S (tests) */
	uint32_t row_budget;   /* a build's rows (unwind_skips.h) */
	/* the first binaries over budget, each written before nskips
	 * counts it (released: the stats readers read them meanwhile) */
	struct ftfb_uw_skip skips[FTFB_UW_SKIPS_SHOWN];
	uint32_t nskips;
	/* the persistent cache (NULL: none), used by the thread only */
	struct ftfb_uw_cache *cache;
	/* the first file or directory of it refused, written before
	 * cache_msg_set says so (read by the stats readers meanwhile) */
	char cache_msg[FTFB_UW_CACHE_MSG];
	uint32_t cache_msg_set;
	uint64_t answered_ns; /* when a build last answered requests */
	/* each executable file mapped, as the kernel records it (NULL: no
	 * perf events), drained by the thread */
	struct ftfb_mmap_watch *mmaps;
	/* set by ftfb_uw_stop, read by the thread between steps and by the
	 * table builder (the flag its cancel argument takes) */
	volatile bool stop;
};

/* unwind_mmaps.c: opens u->mmaps; takes its records in (the thread) */
void ftfb_uwl_watch_mmaps(struct ftfb_uw_loader *u);
/* (unwind_maps.c) tgid mapped a file (the kernel's record): if its
 * rereads were spent, they start again, from a read of its maps now */
void ftfb_uwl_mapped_since(struct ftfb_uw_loader *u, uint32_t tgid);
void ftfb_uwl_take_mmaps(struct ftfb_uw_loader *u);

static inline uint64_t ftfb_uwl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline bool ftfb_uwl_stopping(const struct ftfb_uw_loader *u)
{
	return __atomic_load_n(&u->stop, __ATOMIC_ACQUIRE);
}

/* The binary of file (dev, ino) if its table was built, else NULL. */
struct binary *ftfb_uwl_binary_built(struct ftfb_uw_loader *u, uint64_t dev,
				     uint64_t ino);
/* Builds the table of the file p names, once (or reads it from the
 * cache); NULL when out of memory. */
struct binary *ftfb_uwl_build_binary(struct ftfb_uw_loader *u,
				     const struct pending *p);
/* Installs the table of the file p names from the cache, if the cache
 * has it (or it is built already): true then. Cheap (an open and a
 * read): every queued binary is looked for there before any is built,
 * so that a large build does not hold the tables the cache has. */
bool ftfb_uwl_load_cached(struct ftfb_uw_loader *u, const struct pending *p);
/* Queues the build of (dev, ino) and notes that tgid waits for it (0:
 * nobody): false when out of memory. */
bool ftfb_uwl_queue_build(struct ftfb_uw_loader *u, const char *path,
			  uint64_t dev, uint64_t ino, uint32_t tgid,
			  uint64_t start, uint64_t end);
/* Answers the walker's requests (uw_wanted): writes the entries of the
 * processes it asks for, queueing their binaries' builds. */
void ftfb_uwl_answer_wanted(struct ftfb_uw_loader *u);
/* Makes the thread's stats readable (ftfb_uw_get_stats). */
void ftfb_uwl_publish_stats(struct ftfb_uw_loader *u);
/* The vDSO's table (built once). */
struct binary *ftfb_uwl_vdso_binary(struct ftfb_uw_loader *u);

#endif
