// SPDX-License-Identifier: MIT
/*
 * freshwl.c - a known call chain on CPU from the first instruction of
 * main: main -> fresh_a -> fresh_b -> fresh_spin, spinning for the CPU
 * seconds given (default 1). The stack copy test (test_stack_copy.py)
 * runs it from a new copy of its file, whose unwind table no run has
 * built, so the first samples come before the table is loaded.
 *
 * Built -O0 with noinline: every function keeps its frame and its call.
 */
#include <stdio.h>
#include <stdlib.h>
#include "cpu_seconds.h"

__attribute__((noinline)) static unsigned long fresh_spin(double secs)
{
	volatile unsigned long n = 0;
	double end = cpu_s() + secs;

	while (cpu_s() < end)
		for (int i = 0; i < 1000; i++)
			n++;
	return n;
}

__attribute__((noinline)) static unsigned long fresh_b(double secs)
{
	return fresh_spin(secs) + 1;
}

__attribute__((noinline)) static unsigned long fresh_a(double secs)
{
	return fresh_b(secs) + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;

	printf("spun %lu\n", fresh_a(secs));
	return 0;
}
