// SPDX-License-Identifier: MIT
/*
 * procfs.c - scan /proc for the processes and threads alive now.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "safe_name.h"

/* Reads up to cap-1 bytes of a small /proc file; returns the length read
 * (NUL-terminated) or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -errno;
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

static int read_comm(const char *path, char comm[16])
{
	char buf[64];
	ssize_t n = read_small(path, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n > 15)
		n = 15;
	memcpy(comm, buf, (size_t)n);
	comm[n] = '\0';
	return 0;
}

/* A title the process set (setproctitle, or argv rewritten by hand into
 * one string): its first argument has a space, as a program path rarely
 * has. ps -o args shows it as it is. */
static bool is_title(const char *cmdline, size_t len)
{
	for (size_t i = 0; i < len && cmdline[i]; i++)
		if (cmdline[i] == ' ')
			return true;
	return false;
}

static void copy_title(const char *cmdline, size_t len, char *out,
		       size_t outlen)
{
	size_t end = 0;

	while (end < len && cmdline[end])
		end++;
	while (end && cmdline[end - 1] == ' ')
		end--;
	if (end >= outlen)
		end = outlen - 1;
	memcpy(out, cmdline, end);
	out[end] = '\0';
}

static void name_from_cmdline(const char *cmdline, size_t len, char *out,
			      size_t outlen)
{
	size_t end = 0, start = 0;

	if (is_title(cmdline, len)) {
		copy_title(cmdline, len, out, outlen);
		return;
	}
	while (end < len && cmdline[end])
		end++;
	for (size_t i = 0; i < end; i++)
		if (cmdline[i] == '/')
			start = i + 1;
	if (end <= start)
		return;
	if (end - start >= outlen)
		end = start + outlen - 1;
	memcpy(out, cmdline + start, end - start);
	out[end - start] = '\0';
}

void ftfb_procfs_name_from_cmdline(const char *cmdline, size_t len, char *out,
				   size_t outlen)
{
	if (!outlen)
		return;
	out[0] = '\0';
	name_from_cmdline(cmdline, len, out, outlen);
	/* the process wrote it (a title is any bytes it likes): no ESC
	 * sequence or invalid UTF-8 for the trace or the terminal */
	ftfb_safe_name(out, outlen - 1);
}

static void read_pname(uint32_t pid, struct ftfb_task_info *ti)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	n = read_small(path, ti->cmdline, sizeof(ti->cmdline));
	if (n <= 0) {
		ti->process_name[0] = '\0';
		ti->cmdline_len = 0;
		return;
	}
	ti->cmdline_len = (uint16_t)n;
	ftfb_procfs_name_from_cmdline(ti->cmdline, (size_t)n, ti->process_name,
				      sizeof(ti->process_name));
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int ftfb_procfs_scan_pid(uint32_t pid, ftfb_procfs_cb cb, void *ctx)
{
	struct ftfb_task_info ti;
	char path[96];
	struct dirent *de;
	DIR *d;
	int err;

	memset(&ti, 0, sizeof(ti));
	ti.tid = pid;
	ti.tgid = pid;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	err = read_comm(path, ti.comm);
	if (err)
		return err == -ENOENT || err == -ESRCH ? -ENOENT : err;
	read_pname(pid, &ti);
	err = cb(ctx, &ti);
	if (err)
		return err;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return 0; /* gone meanwhile: the leader was reported */
	while ((de = readdir(d))) {
		uint32_t tid;

		if (parse_u32(de->d_name, &tid) || tid == pid)
			continue;
		ti.tid = tid;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
		if (read_comm(path, ti.comm))
			continue; /* exited meanwhile */
		err = cb(ctx, &ti);
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int ftfb_procfs_scan(ftfb_procfs_cb cb, void *ctx)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int err = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint32_t pid;

		if (parse_u32(de->d_name, &pid))
			continue;
		err = ftfb_procfs_scan_pid(pid, cb, ctx);
		if (err == -ENOENT || err == -ESRCH || err == -EACCES)
			err = 0;
		if (err)
			break;
	}
	closedir(d);
	return err;
}

int ftfb_procfs_lookup(void *ctx, uint32_t tid, struct ftfb_task_info *out)
{
	char path[64], buf[2048], *p;
	ssize_t n;
	uint32_t tgid = 0;

	(void)ctx;
	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return -ENOENT;
	p = strstr(buf, "\nTgid:");
	if (!p || sscanf(p + 6, "%u", &tgid) != 1 || !tgid)
		return -ENOENT;
	/* /proc/TID works for any thread, listed or not. */
	snprintf(path, sizeof(path), "/proc/%u/comm", tid);
	if (read_comm(path, out->comm))
		return -ENOENT;
	out->tid = tid;
	out->tgid = tgid;
	read_pname(tgid, out);
	return 0;
}
