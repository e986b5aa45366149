/* SPDX-License-Identifier: MIT */
/*
 * gopclntab.h - function names and start addresses from a Go binary's
 * .gopclntab section (Go 1.18 and later), for binaries stripped of
 * .symtab: Go's runtime keeps this table for its own tracebacks, so
 * `go build -ldflags=-s` and Debian's stripped Go programs still have it.
 *
 * The layout, from Go's runtime/symtab.go (pcHeader, functab, _func):
 *   header:  u32 magic (0xfffffff0 Go 1.18-1.19, 0xfffffff1 Go 1.20+),
 *            u8 0, u8 0, u8 minLC, u8 ptrSize, then ptrSize-wide words
 *            nfunc, nfiles, textStart, funcnameOffset, cuOffset,
 *            filetabOffset, pctabOffset, pclnOffset (offsets from the
 *            header's start)
 *   functab: at pclnOffset, nfunc + 1 pairs (u32 entryoff, u32 funcoff):
 *            a function starts at textStart + entryoff; the last pair's
 *            entryoff is the end of the text
 *   _func:   at pclnOffset + funcoff: u32 entryOff, i32 nameOff (into
 *            the NUL-terminated names at funcnameOffset), ...
 * Little-endian only (what x86-64 and arm64 binaries are).
 *
 * The section is untrusted: whoever wrote the binary chose every byte.
 * Each offset and count is checked against the section's size, a name
 * must end inside it, and at most FTFB_GOPCLNTAB_MAX_FUNCS functions are
 * read.
 */
#ifndef FTFB_GOPCLNTAB_H
#define FTFB_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

#define FTFB_GOPCLNTAB_MAX_FUNCS (1u << 20)

/* Called for each function: @entry its start (a virtual address, as the
 * section says it), @size up to the next function's start (0 if not
 * known), @name NUL-terminated inside the section. Nonzero stops the
 * walk and is returned. */
typedef int (*ftfb_gopclntab_fn)(void *arg, uint64_t entry, uint64_t size,
				 const char *name);

/* Walks the table in @p[0, @n). @text_addr stands for textStart when the
 * header's is 0 (a position-independent binary's, relocated at load):
 * the .text section's address. Returns the number of functions given to
 * @fn, -ENOENT if @p is not a table this reads (no magic, another Go
 * version), -EINVAL if its header or function table does not fit in @n,
 * or @fn's nonzero value. Functions whose entries are inconsistent
 * (entry not matching its _func, name outside the section) are left out. */
int ftfb_gopclntab_walk(const uint8_t *p, size_t n, uint64_t text_addr,
			ftfb_gopclntab_fn fn, void *arg);

#endif /* FTFB_GOPCLNTAB_H */
