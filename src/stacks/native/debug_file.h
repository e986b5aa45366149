/* SPDX-License-Identifier: MIT */
/*
 * debug_file.h - a mapped file's separate debug file, where a stripped
 * binary's full symbol table went (Debian's -dbg packages, as perf and
 * gdb find them).
 *
 * Looked up in the TRACER's mount namespace (the host's /usr/lib/debug,
 * as perf does): /usr/lib/debug/.build-id/XX/YYYY.debug from the mapped
 * file's build id, then the file's .gnu_debuglink name in
 * /usr/lib/debug/DIR/, /usr/lib/debug/, DIR/.debug/ and DIR/ (DIR: the
 * mapped file's directory). A candidate is kept only if it is a regular
 * file (opened O_NONBLOCK: a FIFO never blocks), owned by root and
 * readable by all (what /usr/lib/debug holds; a traced user's own file,
 * or one it could not read, is never read for it), of at most
 * FTFB_DEBUG_FILE_MAX bytes, with the mapped file's build id when that
 * has one, and the debuglink's CRC32 when found by its name.
 */
#ifndef FTFB_DEBUG_FILE_H
#define FTFB_DEBUG_FILE_H

#include <stdint.h>

/* Larger debug files are not read (libc6-dbg's libc: 4 MiB). */
#define FTFB_DEBUG_FILE_MAX (1ULL << 30)

/* The root of the debug file tree: /usr/lib/debug, or for the tests only
 * the directory FTFB_TEST_DEBUG_ROOT names (a tree they can fill). */
const char *ftfb_debug_root(void);

/* The debug file of the mapped file fd (named path in the process, its
 * build id id of idlen bytes, idlen <= 0: none), opened to read: an fd,
 * or -errno (-ENOENT none found, -EPERM only ones refused). */
int ftfb_debug_file_open(int fd, const char *path, const uint8_t *id,
			 int idlen);

#endif
