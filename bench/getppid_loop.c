// SPDX-License-Identifier: MIT
/* getppid-loop N: N getppid() system calls (through syscall(), which libc
 * does not cache) in a tight loop; prints "N calls T ns" (the loop's own
 * CLOCK_MONOTONIC time, so a tracer's start and stop are not counted). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld calls %lld ns\n", n,
	       (long long)(b.tv_sec - a.tv_sec) * 1000000000ll +
		       (b.tv_nsec - a.tv_nsec));
	return 0;
}
