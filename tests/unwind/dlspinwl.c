// SPDX-License-Identifier: MIT
/*
 * dlspinwl.c - a program linked with dlspin (as libdlspinlinked.so), so
 * that the library is in its maps from its exec on and its table is
 * built from its first read (test_dlopen_exits.py): spins in dls_outer
 * for the CPU seconds given.
 *
 *   dlspinwl SECS
 */
#include <stdio.h>
#include <stdlib.h>

unsigned long dls_outer(double secs);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dlspinwl SECS\n");
		return 2;
	}
	printf("spun %lu\n", dls_outer(atof(argv[1])));
	return 0;
}
