// SPDX-License-Identifier: MIT
/*
 * debug_file.c - a mapped file's separate debug file (see debug_file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "debug_file.h"
#include "elfsym.h"
#include "files_cancel.h"

#define DEBUGLINK_MAX 256 /* longest debuglink name looked up */

const char *ftfb_debug_root(void)
{
	const char *r = getenv("FTFB_TEST_DEBUG_ROOT");

	return r && *r ? r : "/usr/lib/debug";
}

/* CRC-32 (ISO-HDLC, zlib's), what .gnu_debuglink records. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

/* The CRC-32 of all of fd (at most FTFB_DEBUG_FILE_MAX bytes: checked by
 * the caller), or false if it cannot be read or the stop's bound on
 * reading files passed meanwhile (files_cancel.h). */
static bool file_crc(int fd, uint32_t *crc)
{
	unsigned char buf[1 << 14];
	off_t off = 0;
	ssize_t r = -1;

	*crc = 0;
	while (!ftfb_files_cancelled() &&
	       (r = pread(fd, buf, sizeof(buf), off)) > 0) {
		*crc = crc32_update(*crc, buf, (size_t)r);
		off += r;
	}
	return !ftfb_files_cancelled() && r == 0;
}

/* Whether candidate fd may be read as the debug file: root's, readable
 * by all, not too large, with the build id wanted (when there is one). */
static bool acceptable(int fd, const uint8_t *id, int idlen)
{
	uint8_t got[FTFB_BUILD_ID_MAX];
	struct stat st;
	int n;

	if (fstat(fd, &st) || st.st_uid != 0 || !(st.st_mode & S_IROTH) ||
	    (uint64_t)st.st_size > FTFB_DEBUG_FILE_MAX)
		return false;
	if (idlen <= 0)
		return true;
	n = ftfb_elf_build_id_fd(fd, got, sizeof(got));
	return n == idlen && !memcmp(got, id, (size_t)n);
}

/* Opens path if acceptable (and, crc non-NULL, if its CRC-32 is *crc):
 * an fd, -EPERM (found, refused) or -ENOENT. */
static int try_open(const char *path, const uint8_t *id, int idlen,
		    const uint32_t *crc)
{
	int fd = ftfb_open_regular(path);
	uint32_t got;

	if (fd < 0)
		return -ENOENT;
	if (acceptable(fd, id, idlen) &&
	    (!crc || (file_crc(fd, &got) && got == *crc)))
		return fd;
	close(fd);
	return -EPERM;
}

/* The .gnu_debuglink of fd: its name (no '/', at most DEBUGLINK_MAX
 * bytes, into name) and CRC. */
static bool debuglink(int fd, char *name, uint32_t *crc)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	bool ok = false;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !ok;
	     scn = elf_nextscn(elf, scn)) {
		const char *sn;
		Elf_Data *d;
		GElf_Shdr sh;
		size_t len;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sn = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sn, ".gnu_debuglink") ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		len = strnlen(d->d_buf, d->d_size);
		/* the name, its NUL, padding to 4, then the CRC (the name
		 * may lack its NUL: nothing is read past d_size) */
		if (!len || len > DEBUGLINK_MAX || len >= d->d_size ||
		    ((len + 4) & ~(size_t)3) + 4 > d->d_size ||
		    memchr(d->d_buf, '/', len) || !strcmp(d->d_buf, ".."))
			break;
		memcpy(name, d->d_buf, len + 1);
		memcpy(crc, (const char *)d->d_buf + ((len + 4) & ~(size_t)3),
		       4);
		ok = true;
	}
out:
	if (elf)
		elf_end(elf);
	return ok;
}

/* The debuglink's places, in order; -EPERM if one was refused. */
static int by_debuglink(int fd, const char *path, const uint8_t *id, int idlen)
{
	char name[DEBUGLINK_MAX + 1], dir[4096], cand[8192];
	const char *root = ftfb_debug_root(), *slash = strrchr(path, '/');
	int r, res = -ENOENT;
	uint32_t crc;

	if (!slash || slash - path >= (long)sizeof(dir) ||
	    !debuglink(fd, name, &crc))
		return -ENOENT;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = 0;
	for (int i = 0; i < 4; i++) {
		if (i == 0)
			snprintf(cand, sizeof(cand), "%s%s/%s", root, dir,
				 name);
		else if (i == 1)
			snprintf(cand, sizeof(cand), "%s/%s", root, name);
		else
			snprintf(cand, sizeof(cand), "%s%s/%s", dir,
				 i == 2 ? "/.debug" : "", name);
		r = try_open(cand, id, idlen, &crc);
		if (r >= 0)
			return r;
		if (r == -EPERM)
			res = r;
	}
	return res;
}

int ftfb_debug_file_open(int fd, const char *path, const uint8_t *id, int idlen)
{
	char cand[4096], *p;
	int r, res = -ENOENT;

	if (idlen > 1) {
		int n = snprintf(cand, sizeof(cand), "%s/.build-id/%02x/",
				 ftfb_debug_root(), id[0]);

		if (n < 0 || (size_t)n + 2 * (size_t)idlen + 8 > sizeof(cand))
			return -ENOENT;
		p = cand + n;
		for (int i = 1; i < idlen; i++)
			p += sprintf(p, "%02x", id[i]);
		strcpy(p, ".debug");
		if ((r = try_open(cand, id, idlen, NULL)) >= 0)
			return r;
		res = r;
	}
	r = by_debuglink(fd, path, id, idlen);
	return r == -ENOENT ? res : r;
}
