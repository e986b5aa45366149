// SPDX-License-Identifier: MIT
/*
 * perfmap_open.c - a process's perf map, opened as perf would and no
 * further (see perfmap_open.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perfmap.h"
#include "perfmap_open.h"
#include "proc_file.h"

/* From /proc/TGID/status: the pid in its own namespace (NSpid's last
 * field; the pid itself on a kernel without NSpid) and the real and
 * effective uids. -errno if the process is gone. */
static int status_of(uint32_t tgid, uint32_t *nspid, uint32_t *ruid,
		     uint32_t *euid)
{
	char path[64], line[512];
	bool uids = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", tgid);
	if (!(f = fopen(path, "re")))
		return -errno;
	*nspid = tgid;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			uids = sscanf(line + 4, "%" SCNu32 " %" SCNu32, ruid,
				      euid) == 2;
		if (!strncmp(line, "NSpid:", 6)) {
			char *last = strrchr(line, '\t');

			if (!last || sscanf(last, "%" SCNu32, nspid) != 1)
				*nspid = tgid;
		}
	}
	fclose(f);
	return uids ? 0 : -ENOENT;
}

/* O_PATH fd of name inside tgid's root, no symlink followed. */
static int path_no_links(uint32_t tgid, const char *name)
{
	int fd = ftfb_proc_path_at(tgid, name, RESOLVE_NO_SYMLINKS);

	/* (-EPERM is the owner's refusal, see owner_ok) */
	return fd == -EPERM ? -EACCES : fd;
}

static bool owner_ok(const struct stat *st, uint32_t ruid, uint32_t euid)
{
	if (st->st_uid == ruid || st->st_uid == euid)
		return true;
	/* root's file: only what the process's user could read anyway */
	return st->st_uid == 0 &&
	       (ruid == 0 || euid == 0 || (st->st_mode & S_IROTH));
}

int ftfb_perfmap_open(uint32_t tgid, struct stat *st)
{
	uint32_t nspid, ruid, euid;
	char name[64];
	int pfd, fd;

	fd = status_of(tgid, &nspid, &ruid, &euid);
	if (fd)
		return fd;
	snprintf(name, sizeof(name), "/tmp/perf-%" PRIu32 ".map", nspid);
	pfd = path_no_links(tgid, name);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, st))
		fd = -errno;
	else if (!owner_ok(st, ruid, euid))
		fd = -EPERM;
	else
		fd = ftfb_reopen_regular(pfd, st, FTFB_PERFMAP_MAX);
	close(pfd);
	return fd;
}
