// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for ftf-bpf's ELF readers, all compiled into the
 * target with its coverage: the symbol reader (elfsym.c), the USDT note
 * reader (usdt_notes.c) and the build id reader (buildid.c) each read the
 * input as a file. Each returns 0 (or a length) or a negative errno with
 * a message, never crashes, reads out of bounds or leaks.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buildid.h"
#include "elfsym.h"
#include "usdt_notes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void symbols(const char *path)
{
	struct ftfb_symlist l;
	char err[256] = "";
	int r = ftfb_elf_functions(path, &l, err, sizeof(err));

	if (r == 0) {
		for (size_t i = 0; i < l.n; i++)
			if (!l.v[i].name || !l.v[i].binary)
				abort();
		ftfb_symlist_free(&l);
	} else if (r > 0 || !err[0] || l.n || l.v) {
		abort(); /* errors are negative, with a message */
	}
}

static void notes(const char *path)
{
	struct ftfb_usdt_notes n;
	char err[256] = "";
	int r = ftfb_usdt_notes_read(path, &n, err, sizeof(err));

	if (r == 0) {
		for (size_t i = 0; i < n.n; i++)
			if (!n.v[i].provider || !n.v[i].name || !n.v[i].args ||
			    ftfb_usdt_arg_count(n.v[i].args) < 0)
				abort();
		ftfb_usdt_notes_free(&n);
	} else if (r > 0 || !err[0] || n.n || n.v) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	uint8_t id[64];
	int r;

	if (fd < 0) {
		fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	symbols(path);
	notes(path);
	r = ftfb_elf_build_id(path, id, sizeof(id));
	if (r > (int)sizeof(id))
		abort();
	return 0;
}
