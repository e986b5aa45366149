/* SPDX-License-Identifier: MIT */
/*
 * perfmap_open.h - finds and opens a process's perf map as perf does,
 * and no further: /tmp/perf-NSPID.map inside the process's root, NSPID
 * its pid in its own pid namespace (the last field of NSpid: in
 * /proc/PID/status), so a JIT in a container is found too.
 *
 * Any user can write /tmp/perf-N.map, for any N, and point it anywhere.
 * So the path is resolved inside the process's root and no symlink is
 * followed (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS); it is opened
 * O_PATH first, so a FIFO or device placed there is never opened; it
 * must be a regular file of at most FTFB_PERFMAP_MAX bytes, owned by
 * the process's real or effective user (perf's rule: what that user
 * wrote), or by root when the process runs as root or the file is
 * world-readable: a root-only file bind-mounted there in the user's own
 * mount namespace is not read.
 */
#ifndef FTFB_PERFMAP_OPEN_H
#define FTFB_PERFMAP_OPEN_H

#include <stdint.h>
#include <sys/stat.h>

/* tgid's perf map opened to read (st: its fstat), or -errno: -ENOENT
 * (none, or the process is gone), -ELOOP (a symlink on the way),
 * -EPERM (owner refused), -ENOEXEC (not a regular file), -EFBIG (over
 * FTFB_PERFMAP_MAX: st is set). */
int ftfb_perfmap_open(uint32_t tgid, struct stat *st);

#endif
