// SPDX-License-Identifier: MIT
/*
 * output.c - opens the trace file, plain or gzip, for ftf-bpf's trace and
 * for the flight recorder's snapshots alike.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "output.h"
#include "target.h"

int ftfb_output_open(struct ftfb_output *out, const char *path, bool gzip,
		     char *err, size_t errlen)
{
	int fd, r;

	snprintf(out->path, sizeof(out->path), "%s", path);
	fd = target_open_output(path, out->tmp, sizeof(out->tmp), err, errlen);
	if (fd < 0)
		return fd;
	out->gzip = gzip;
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
	r = target_commit_output(out->tmp, out->path, err, errlen);
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
