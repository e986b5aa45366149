/* SPDX-License-Identifier: MIT */
/*
 * uw_cache_file.h - one unwind table as a file of the persistent cache
 * (uw_cache.h): a header (magic, format version, the key: the binary's
 * GNU build id and file size, the table's base and segments, a CRC-32)
 * and the rows as the BPF walker reads them (bpf/unwind.h).
 *
 * A file read back is untrusted input (a disk error, a crash mid-write
 * on another filesystem, an older or newer ftf-bpf, root's own mistake):
 * every size, count and offset is checked before it is used, the rows
 * must be sorted and their types known, and a file that fails any check
 * is refused, never half used.
 */
#ifndef FTFB_UW_CACHE_FILE_H
#define FTFB_UW_CACHE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "buildid.h"
#include "uw_built.h"

/* Bumped whenever the rows a build gives for the same CFI change
 * (cfi_table.c, cfi_run.c, bpf/unwind.h's row): files of another
 * version are refused (and rebuilt). 2: clone's and prologue rows; 3:
 * RA_RDI; 4: .init and .fini rows; 5: CFA_RBX and the rbx rules. */
#define FTFB_UW_CACHE_VERSION 5

struct ftfb_uw_cache_key {
	uint8_t build_id[FTFB_BUILD_ID_MAX];
	size_t build_id_len; /* 1 .. FTFB_BUILD_ID_MAX */
	uint64_t file_size;
};

/* The file of table t under key k, in a new buffer of *len bytes (the
 * caller frees it); 0 or -ENOMEM, -EINVAL (t too large, k empty). */
int ftfb_uw_cache_encode(const struct ftfb_uw_cache_key *k,
			 const struct ftfb_uw_table_built *t, void **out,
			 size_t *len);

/* The table in buf (len bytes) if it is a whole, valid file of key k:
 * 0 and t filled (t->rows allocated: ftfb_uw_table_free), or a negative
 * errno (-EBADMSG: refused, -ENOMEM) and one line in err saying why. */
int ftfb_uw_cache_decode(const void *buf, size_t len,
			 const struct ftfb_uw_cache_key *k,
			 struct ftfb_uw_table_built *t, char *err,
			 size_t errlen);

#endif
