// SPDX-License-Identifier: MIT
/*
 * tgt.c - a target binary for the symbol-resolution tests, built as PIE,
 * non-PIE and stripped (-rdynamic -s).
 *
 * "tgt addrs" prints "NAME 0xADDRESS" for its functions (the run-time
 * addresses, which the test converts to file offsets through this
 * process's /proc/PID/maps: a reference independent of the ELF reader),
 * then "end", then waits until stdin is closed so the test can also
 * resolve through /proc/PID.
 */
#include <stdio.h>
#include <string.h>

#include "libtgt.h"

#ifdef __clang__
#define NOINLINE __attribute__((noinline, used))
#else
#define NOINLINE __attribute__((noinline, noclone, used))
#endif

volatile int tgt_sink;

NOINLINE int tgt_parse_args(int n)
{
	tgt_sink += n;
	return tgt_sink;
}

NOINLINE int tgt_parse_line(int n)
{
	tgt_sink -= n;
	return tgt_sink;
}

NOINLINE int tgt_compute(int a, int b)
{
	int r = 0;

	for (int i = 0; i < a; i++)
		r += i * b + tgt_sink;
	return r;
}

/* Local: only in .symtab, gone from the stripped build. */
static NOINLINE int tgt_local_helper(int x)
{
	tgt_sink ^= x;
	return tgt_sink;
}

int main(int argc, char **argv)
{
	char buf[64];

	tgt_parse_args(argc);
	tgt_parse_line(argc);
	tgt_compute(argc, 3);
	tgt_local_helper(argc);
	tgtlib_add(argc, 1);
	if (argc < 2 || strcmp(argv[1], "addrs") != 0)
		return 0;
	printf("tgt_parse_args %p\n", (void *)tgt_parse_args);
	printf("tgt_parse_line %p\n", (void *)tgt_parse_line);
	printf("tgt_compute %p\n", (void *)tgt_compute);
	printf("tgt_local_helper %p\n", (void *)tgt_local_helper);
	printf("end\n");
	fflush(stdout);
	while (fgets(buf, sizeof(buf), stdin))
		;
	return 0;
}
