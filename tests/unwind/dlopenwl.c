// SPDX-License-Identifier: MIT
/*
 * dlopenwl.c - code mapped after the process's unwind entry was read
 * (test_dlopen_late.py, test_dlopen_exits.py, test_dlclose.py): waits
 * for a line on stdin, then dlopens each library given and spins in its
 * dls_outer for the CPU seconds given:
 *
 *   dlopenwl [-c SECS] LIB1 SECS1 [LIB2 SECS2 ...]
 *
 * -c: dlclose each library after its spin (as binutils' ar and ranlib
 * do their bfd plugins), then spin SECS more in main's own code, then
 * wait for the end of stdin before exiting: the libraries are mapped in
 * no read of the maps after the spin, nor at the exit.
 *
 * Built -O0: main keeps its frame and its calls.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_seconds.h"

typedef unsigned long (*spin_fn)(double);

static void spin_here(double secs)
{
	volatile unsigned long n = 0;
	double end = cpu_s() + secs;

	while (cpu_s() < end)
		n++;
}

int main(int argc, char **argv)
{
	double after = -1;
	char line[16];
	int first = 1;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		after = atof(argv[2]);
		first = 3;
	}
	if (argc - first < 2 || (argc - first) % 2) {
		fprintf(stderr,
			"usage: dlopenwl [-c SECS] LIB SECS [LIB SECS ...]\n");
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = first; i + 1 < argc; i += 2) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		spin_fn spin = h ? (spin_fn)dlsym(h, "dls_outer") : NULL;

		if (!spin) {
			fprintf(stderr, "dlopenwl: %s\n", dlerror());
			return 1;
		}
		printf("%s: spun %lu\n", argv[i], spin(atof(argv[i + 1])));
		fflush(stdout);
		if (after >= 0 && dlclose(h)) {
			fprintf(stderr, "dlopenwl: %s\n", dlerror());
			return 1;
		}
	}
	if (after >= 0) {
		spin_here(after);
		printf("closed and spun\n");
		fflush(stdout);
		while (fgets(line, sizeof(line), stdin))
			;
	}
	return 0;
}
