// SPDX-License-Identifier: MIT
/*
 * dlspin.c - a library dlopenwl.c loads after it started: dls_outer ->
 * dls_inner, spinning for the CPU seconds given. Built -O2 without frame
 * pointers (as Debian builds its libraries): a walk that finds no
 * mapping for these functions cannot guess its way through them by rbp,
 * only their CFI (once their table is built) gets it to main.
 */
#include "cpu_seconds.h"

__attribute__((noinline)) static unsigned long dls_inner(double secs)
{
	volatile unsigned long n = 0;
	double end = cpu_s() + secs;

	while (cpu_s() < end)
		for (int i = 0; i < 1000; i++)
			n++;
	return n;
}

/* (the + 1: a call, not a jump, so dls_outer keeps its frame) */
__attribute__((noinline)) unsigned long dls_outer(double secs)
{
	return dls_inner(secs) + 1;
}
