/* SPDX-License-Identifier: MIT */
/*
 * maps_memo.h - the executable mappings last read of each process, kept
 * for when it is gone.
 *
 * The symbolizer reads a process's /proc/PID/maps when it translates the
 * process's first sample, and by then a short-lived process (a cc1, an
 * as, a subshell) has exited: its frames, walked whole in the kernel,
 * would keep no names. The unwind table loader reads the same maps while
 * the process lives (it gives the BPF walker its table), so it puts here
 * what the symbolizer would have kept, and the symbolizer takes it when
 * /proc/PID/maps cannot be opened.
 *
 * Which image: the loader reads in wall-clock time, ahead of the
 * translator. Each read is kept with the CLOCK_MONOTONIC time it began
 * (BPF's clock), and the symbolizer marks each exec and exit it is told
 * of with the event's own time (a bound); the memo gives only a read
 * begun after the last bound it knows: the image the translator is in,
 * or a later one if the process exec'd again and the translator has
 * not reached that exec yet (a fork's child read after its exec, its
 * samples from before still to be named). That is never older than
 * what a read of /proc/PID/maps at that moment would give if the
 * process were still there, which is what the symbolizer does for a
 * live process; a read begun before the last bound (the image before
 * an exec, or a process gone whose pid came back) is never given.
 *
 * Bounded: FTFB_MAPS_MEMO_PROCS processes (the least recently put or
 * used dropped: a shell forking thousands of subshells stays), at
 * most FTFB_MAPS_MEMO_MAPS mappings and FTFB_MAPS_MEMO_PATH_BYTES of
 * their paths each (a process's user chooses them: about 50 MiB at most
 * in all). Thread-safe (one lock).
 */
#ifndef FTFB_MAPS_MEMO_H
#define FTFB_MAPS_MEMO_H

#include <stddef.h>
#include <stdint.h>

#define FTFB_MAPS_MEMO_PROCS 1024
#define FTFB_MAPS_MEMO_MAPS 256
#define FTFB_MAPS_MEMO_PATH_BYTES (32 << 10)

struct ftfb_memo_map {
	uint64_t start, end, pgoff, dev, ino;
	char *path;
};

/* A read of tgid's maps, begun now (before opening them), in the
 * making (the loader adds lines as it reads them). */
struct ftfb_memo_read {
	uint32_t tgid;
	uint64_t from_ns;
	struct ftfb_memo_map *v;
	size_t n, cap;
	size_t path_bytes;
};

void ftfb_memo_read_begin(struct ftfb_memo_read *r, uint32_t tgid);
/* One line of the maps (as ftfb_maps_line_parse takes it; its newline
 * is cut): kept if it is an executable mapping of a file, [vdso] or
 * [uprobes]. */
void ftfb_memo_read_line(struct ftfb_memo_read *r, char *line);
/* Puts the read in the memo (replacing tgid's last one) and frees r. */
void ftfb_memo_read_end(struct ftfb_memo_read *r);

/* tgid exec'd or exited at at_ns (CLOCK_MONOTONIC, the event's). */
void ftfb_maps_memo_bound(uint32_t tgid, uint64_t at_ns);

/* child forked from parent at at_ns: it maps what parent did then (a
 * subshell, a pre-forked worker), and the walker walks it with its
 * parent's table from its first sample, so the loader may never read
 * it. Parent's read, if it is of the image the translator is in, is
 * kept as child's, begun at the fork (a read of child's own replaces
 * it). */
void ftfb_maps_memo_fork(uint32_t parent, uint32_t child, uint64_t at_ns);

/* A copy of tgid's mappings (*v, *n; free with ftfb_memo_maps_free),
 * from a read begun after its last bound (see above): 0, or -ENOENT. */
int ftfb_maps_memo_get(uint32_t tgid, struct ftfb_memo_map **v, size_t *n);
void ftfb_memo_maps_free(struct ftfb_memo_map *v, size_t n);

/* Empties the memo (tests; a session's end). */
void ftfb_maps_memo_clear(void);

#endif
