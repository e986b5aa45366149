// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: arbitrary bytes as a file given to the ELF symbol
 * reader. It must return 0 or a negative errno with a message, never
 * crash, read out of bounds or leak.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct ftfb_symlist l;
	char err[256];
	int r;

	if (fd < 0) {
		fd = memfd_create("fuzz_elfsym", MFD_CLOEXEC);
		if (fd < 0)
			return 0;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	err[0] = '\0';
	r = ftfb_elf_functions(path, &l, err, sizeof(err));
	if (r == 0) {
		for (size_t i = 0; i < l.n; i++)
			if (!l.v[i].name || !l.v[i].binary)
				__builtin_trap();
		ftfb_symlist_free(&l);
	} else if (r > 0 || !err[0] || l.n || l.v) {
		__builtin_trap(); /* errors are negative, with a message */
	}
	return 0;
}
