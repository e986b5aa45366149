/* SPDX-License-Identifier: MIT */
/* tests/bpf/offset.h - the file offset of code in this process, from
 * /proc/self/maps (offset = addr - map start + map file offset). */
#ifndef FTFB_TEST_BPF_OFFSET_H
#define FTFB_TEST_BPF_OFFSET_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* 0 and the mapped file's path and offset, or -1. */
static inline int file_offset_of(const void *addr, char *path, size_t plen,
				 uint64_t *off)
{
	uintptr_t a = (uintptr_t)addr;
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, foff;
		char perms[8], p[4096] = "";

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end,
			   perms, &foff, p) < 4)
			continue;
		if (a < start || a >= end || p[0] != '/')
			continue;
		snprintf(path, plen, "%s", p);
		*off = a - start + foff;
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

#endif
