/* SPDX-License-Identifier: MIT */
/*
 * unwind_maps.h - loads the unwind tables of the sampled processes into
 * the BPF stack walker's maps (bpf/unwind.bpf.h).
 *
 * A process's entry lists its executable mappings (/proc/PID/maps) with
 * the table of each mapped file; a file's table is built once (by device
 * and inode: libc's serves every process) from its CFI (unwind_table.h),
 * the file opened through /proc/PID/root (containers) or, once deleted,
 * /proc/PID/map_files. The vDSO's table is built from this process's
 * own vDSO (the kernel maps the same image in every process); anonymous
 * executable memory (JIT code) is walked through frame pointers.
 *
 * Processes are loaded when the BPF walker asks (map `uw_wanted`: a
 * process it has no entry for, or an address outside its mappings):
 * ftfb_uw_service answers, from a thread of its own (ftfb_uw_start),
 * every few ms. Rows live in one shared
 * array the loader fills through an mmap; a binary's build is given the
 * room left as its budget of rows: one over it (or over the builder's
 * own budget) gets no table, its frames stop with "CFI over budget", and
 * the summary names it.
 */
#ifndef FTFB_UNWIND_MAPS_H
#define FTFB_UNWIND_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "unwind.h"
#include "unwind_skips.h"

struct bpf_map;

#define FTFB_UW_CACHE_MSG 320

/* rows in the shared array (8 bytes each): 16 MiB for the processes
 * of a command or -p; 64 MiB system-wide (-a), where a busy machine
 * maps some 200 binaries (a browser's alone: a million rows) and 2M
 * rows left a compiler's table out; the array has 1/16 more (and 64
 * KiB) for the rows' page indexes (bpf/uw_index.h) */
#define FTFB_UW_ROWS_DEFAULT (2u << 20)
#define FTFB_UW_ROWS_SYSTEM (8u << 20)

struct ftfb_uw_bpf_maps {
	struct bpf_map *rows, *tables, *procs, *wanted, *stats;
	struct bpf_map *files; /* (NULL: none) */
};

struct ftfb_uw_loader;

/* The persistent cache of tables (uw_cache.h) the loader uses; dir NULL:
 * FTF_BPF_UNWIND_CACHE's or the default. Before ftfb_uw_start. */
void ftfb_uw_use_cache(struct ftfb_uw_loader *u, const char *dir);

/* After the BPF object is loaded; the rows map sized by
 * ftfb_uw_prepare before (max_rows rows, and room for their page
 * indexes: bpf/uw_index.h). 0 or -errno (err: one line). */
int ftfb_uw_prepare(struct bpf_map *rows, const struct bpf_map *tables,
		    uint32_t max_rows);
int ftfb_uw_loader_new(struct ftfb_uw_loader **out,
		       const struct ftfb_uw_bpf_maps *m, char *err,
		       size_t errlen);
void ftfb_uw_loader_free(struct ftfb_uw_loader *u);

/* Queues the build of libc's table (this process's: the system's),
 * which nearly every process maps, before any process asks. */
int ftfb_uw_prebuild_libc(struct ftfb_uw_loader *u);
/* Asks the thread to load the entry of process tgid (as the walker
 * asks: the run loop's thread never reads a traced process's files,
 * whose opens and builds can take minutes); 0 or -errno. */
int ftfb_uw_want_process(struct ftfb_uw_loader *u, uint32_t tgid);
/* Starts the thread that calls ftfb_uw_service; 0 or -errno. From then
 * until it is stopped, only ftfb_uw_want_process, ftfb_uw_wait_settled
 * and ftfb_uw_get_stats may be called. */
int ftfb_uw_start(struct ftfb_uw_loader *u);
/* Waits, for up to budget_ns or until a signal comes, for the thread to
 * have answered the requests and built the tables queued (libc's, the
 * processes asked for): before the first sample, the traced processes'
 * first stacks are whole. True if it has. */
bool ftfb_uw_wait_settled(struct ftfb_uw_loader *u, uint64_t budget_ns);
/* The thread's nice value made nice from now on (or from its start),
 * as it keeps on building after the start has stopped waiting for it. */
void ftfb_uw_set_nice(struct ftfb_uw_loader *u, int nice);
/* Stops the thread, bounded: it is told to stop (the flag its builds
 * look at) and waited for 1 s at most; a thread still busy (an open or a
 * build deaf to the flag) is left to end with the process, and then
 * nothing it uses is freed (ftfb_uw_loader_free keeps it all). The
 * run loop's thread never waits on the unwind thread otherwise.
 * ftfb_uw_loader_free stops it too. */
void ftfb_uw_stop(struct ftfb_uw_loader *u);
/* Answers the walker's requests (uw_wanted). Bounded: each process is
 * reread at most a few times for addresses outside its mappings. */
void ftfb_uw_service(struct ftfb_uw_loader *u);

struct ftfb_uw_stats {
	uint64_t ended[FTFB_UW_NREASONS]; /* user stacks, by how they ended */
	uint64_t stacks;		  /* user stacks walked */
	/* kernel stacks of threads blocking: found again from a chain
	 * seen before, unwound by the kernel (bpf/kstack_cache.bpf.h) */
	uint64_t kstacks_found, kstacks_unwound;
	/* and their user stacks (bpf/ustack_cache.bpf.h) */
	uint64_t ustacks_found, ustacks_walked;
	/* user stacks ended with their thread's last walk's frames, and
	 * last walks in the same state whose words had changed */
	uint64_t tails_found, tails_refused;
	uint64_t binaries, rows, max_rows; /* tables built, rows used */
	uint64_t no_cfi_files;		   /* mapped files without usable CFI */
	uint64_t table_space_full;	   /* binaries left without: no room */
	uint64_t processes;		   /* process entries loaded */
	uint64_t build_ns;		   /* time spent building tables */
	uint64_t left_busy;	/* 1: the stop did not wait for the thread */
	uint64_t over_budget;	/* binaries whose table was refused */
	uint64_t cache_read;	/* tables read from the persistent cache */
	uint64_t cache_written; /* tables written to it */
	uint64_t cache_refused; /* its files refused (and rebuilt) */
	uint64_t mmaps_seen;	/* the kernel's records of files mapped */
	uint64_t mmaps_lost;	/* and those it dropped (a ring full) */
	/* the first of them (not copied with the counters above: each is
	 * written once, before it is counted) */
	struct ftfb_uw_skip skipped[FTFB_UW_SKIPS_SHOWN];
	/* why the first cache file was refused, "" */
	char cache_msg[FTFB_UW_CACHE_MSG];
};
void ftfb_uw_get_stats(struct ftfb_uw_loader *u, struct ftfb_uw_stats *st);
/* The summary's lines about them (how the user stacks ended, the tables
 * loaded), indented as the summary is. */
void ftfb_uw_print_summary(const struct ftfb_uw_stats *st, FILE *f);

#endif
