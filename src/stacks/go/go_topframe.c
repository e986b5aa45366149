// SPDX-License-Identifier: MIT
/*
 * go_topframe.c - where a Go stack starts (see go_topframe.h).
 */
#include <string.h>

#include "go_topframe.h"

bool ftfb_go_top_frame(const char *f)
{
	static const char *const tops[] = {
		"goexit",
		"mstart",
		"rt0_go",
	};
	size_t n;

	if (!f || strncmp(f, "runtime.", 8))
		return false;
	f += 8;
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		n = strlen(tops[i]);
		if (!strncmp(f, tops[i], n) &&
		    (!f[n] || !strcmp(f + n, ".abi0")))
			return true;
	}
	return false;
}
