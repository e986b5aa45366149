/* SPDX-License-Identifier: MIT */
/*
 * uw_cache.h - the persistent cache of unwind tables: a binary's table,
 * built once, kept across runs in one file per binary (uw_cache_file.h),
 * named by its GNU build id and file size, so the next run's first
 * samples of a compiler, a shell or libc find it in a few milliseconds
 * instead of the build's hundreds.
 *
 * The directory is FTF_BPF_UNWIND_CACHE, or /var/cache/ftf-bpf when it is
 * not set ("off" or empty: no cache). It is used only if it is a
 * directory owned by the effective user (root) and not writable by group
 * or others (created so, mode 0700, when missing), and a file only if it
 * is a regular file of that owner, not writable by others either: a
 * table read as root must not come from another user. Files are written
 * whole to a temporary name and renamed, so a reader never sees half a
 * file; their total size is bounded (FTFB_UW_CACHE_MAX_BYTES), the
 * least recently used removed first.
 */
#ifndef FTFB_UW_CACHE_H
#define FTFB_UW_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uw_built.h"
#include "uw_cache_file.h"

#define FTFB_UW_CACHE_DEFAULT_DIR "/var/cache/ftf-bpf"
#define FTFB_UW_CACHE_ENV "FTF_BPF_UNWIND_CACHE"
#define FTFB_UW_CACHE_MAX_BYTES (256ull << 20)

struct ftfb_uw_cache;

/* The cache in dir (NULL: the environment's or the default), holding at
 * most max_bytes (0: the default). NULL when there is none: turned off
 * (err empty) or refused (err: one line saying why). */
struct ftfb_uw_cache *ftfb_uw_cache_open(const char *dir, uint64_t max_bytes,
					 char *err, size_t errlen);
void ftfb_uw_cache_close(struct ftfb_uw_cache *c);
/* Its directory, as opened. */
const char *ftfb_uw_cache_dir(const struct ftfb_uw_cache *c);

/* The table of key k: 0 (t filled, as ftfb_uw_cache_decode), -ENOENT if
 * the cache has none, or another negative errno and one line in err when
 * the file there is refused (it is then removed, to be written again). */
int ftfb_uw_cache_load(struct ftfb_uw_cache *c,
		       const struct ftfb_uw_cache_key *k,
		       struct ftfb_uw_table_built *t, char *err, size_t errlen);
/* Keeps t as the table of k, then removes the least recently used files
 * past the bound; 0 or a negative errno (the cache is only a cache: a
 * failure changes nothing else). */
int ftfb_uw_cache_store(struct ftfb_uw_cache *c,
			const struct ftfb_uw_cache_key *k,
			const struct ftfb_uw_table_built *t);
/* The bytes its files take (their sizes, summed). */
uint64_t ftfb_uw_cache_bytes(struct ftfb_uw_cache *c);

#endif
