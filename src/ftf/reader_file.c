// SPDX-License-Identifier: MIT
/*
 * reader_file.c - a trace file's bytes for the reader: read whole
 * (ftf_read_file) or mapped (ftf_file_open), see ftf/reader.h.
 */
#include "ftf/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens path read-only and stats it: the fd, or a negative errno. */
static int open_stat(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Reads all of fd (st: its fstat) into a malloc'ed buffer; closes fd.
 * Returns 0 or -errno as ftf_read_file. */
static int read_fd(int fd, const struct stat *st, uint8_t **data,
		   size_t *len)
{
	uint8_t *buf;
	size_t cap, n = 0;
	int err;

	*data = NULL;
	*len = 0;
	if (S_ISDIR(st->st_mode)) {
		close(fd);
		return -EISDIR;
	}
	cap = S_ISREG(st->st_mode) && st->st_size > 0 ? (size_t)st->st_size
						       : 4096;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			uint8_t *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			free(buf);
			close(fd);
			return err;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	*data = buf;
	*len = n;
	return 0;
}

int ftf_read_file(const char *path, uint8_t **data, size_t *len)
{
	struct stat st;
	int fd = open_stat(path, &st);

	*data = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	return read_fd(fd, &st, data, len);
}


int ftf_file_open(struct ftf_file *f, const char *path)
{
	struct stat st;
	int fd, err;
	void *map;

	memset(f, 0, sizeof(*f));
	fd = open_stat(path, &st);
	if (fd < 0)
		return fd;
	/* a pipe, a /proc file, an empty file: read from this fd (opening
	 * a FIFO again would lose what its writer already wrote) */
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX)
		goto read_it;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto read_it; /* (a file system that cannot map) */
	close(fd);
	(void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	f->map = map;
	f->data = map;
	f->len = (size_t)st.st_size;
	return 0;
read_it:
	err = read_fd(fd, &st, &f->buf, &f->len);
	f->data = f->buf;
	return err;
}

void ftf_file_close(struct ftf_file *f)
{
	if (f->map)
		munmap(f->map, f->len);
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

void ftf_file_release(struct ftf_file *f, size_t upto)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!f->map || upto > f->len)
		return;
	upto -= upto % page;
	if (upto <= f->released)
		return;
	(void)madvise((uint8_t *)f->map + f->released, upto - f->released,
		      MADV_DONTNEED);
	f->released = upto;
}
