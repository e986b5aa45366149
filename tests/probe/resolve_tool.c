// SPDX-License-Identifier: MIT
/*
 * resolve_tool SPEC [PID] - prints what a -u SPEC resolves to, as
 * `ftf-bpf --list` will ("NAME\tBINARY\t0xOFFSET\tSIZE"). Used by
 * tracefs_counts.sh; handy by hand too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "probespec.h"

int main(int argc, char **argv)
{
	char err[1024];
	int r;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SPEC [PID]\n", argv[0]);
		return 2;
	}
	r = ftfb_probespec_list(stdout, argv[1], argc > 2 ? atoi(argv[2]) : 0,
				NULL, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}
