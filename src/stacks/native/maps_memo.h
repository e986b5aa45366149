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
 * of, and each fork's child, with the event's own time (a bound); a read
 * begun before the last bound (the image before an exec, or a process
 * gone whose pid came back) is never given, but for one of a later image
 * than the one that ended (an exec's new image is in /proc/PID/maps
 * before the event's time is taken). Of the reads begun after
 * it, the memo keeps the latest of each image (its program's file at
 * its address: ASLR puts each exec's elsewhere), three images at most,
 * and gives the first: the image the translator is in, even when the
 * process exec'd again since (a make's child: sh, then gcc, a few
 * milliseconds apart), and tells that it did, so that the symbolizer
 * names the earlier image's samples with it, not with a read of
 * /proc/PID/maps that now shows the later image. A read with no
 * mapping (a zombie's) is not kept: it would hide the read before.
 *
 * Bounded: FTFB_MAPS_MEMO_PROCS processes (the least recently put or
 * used dropped: a shell forking thousands of subshells stays), at
 * most FTFB_MAPS_MEMO_MAPS mappings and FTFB_MAPS_MEMO_PATH_BYTES of
 * their paths per read, three reads per process (a process's user
 * chooses them: about 75 MiB at most in all). Thread-safe (one lock).
 */
#ifndef FTFB_MAPS_MEMO_H
#define FTFB_MAPS_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

#define FTFB_MAPS_MEMO_PROCS 1024
#define FTFB_MAPS_MEMO_MAPS 256
#define FTFB_MAPS_MEMO_PATH_BYTES (12 << 10)

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

/* The executable mappings of tgid's image as it ended at ended_ns (its
 * exec's or exit's event), as the kernel listed them
 * (bpf/uw_refresh.bpf.h: the loader read its maps before it mapped
 * them all, or never: a process of a build may be gone before the
 * loader gets to it), path NULL: those the last read of that image
 * lacks are added to it, each file named as the other reads kept name
 * it (the vDSO: dev and ino 0); files no read names, and anonymous
 * memory (dev ~0), are left out. With no read of that image kept, they
 * are kept as one, begun 1 ns before ended_ns (so the image's end drops
 * it), if the program's own file is named and the reads kept all began
 * later (of later images). */
void ftfb_maps_memo_put_ended(uint32_t tgid, const struct ftfb_memo_map *v,
			      size_t n, uint64_t ended_ns);
/* The same, from the walker's list (uw_vmas). */
void ftfb_maps_memo_put_vmas(uint32_t tgid, const struct ftfb_uw_vmas *vm,
			     uint64_t ended_ns);
/* tgid mapped m (its path named) at at_ns, as the kernel recorded it
 * (src/loader/mmap_watch.h), in the image it exec'd at image_ns (0: not
 * known): added to the read of that image (the latest begun between
 * image_ns and at_ns), when one was kept, unless it holds a mapping there (a
 * library dlopen'd and dlclose'd between two reads is in neither, nor in the
 * list of its mappings at its end); its file's path kept for those lists. */
void ftfb_maps_memo_put_mapped(uint32_t tgid, const struct ftfb_memo_map *m,
			       uint64_t image_ns, uint64_t at_ns);
/* tgid's reads are used (samples of it wait to be named): not the first
 * to go for newer processes'. */
void ftfb_maps_memo_touch(uint32_t tgid);

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
 * of the image after its last bound (see above): 0, or -ENOENT. */
int ftfb_maps_memo_get(uint32_t tgid, struct ftfb_memo_map **v, size_t *n);
/* Whether a read of a later image of tgid than the one
 * ftfb_maps_memo_get gives is kept too (tgid exec'd since). */
bool ftfb_maps_memo_later(uint32_t tgid);
/* Whether the read ftfb_maps_memo_get gives is of another program than
 * the file (dev, ino) mapped lowest at start: a read of /proc/PID/maps
 * showing that one is of a later image (tgid exec'd before the loader
 * read the new image, and after the translator's sample). */
bool ftfb_maps_memo_other_program(uint32_t tgid, uint64_t start, uint64_t dev,
				  uint64_t ino);
void ftfb_memo_maps_free(struct ftfb_memo_map *v, size_t n);

/* Empties the memo and the paths it keeps (tests; a session's end). */
void ftfb_maps_memo_clear(void);

#endif
