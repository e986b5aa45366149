// SPDX-License-Identifier: MIT
/* The uprobe workload's shared library (libftfbwl.so). */
#include "workload_lib.h"

__attribute__((noinline)) int wl_lib_add(int a, int b)
{
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}
