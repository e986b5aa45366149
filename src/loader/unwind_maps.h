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
 * array the loader fills through an mmap; when it is full, binaries
 * loaded later get no table (their frames stop with "no CFI") and the
 * summary says so.
 */
#ifndef FTFB_UNWIND_MAPS_H
#define FTFB_UNWIND_MAPS_H

#include <stdint.h>
#include <stdio.h>

#include "unwind.h"

struct bpf_map;

/* rows in the shared array (8 bytes each) */
#define FTFB_UW_ROWS_DEFAULT (2u << 20)

struct ftfb_uw_bpf_maps {
	struct bpf_map *rows, *tables, *procs, *wanted, *stats;
};

struct ftfb_uw_loader;

/* After the BPF object is loaded; the rows map sized by
 * ftfb_uw_prepare before. 0 or -errno (err: one line). */
int ftfb_uw_prepare(struct bpf_map *rows, uint32_t max_rows);
int ftfb_uw_loader_new(struct ftfb_uw_loader **out,
		       const struct ftfb_uw_bpf_maps *m, char *err,
		       size_t errlen);
void ftfb_uw_loader_free(struct ftfb_uw_loader *u);

/* Queues the build of libc's table (this process's: the system's),
 * which nearly every process maps, before any process asks. */
int ftfb_uw_prebuild_libc(struct ftfb_uw_loader *u);
/* Loads (or reloads) the entry of process tgid; 0 or -errno (the
 * process is gone: -ENOENT). */
int ftfb_uw_load_process(struct ftfb_uw_loader *u, uint32_t tgid);
/* Builds the tables queued so far (libc's, the processes loaded) here
 * and now, for up to budget_ns (the thread builds the rest): before the
 * first sample, the traced processes' first stacks are whole. Call it
 * before ftfb_uw_start. */
void ftfb_uw_build_queued(struct ftfb_uw_loader *u, uint64_t budget_ns);
/* Starts / stops (and joins) the thread that calls ftfb_uw_service;
 * 0 or -errno. ftfb_uw_loader_free stops it too. Until it is stopped,
 * only ftfb_uw_get_stats may be called. */
int ftfb_uw_start(struct ftfb_uw_loader *u);
void ftfb_uw_stop(struct ftfb_uw_loader *u);
/* Answers the walker's requests (uw_wanted). Bounded: each process is
 * reread at most a few times for addresses outside its mappings. */
void ftfb_uw_service(struct ftfb_uw_loader *u);

struct ftfb_uw_stats {
	uint64_t ended[FTFB_UW_NREASONS];  /* user stacks, by how they ended */
	uint64_t stacks;		   /* user stacks walked */
	uint64_t binaries, rows, max_rows; /* tables built, rows used */
	uint64_t no_cfi_files;		   /* mapped files without usable CFI */
	uint64_t table_space_full;	   /* binaries left without: no room */
	uint64_t processes;		   /* process entries loaded */
	uint64_t build_ns;		   /* time spent building tables */
};
void ftfb_uw_get_stats(struct ftfb_uw_loader *u, struct ftfb_uw_stats *st);
/* The summary's lines about them (how the user stacks ended, the tables
 * loaded), indented as the summary is. */
void ftfb_uw_print_summary(const struct ftfb_uw_stats *st, FILE *f);

#endif
