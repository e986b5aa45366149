// SPDX-License-Identifier: MIT
/*
 * vdso_file.c - the tracer's vDSO image in a memfd (see vdso_file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vdso_file.h"

/* The image's bytes: up to the end of its section headers, which come
 * last (0 if the header cannot be read). */
static size_t image_size(const void *image)
{
	Elf64_Ehdr eh;

	memcpy(&eh, image, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	return eh.e_shoff + (size_t)eh.e_shentsize * eh.e_shnum;
}

int ftfb_vdso_file_open(uint64_t maplen)
{
	const char *vdso = (const char *)getauxval(AT_SYSINFO_EHDR);
	long page = sysconf(_SC_PAGESIZE);
	size_t size, done = 0;
	int fd, err;

	if (!vdso || !(size = image_size(vdso)))
		return -ENOENT;
	/* the same pages as ours, or another image */
	if ((size + (size_t)page - 1) / (size_t)page * (size_t)page != maplen)
		return -ESTALE;
	fd = memfd_create("ftfb-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < size) {
		ssize_t w = write(fd, vdso + done, size - done);

		if (w <= 0) {
			err = w < 0 ? -errno : -EIO;
			close(fd);
			return err;
		}
		done += (size_t)w;
	}
	return fd;
}
