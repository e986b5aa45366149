/* SPDX-License-Identifier: MIT */
/*
 * buildid.h - the GNU build id of an ELF file (.note.gnu.build-id), what
 * symbol servers and Perfetto's offline symbolizer look binaries up by.
 */
#ifndef FTFB_BUILDID_H
#define FTFB_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define FTFB_BUILD_ID_MAX 64

/* Writes the build id of the ELF file at path into id (up to cap bytes)
 * and returns its length; -ENOENT if it has none, -errno or -ENOEXEC if
 * the file cannot be read as ELF. */
int ftfb_elf_build_id(const char *path, uint8_t *id, size_t cap);
/* The same from fd, a regular file opened to read (not closed). */
int ftfb_elf_build_id_fd(int fd, uint8_t *id, size_t cap);

#endif
