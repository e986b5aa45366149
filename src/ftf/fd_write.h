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
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

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
