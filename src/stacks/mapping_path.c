// SPDX-License-Identifier: MIT
/*
 * mapping_path.c - see mapping_path.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mapping_path.h"

#define DELETED " (deleted)"

int ftfb_mapping_path(char *out, size_t len, uint32_t tgid, uint64_t start,
		      uint64_t end, const char *name)
{
	size_t n = strlen(name), d = strlen(DELETED);
	int w;

	if (n > d && !strcmp(name + n - d, DELETED))
		w = snprintf(out, len,
			     "/proc/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
			     tgid, start, end);
	else
		w = snprintf(out, len, "/proc/%" PRIu32 "/root%s", tgid, name);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}
