// SPDX-License-Identifier: MIT
/*
 * proc_file.c - a traced process's mapped files, opened as it maps them
 * (see proc_file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc_file.h"

bool ftfb_maps_line_parse(char *line, struct ftfb_maps_line *out)
{
	unsigned maj, min;
	unsigned long long ino;
	char perms[8];
	int at = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line,
		   "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %llu %n",
		   &out->start, &out->end, perms, &out->pgoff, &maj, &min, &ino,
		   &at) < 7 ||
	    strlen(perms) != 4)
		return false;
	memcpy(out->perms, perms, 5);
	out->dev = (uint64_t)maj << 32 | min;
	out->ino = ino;
	/* (the kernel pads before the name; a name may hold spaces) */
	out->name = at ? line + at : line + strlen(line);
	return true;
}

bool ftfb_same_file(const struct stat *st, uint64_t dev, uint64_t ino)
{
	return major(st->st_dev) == dev >> 32 &&
	       minor(st->st_dev) == (uint32_t)dev && st->st_ino == ino;
}

int ftfb_reopen_regular(int path_fd, const struct stat *st, uint64_t max)
{
	char self[64];
	int fd;

	if (!S_ISREG(st->st_mode))
		return S_ISDIR(st->st_mode) ? -EISDIR : -ENOEXEC;
	if ((uint64_t)st->st_size > max)
		return -EFBIG;
	/* the O_PATH fd's own file, whatever lies at its path now */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int ftfb_proc_path_at(uint32_t tgid, const char *name, uint64_t resolve)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | resolve,
	};
	char root[64];
	int dir, fd;

	snprintf(root, sizeof(root), "/proc/%" PRIu32 "/root", tgid);
	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, dir, name, &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	close(dir);
	return fd;
}

/* O_PATH fd of the mapped file, by map_files or else by name: either
 * way the file must be the one maps shows (the mapping may have been
 * replaced since maps was read, and the caller keeps what it reads under
 * maps' device and inode, for every process mapping them). */
static int path_fd_of(uint32_t tgid, const struct ftfb_maps_line *l,
		      struct stat *st)
{
	char mf[96];
	int fd;

	snprintf(mf, sizeof(mf),
		 "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, tgid,
		 l->start, l->end);
	fd = open(mf, O_PATH | O_CLOEXEC);
	if (fd < 0)
		fd = l->name[0] == '/' ? ftfb_proc_path_at(tgid, l->name, 0)
				       : -errno;
	if (fd < 0)
		return fd;
	if (fstat(fd, st)) {
		close(fd);
		return -errno;
	}
	if (!ftfb_same_file(st, l->dev, l->ino)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int ftfb_proc_file_open(uint32_t tgid, const struct ftfb_maps_line *l)
{
	struct stat st;
	int pfd, fd;

	if (!tgid)
		tgid = (uint32_t)getpid();
	pfd = path_fd_of(tgid, l, &st);
	if (pfd < 0)
		return pfd;
	fd = ftfb_reopen_regular(pfd, &st, FTFB_PROC_FILE_MAX);
	close(pfd);
	return fd;
}

int ftfb_gone_file_open(const struct ftfb_maps_line *l)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	size_t len = strlen(l->name);
	struct stat st;
	int pfd, fd;

	if (l->name[0] != '/' ||
	    (len >= 10 && !strcmp(l->name + len - 10, " (deleted)")))
		return -ENOENT;
	pfd = (int)syscall(SYS_openat2, AT_FDCWD, l->name, &how, sizeof(how));
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		fd = -errno;
	} else if (!ftfb_same_file(&st, l->dev, l->ino)) {
		fd = -ESTALE;
	} else {
		fd = ftfb_reopen_regular(pfd, &st, FTFB_PROC_FILE_MAX);
	}
	close(pfd);
	return fd;
}
