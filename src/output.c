// SPDX-License-Identifier: MIT
/*
 * output.c - opens the trace file, plain or gzip, for ftf-bpf's trace and
 * for the flight recorder's snapshots alike.
 */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

#include "output.h"

/* 0 when path may take a trace (new, or a regular file to keep as
 * .old), else -errno with one line in err. */
static int check_output_path(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st)) {
		int e = errno;

		if (e == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot write the trace to %s: %s", path,
			 strerror(e));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen,
			 "output %s is a symlink: refusing to write through it (remove it or choose another -o)",
			 path);
		return -ELOOP;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
			 "output %s is a directory: give a file name with -o",
			 path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "output %s exists and is not a regular file: choose another -o",
			 path);
		return -EEXIST;
	}
	return 0;
}

/* A new trace for path, to be put in place by commit_output once the
 * trace really started, so a failed start leaves what was there
 * untouched: written to a new temporary file path.partXXXXXX (its name in
 * tmp, tmplen >= PATH_MAX), created with O_EXCL. Its fd, or -errno with
 * one line in err. */
static int create_output(const char *path, char *tmp, size_t tmplen,
			 char *err, size_t errlen)
{
	mode_t mask;
	int fd, r = check_output_path(path, err, errlen);

	tmp[0] = '\0';
	if (r)
		return r;
	if (snprintf(tmp, tmplen, "%s.partXXXXXX", path) >= (int)tmplen) {
		tmp[0] = '\0';
		snprintf(err, errlen, "output path too long: %s", path);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		tmp[0] = '\0';
		snprintf(err, errlen, "cannot write the trace to %s: %s", path,
			 strerror(-r));
		return r;
	}
	mask = umask(0); /* the mode open(0644) would have given */
	umask(mask);
	if (fchmod(fd, 0644 & ~mask)) {
		r = -errno;
		snprintf(err, errlen, "cannot write the trace to %s: %s", path,
			 strerror(-r));
		close(fd);
		unlink(tmp);
		tmp[0] = '\0';
		return r;
	}
	return fd;
}

/* Keeps an existing regular file at path as path.old (as perf does) and
 * renames tmp to path. 0, or -errno with one line in err (tmp is then
 * still there, the caller's to remove). */
static int commit_output(const char *tmp, const char *path, char *err,
			 size_t errlen)
{
	char old[PATH_MAX];
	struct stat st;
	int r = check_output_path(path, err, errlen); /* again: it may have
							 * changed since */

	if (r)
		return r;
	if (lstat(path, &st) == 0) {
		if (snprintf(old, sizeof(old), "%s.old", path) >=
		    (int)sizeof(old)) {
			snprintf(err, errlen, "output path too long: %s",
				 path);
			return -ENAMETOOLONG;
		}
		if (rename(path, old)) {
			r = -errno;
			snprintf(err, errlen,
				 "cannot keep the existing %s as %s: %s", path,
				 old, strerror(-r));
			return r;
		}
	}
	if (rename(tmp, path)) {
		r = -errno;
		snprintf(err, errlen, "cannot write the trace to %s: %s", path,
			 strerror(-r));
		return r;
	}
	return 0;
}

int ftfb_output_open(struct ftfb_output *out, const char *path, bool gzip,
		     bool threaded, char *err, size_t errlen)
{
	int fd, r;

	snprintf(out->path, sizeof(out->path), "%s", path);
	out->pool = NULL;
	fd = create_output(path, out->tmp, sizeof(out->tmp), err, errlen);
	if (fd < 0)
		return fd;
	out->gzip = gzip;
	if (threaded) {
		struct ftfb_output_pool_opts po = {.gzip = gzip, .level = -1};
		char why[256];

		r = ftfb_output_pool_new(&out->pool, fd, &po, why, sizeof(why));
		if (r) {
			snprintf(err, errlen, "cannot set up output %s: %s",
				 path, why);
			close(fd);
			ftfb_output_discard(out);
		}
		return r;
	}
	if (gzip) {
		r = ftf_dest_gzip_init_fd(&out->d.gz, fd, 1, 0, -1);
		if (r) {
			snprintf(err, errlen, "cannot set up output %s: %s",
				 path, out->d.gz.errmsg);
			close(fd);
			ftfb_output_discard(out);
		}
		return r;
	}
	r = ftf_dest_file_init_fd(&out->d.file, fd, 1, 0);
	if (r) {
		/* the file destination closed fd itself */
		snprintf(err, errlen, "cannot set up output %s: %s", path,
			 out->d.file.errmsg);
		ftfb_output_discard(out);
	}
	return r;
}

int ftfb_output_commit(struct ftfb_output *out, char *err, size_t errlen)
{
	int r;

	if (!out->tmp[0])
		return 0;
	r = commit_output(out->tmp, out->path, err, errlen);
	if (!r)
		out->tmp[0] = '\0';
	return r;
}

void ftfb_output_discard(struct ftfb_output *out)
{
	if (out->tmp[0])
		unlink(out->tmp);
	out->tmp[0] = '\0';
}

void ftfb_output_free(struct ftfb_output *out)
{
	ftfb_output_pool_free(out->pool);
	out->pool = NULL;
}
