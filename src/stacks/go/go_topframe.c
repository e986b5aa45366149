// SPDX-License-Identifier: MIT
/*
 * go_topframe.c - where a Go stack starts (see go_topframe.h).
 */
#include <errno.h>
#include <string.h>

#include "elfsym.h"
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

int ftfb_go_mstart_offset(int fd, const char *path, uint64_t *off)
{
	struct ftfb_symlist l = {0};
	char err[256];
	int rc = ftfb_elf_functions_fd(fd, path, &l, err, sizeof(err));

	if (rc)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < l.n && rc; i++)
		if (!strcmp(l.v[i].name, "runtime.mstart") ||
		    !strcmp(l.v[i].name, "runtime.mstart.abi0")) {
			*off = l.v[i].offset;
			rc = 0;
		}
	ftfb_symlist_free(&l);
	return rc;
}
