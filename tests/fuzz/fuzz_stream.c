// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for libftf's stream reader (ftf_stream: what ftf-dump
 * and ftf-merge read with): the input after its first byte is read as a
 * file three ways, as the first byte says: a regular file (mapped whole),
 * gzip-compressed here first (read through the inflate window), or a pipe
 * (read through the window, once). Every record is formatted as text and
 * its bytes (ftf_stream_record_data) touched. ASan/UBSan turn a bad read
 * or undefined behaviour into a crash.
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
#include <zlib.h>

#include "ftf/stream.h"
#include "record_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memfd holding the bytes, or -1. */
static int memfd_with(const void *p, size_t n)
{
	int fd = memfd_create("fuzz_stream", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, p, n) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int gzip_memfd(const uint8_t *p, size_t n)
{
	uLongf cap = compressBound(n) + 32;
	uint8_t *out = malloc(cap);
	z_stream z;
	int fd = -1;

	if (!out)
		return -1;
	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer */
	if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) ==
	    Z_OK) {
		z.next_in = (Bytef *)p;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) == Z_STREAM_END)
			fd = memfd_with(out, z.total_out);
		deflateEnd(&z);
	}
	free(out);
	return fd;
}

/* A pipe holding the bytes (inputs are capped below the pipe's 64 KiB
 * buffer by -max_len), its write end closed; the read end, or -1. */
static int pipe_with(const uint8_t *p, size_t n)
{
	int fds[2];

	if (n > 60000 || pipe2(fds, O_CLOEXEC))
		return -1;
	if (write(fds[1], p, n) != (ssize_t)n) {
		close(fds[0]);
		fds[0] = -1;
	}
	close(fds[1]);
	return fds[0];
}

static volatile unsigned sink; /* the bytes' sum, kept */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftf_stream s;
	struct ftf_record rec;
	char path[64], text[512];
	unsigned sum = 0;
	int fd, ret;

	if (size < 1)
		return 0;
	fd = data[0] % 3 == 0   ? memfd_with(data + 1, size - 1)
	     : data[0] % 3 == 1 ? gzip_memfd(data + 1, size - 1)
				: pipe_with(data + 1, size - 1);
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ftf_stream_open(&s, path) == 0) {
		while ((ret = ftf_stream_next(&s, &rec)) != 0) {
			if (ret < 0) {
				if (s.r.fatal)
					break;
				continue;
			}
			const uint8_t *raw = ftf_stream_record_data(&s, &rec);

			for (size_t i = 0; i < rec.size_words * 8; i++)
				sum += raw[i]; /* each byte readable */
			ftf_record_text(text, sizeof(text), &rec);
		}
		ftf_stream_close(&s);
	}
	close(fd);
	sink = sum;
	return 0;
}
