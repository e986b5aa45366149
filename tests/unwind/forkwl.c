// SPDX-License-Identifier: MIT
/*
 * forkwl.c - short-lived forked children that never exec
 * (test_fork_children.py): waits for a line on stdin, then forks N
 * children one after the other, each spinning SECS of CPU time in
 * main -> fork_a -> fork_spin and exiting at once, and prints how many
 * it forked:
 *
 *   forkwl N SECS
 *
 * Built -O0 with noinline: every function keeps its frame and its call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cpu_seconds.h"

__attribute__((noinline)) static unsigned long fork_spin(double secs)
{
	volatile unsigned long n = 0;
	double end = cpu_s() + secs;

	while (cpu_s() < end)
		for (int i = 0; i < 1000; i++)
			n++;
	return n;
}

__attribute__((noinline)) static unsigned long fork_a(double secs)
{
	return fork_spin(secs) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, forked = 0;
	double secs = argc > 2 ? atof(argv[2]) : 0;
	char line[16];

	if (n <= 0 || secs <= 0) {
		fprintf(stderr, "usage: forkwl N SECS\n");
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(fork_a(secs) ? 0 : 1);
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			forked++;
	}
	printf("forked %d\n", forked);
	return 0;
}
