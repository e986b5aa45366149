// SPDX-License-Identifier: MIT
/*
 * lazywl - a program that spends its time in ld.so's lazy binding: run
 * with LD_BIND_NOT=1, ld.so resolves every call through the PLT again
 * (_dl_runtime_resolve_xsavec, _dl_fixup, the symbol lookup) and leaves
 * the GOT as it was. Linked -z lazy, built without builtins, so that
 * work()'s three libc calls go through the PLT.
 *
 * usage: lazywl SECONDS   (of CPU time)
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_seconds.h"

__attribute__((noinline)) static long work(long i)
{
	char buf[32];
	long x = strtol("12345", NULL, 10);

	memset(buf, (int)i, sizeof(buf));
	return x + buf[3] + labs(-i);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	long s = 0;

	while (cpu_s() < secs)
		for (int i = 0; i < 1000; i++)
			s += work(i);
	return (int)(s & 1);
}
