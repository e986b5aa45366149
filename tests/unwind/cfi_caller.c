// SPDX-License-Identifier: MIT
/*
 * cfi_caller - the workload of the CFI budget test: maps the crafted
 * library given (gen_cfi.py's "many": cfi_many, one function of 200,000
 * nops whose CFI changes after each) with dlopen, waits a second (its
 * table is built meanwhile), then calls cfi_many for SECONDS more, where
 * nearly all of its CPU time goes. At the end it prints
 *   caller tid=T calls=N cpu_ns=C
 * (C: its thread's CPU time, on a busy machine well under SECONDS)
 * usage: cfi_caller LIB SECONDS
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	void *lib;
	void (*fn)(void);
	unsigned long calls = 0;
	double end;

	if (argc != 3) {
		fprintf(stderr, "usage: cfi_caller LIB SECONDS\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	fn = lib ? (void (*)(void))dlsym(lib, "cfi_many") : NULL;
	if (!fn) {
		fprintf(stderr, "cfi_caller: %s\n", dlerror());
		return 1;
	}
	sleep(1);
	end = clock_s(CLOCK_MONOTONIC) + atof(argv[2]);
	while (clock_s(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 100; i++, calls++)
			fn();
	printf("caller tid=%d calls=%lu cpu_ns=%.0f\n", gettid(), calls,
	       clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e9);
	return 0;
}
