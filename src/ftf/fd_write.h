/* SPDX-License-Identifier: MIT */
/*
 * src/ftf/fd_write.h - a trace file's write that keeps it whole: all of a
 * buffer or, on failure, the file cut back to what it held before (the
 * file and gzip destinations, and ftf-bpf's output pool; libftf-internal,
 * not installed).
 */
#ifndef FTF_FD_WRITE_H
#define FTF_FD_WRITE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Creates or truncates the trace file at path (never through a symbolic
 * link: O_NOFOLLOW). The fd, or -errno with "cannot open PATH: REASON"
 * in errmsg. */
static inline int ftf__open_output(const char *path, char *errmsg,
				   size_t errlen)
{
	int fd = open(path,
		      O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		      0644);
	int err = -errno;

	if (fd >= 0)
		return fd;
	snprintf(errmsg, errlen, "cannot open %s: %s", path, strerror(-err));
	return err;
}

/* Writes the n bytes at p, through short writes and EINTR. 0, or the
 * errno of the failure (ENOSPC for a write of nothing); *done: the bytes
 * that reached the file. */
static inline int ftf__write_all(int fd, const uint8_t *p, size_t n,
				 size_t *done)
{
	*done = 0;
	while (*done < n) {
		ssize_t r = write(fd, p + *done, n - *done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? errno : ENOSPC;
		*done += (size_t)r;
	}
	return 0;
}

/* Cuts the file back to `end` bytes, the next write going there: `what`
 * (the error message's account of it) if that worked, else a note that it
 * did not. */
static inline const char *ftf__cut_back(int fd, off_t end, const char *what)
{
	if (ftruncate(fd, end) == 0 && lseek(fd, end, SEEK_SET) == end)
		return what;
	return ", and the file could not be cut back";
}

#endif
