// SPDX-License-Identifier: MIT
/*
 * staticwl - the workload of test 'unwind static', linked statically
 * (with glibc, and with musl by musl-gcc): main -> outer -> spin, a loop
 * of STEPS steps, ten times. A static program has no .eh_frame_hdr (gcc
 * asks the linker for one only when it links dynamically): its CFI is
 * found in the .eh_frame section.
 *
 * usage: staticwl STEPS
 */
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t spin(long n)
{
	uint64_t x = 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	__asm__ volatile("");
	return x;
}

__attribute__((noinline)) uint64_t outer(long n)
{
	uint64_t x = spin(n);

	__asm__ volatile("");
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;

	for (int i = 0; i < 10; i++)
		sink += outer(n / 10);
	return 0;
}
