// SPDX-License-Identifier: MIT
/*
 * vforkwl.c - vfork in a loop for the CPU seconds given (test_vfork.py):
 * each child _exits at once, the parent waits for it. glibc's __vfork
 * keeps its return address in rdi around the syscall (its CFI says so),
 * so the parent's stack in the kernel's vfork (copying itself, or
 * waiting for the child) starts at a frame whose caller is in rdi.
 * Built -O0: main keeps its frame and its call.
 *
 *   vforkwl SECS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_seconds.h"

int main(int argc, char **argv)
{
	double end;
	unsigned long n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: vforkwl SECS\n");
		return 2;
	}
	end = cpu_s() + atof(argv[1]);
	while (cpu_s() < end) {
		pid_t pid = vfork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 1;
		n++;
	}
	printf("vforked %lu\n", n);
	return 0;
}
