// SPDX-License-Identifier: MIT
/*
 * output.c - opens the trace file, plain or gzip, for ftf-bpf's trace and
 * for the flight recorder's snapshots alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

#include "output.h"

/* Never through a symlink: one at path is refused, an existing regular
 * file is kept as path.old (as perf does), then path is created with
 * O_EXCL|O_NOFOLLOW. The fd, or -errno with one line in err. */
static int create_output(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) == 0) {
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
		if (S_ISREG(st.st_mode)) {
			char old[PATH_MAX];

			if (snprintf(old, sizeof(old), "%s.old", path) >=
			    (int)sizeof(old)) {
				snprintf(err, errlen, "output path too long: %s",
					 path);
				return -ENAMETOOLONG;
			}
			if (rename(path, old)) {
				int e = errno;

				snprintf(err, errlen,
					 "cannot keep the existing %s as %s: %s",
					 path, old, strerror(e));
				return -e;
			}
		} else {
			snprintf(err, errlen,
				 "output %s exists and is not a regular file: choose another -o",
				 path);
			return -EEXIST;
		}
	} else if (errno != ENOENT) {
		int e = errno;

		snprintf(err, errlen, "cannot write the trace to %s: %s", path,
			 strerror(e));
		return -e;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot write the trace to %s: %s", path,
			 strerror(e));
		return -e;
	}
	return fd;
}

int ftfb_output_open(struct ftfb_output *out, const char *path, bool gzip,
		     char *err, size_t errlen)
{
	int fd = create_output(path, err, errlen), r;

	if (fd < 0)
		return fd;
	out->gzip = gzip;
	if (gzip) {
		r = ftf_dest_gzip_init_fd(&out->d.gz, fd, 1, 0, -1);
		if (r) {
			snprintf(err, errlen, "cannot set up output %s: %s",
				 path, out->d.gz.errmsg);
			close(fd);
		}
		return r;
	}
	r = ftf_dest_file_init_fd(&out->d.file, fd, 1, 0);
	if (r)
		/* the file destination closed fd itself */
		snprintf(err, errlen, "cannot set up output %s: %s", path,
			 out->d.file.errmsg);
	return r;
}
