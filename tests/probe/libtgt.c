// SPDX-License-Identifier: MIT
/* A small shared library the uprobe unit tests resolve symbols in. */
#include "libtgt.h"

__attribute__((noinline)) int tgtlib_add(int a, int b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

/* A second name at the same address: resolution keeps one entry per
 * address, named by whichever name the spec matched. */
int tgtlib_add_alias(int a, int b) __attribute__((alias("tgtlib_add")));

__attribute__((noinline)) int tgtlib_hello(void)
{
	__asm__ volatile("" ::: "memory");
	return 42;
}
