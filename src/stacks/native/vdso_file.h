/* SPDX-License-Identifier: MIT */
/*
 * vdso_file.h - the vDSO as a file, to name [vdso] frames from.
 *
 * A process's [vdso] has no file behind it; the kernel gives every
 * 64-bit process the same image, so the tracer's own (getauxval's
 * AT_SYSINFO_EHDR) describes the traced one's: copied into a memfd, it
 * is read as any ELF file is (elfsym.h, buildid.h), its .dynsym naming
 * __vdso_clock_gettime and the rest.
 */
#ifndef FTFB_VDSO_FILE_H
#define FTFB_VDSO_FILE_H

#include <stdint.h>

/* A memfd holding the tracer's vDSO image, if a mapping of maplen bytes
 * can be it (the image's pages: a 32-bit process's vDSO is another
 * image): an fd to read, or -errno. */
int ftfb_vdso_file_open(uint64_t maplen);

#endif
