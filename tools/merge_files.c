// SPDX-License-Identifier: MIT
/*
 * merge_files.c - ftf-merge's inputs read once, its output put in place
 * when whole (see merge_files.h).
 */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge_files.h"

static int copy_all(int from, int to)
{
	static char buf[1 << 16];
	ssize_t n;

	while ((n = read(from, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (ssize_t done = 0, w; done < n; done += w) {
			w = write(to, buf + done, (size_t)(n - done));
			if (w < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				return -errno;
			}
		}
	}
	return 0;
}

/* An unlinked file in $TMPDIR (or /tmp). */
static int temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char name[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(name, sizeof(name), "%s/ftf-merge-XXXXXX", dir) >=
	    (int)sizeof(name))
		return -ENAMETOOLONG;
	fd = mkostemp(name, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(name);
	return fd;
}

int merge_spool_input(const char *path, struct merge_spool *sp, char *err,
		      size_t errlen)
{
	struct stat st;
	int in, r;

	sp->fd = -1;
	sp->path[0] = '\0';
	if (stat(path, &st) || S_ISREG(st.st_mode))
		return 0; /* read as is (a missing file is said there) */
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory: give FTF traces",
			 path);
		return -EISDIR;
	}
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-r));
		return r;
	}
	sp->fd = temp_file();
	r = sp->fd < 0 ? sp->fd : copy_all(in, sp->fd);
	close(in);
	if (r) {
		snprintf(err, errlen,
			 "cannot keep %s (not a regular file, read once) in a "
			 "temporary file: %s (set TMPDIR to a folder with room)",
			 path, strerror(-r));
		merge_spool_close(sp);
		return r;
	}
	snprintf(sp->path, sizeof(sp->path), "/proc/self/fd/%d", sp->fd);
	return 0;
}

const char *merge_spool_path(const struct merge_spool *sp, const char *path)
{
	return sp->fd >= 0 ? sp->path : path;
}

void merge_spool_close(struct merge_spool *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
}

/* 0 when output is new or a regular file, else -errno with one line. */
static int check_output(const char *output, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(output, &st)) {
		int e = errno;

		if (e == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot write %s: %s", output,
			 strerror(e));
		return -e;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen,
		 "the output %s is %s, not a regular file: give -o a new "
		 "file name",
		 output,
		 S_ISLNK(st.st_mode)   ? "a symlink"
		 : S_ISDIR(st.st_mode) ? "a directory"
		 : S_ISFIFO(st.st_mode) ? "a FIFO"
		 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
							      : "a special file");
	return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
}

int merge_out_create(const char *output, struct merge_out_file *of,
		     char *err, size_t errlen)
{
	mode_t mask;
	int fd, r = check_output(output, err, errlen);

	of->tmp[0] = '\0';
	if (r)
		return r;
	if (snprintf(of->tmp, sizeof(of->tmp), "%s.partXXXXXX", output) >=
	    (int)sizeof(of->tmp)) {
		of->tmp[0] = '\0';
		snprintf(err, errlen, "output path too long: %s", output);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot write %s: %s", output,
			 strerror(-r));
		of->tmp[0] = '\0';
		return r;
	}
	mask = umask(0); /* the mode a plain open(0644) would give */
	umask(mask);
	if (fchmod(fd, 0644 & ~mask)) {
		r = -errno;
		snprintf(err, errlen, "cannot write %s: %s", output,
			 strerror(-r));
		close(fd);
		merge_out_discard(of);
		return r;
	}
	return fd;
}

int merge_out_commit(struct merge_out_file *of, const char *output,
		     char *err, size_t errlen)
{
	/* checked again: what is at output now is replaced by the rename */
	int r = check_output(output, err, errlen);

	if (!r && rename(of->tmp, output)) {
		r = -errno;
		snprintf(err, errlen, "cannot write %s: %s", output,
			 strerror(-r));
	}
	if (r)
		merge_out_discard(of);
	of->tmp[0] = '\0';
	return r;
}

void merge_out_discard(struct merge_out_file *of)
{
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}
