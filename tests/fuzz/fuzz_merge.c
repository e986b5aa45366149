// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for ftf-merge's core (merge_run): the input is one or
 * two traces (split at the second FTF magic record, so two fixtures put
 * end to end are two inputs), each in a memfd; the output goes to a
 * private folder, gzipped for odd-sized inputs. A merge that worked must
 * read back to its end with no error that stops the reader; one that
 * failed must say why in one line and leave no output.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftf/stream.h"
#include "merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t magic[8] = {0x10, 0x00, 0x04, 0x46,
				 0x78, 0x54, 0x16, 0x00};

static int memfd_with(const void *p, size_t n)
{
	int fd = memfd_create("fuzz_merge", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, p, n) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Where the second trace starts (size: none). */
static size_t second_start(const uint8_t *data, size_t size)
{
	for (size_t i = 8; i + 8 <= size; i += 8)
		if (!memcmp(data + i, magic, 8))
			return i;
	return size;
}

/* A merged output must read to its end. */
static void read_back(const char *path)
{
	struct ftf_stream s;
	struct ftf_record rec;
	int ret;

	if (ftf_stream_open(&s, path))
		abort();
	while ((ret = ftf_stream_next(&s, &rec)) > 0)
		;
	if (ret < 0 && s.r.fatal)
		abort(); /* ftf-merge wrote a trace it cannot read */
	ftf_stream_close(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64], out[96];
	struct merge_input in[2];
	struct merge_opts o;
	struct merge_stats st;
	char paths[2][64], err[512];
	size_t cut = second_start(data, size);
	int fds[2] = {-1, -1}, n = cut < size ? 2 : 1, r;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_merge-XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	snprintf(out, sizeof(out), "%s/out.fxt%s", dir, size % 2 ? ".gz" : "");
	unlink(out);
	memset(in, 0, sizeof(in));
	fds[0] = memfd_with(data, cut);
	if (n == 2)
		fds[1] = memfd_with(data + cut, size - cut);
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0)
			goto done;
		snprintf(paths[i], sizeof(paths[i]), "/proc/self/fd/%d", fds[i]);
		in[i].path = paths[i];
	}
	in[1].has_offset = size % 3 == 0; /* (a 2-word init needs one) */
	in[1].offset_ns = 1000;
	memset(&o, 0, sizeof(o));
	o.in = in;
	o.n = n;
	o.output = out;
	r = merge_run(&o, &st, err, sizeof(err));
	if (r == 0)
		read_back(out);
	else if (r > 0 || !err[0] || strchr(err, '\n') ||
		 access(out, F_OK) == 0)
		abort(); /* one line, negative errno, no output left */
done:
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return 0;
}
