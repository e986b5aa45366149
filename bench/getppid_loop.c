// SPDX-License-Identifier: MIT
/* getppid-loop N [--wait]: N getppid() system calls (through syscall(),
 * which libc does not cache) in a tight loop; prints "N calls T ns" (the
 * loop's own CLOCK_MONOTONIC time, so a tracer's start and stop are not
 * counted). --wait: reads a line from stdin before the loop and another
 * before exiting, so a benchmark can attach a tracer to this process and
 * read the BPF statistics while the tracer is still loaded. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void wait_line(void)
{
	char line[16];

	if (!fgets(line, sizeof(line), stdin))
		exit(1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int wait = argc > 2 && !strcmp(argv[2], "--wait");
	struct timespec a, b;

	if (wait)
		wait_line();
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%ld calls %lld ns\n", n,
	       (long long)(b.tv_sec - a.tv_sec) * 1000000000ll +
		       (b.tv_nsec - a.tv_nsec));
	fflush(stdout);
	if (wait)
		wait_line();
	return 0;
}
