// SPDX-License-Identifier: MIT
/*
 * buildid.c - the GNU build id of an ELF file (see buildid.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "elfsym.h"

/* The NT_GNU_BUILD_ID note of one SHT_NOTE section, or -ENOENT. */
static int note_build_id(Elf_Scn *scn, uint8_t *id, size_t cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
			continue;
		if (nh.n_descsz > cap)
			return -ENOBUFS;
		memcpy(id, (const char *)d->d_buf + desc_off, nh.n_descsz);
		return (int)nh.n_descsz;
	}
	return -ENOENT;
}

int ftfb_elf_build_id_fd(int fd, uint8_t *id, size_t cap)
{
	int r = -ENOENT;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* ELF_C_READ: a file shrinking under us cannot SIGBUS the tracer */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		r = -ENOEXEC;
		goto out;
	}
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && r == -ENOENT;
	     scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
			r = note_build_id(scn, id, cap);
	}
out:
	if (elf)
		elf_end(elf);
	return r;
}

int ftfb_elf_build_id(const char *path, uint8_t *id, size_t cap)
{
	int fd = ftfb_open_regular(path), r;

	if (fd < 0)
		return fd;
	r = ftfb_elf_build_id_fd(fd, id, cap);
	close(fd);
	return r;
}
