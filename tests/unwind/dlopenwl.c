// SPDX-License-Identifier: MIT
/*
 * dlopenwl.c - code mapped after the process's unwind entry was read
 * (test_dlopen_late.py): waits for a line on stdin, then dlopens each
 * library given and spins in its dls_outer for the CPU seconds given:
 *
 *   dlopenwl LIB1 SECS1 [LIB2 SECS2 ...]
 *
 * Built -O0: main keeps its frame and its calls.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long (*spin_fn)(double);

int main(int argc, char **argv)
{
	char line[16];

	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: dlopenwl LIB SECS [LIB SECS ...]\n");
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		spin_fn spin = h ? (spin_fn)dlsym(h, "dls_outer") : NULL;

		if (!spin) {
			fprintf(stderr, "dlopenwl: %s\n", dlerror());
			return 1;
		}
		printf("%s: spun %lu\n", argv[i], spin(atof(argv[i + 1])));
	}
	return 0;
}
