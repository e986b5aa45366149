// SPDX-License-Identifier: MIT
/*
 * forkwl.c - short-lived children (test_fork_children.py): waits for a
 * line on stdin, then forks N children one after the other, each
 * spinning SECS of CPU time in main -> fork_a -> fork_spin and exiting
 * at once, and prints how many ended well. With `exec`, each child first
 * execs this program again (`forkwl spin SECS`), a new image to spin in:
 *
 *   forkwl N SECS [exec]
 *
 * Built -O0 with noinline: every function keeps its frame and its call.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void child(double secs, bool exec)
{
	char arg[32];

	if (exec) {
		snprintf(arg, sizeof(arg), "%f", secs);
		execl("/proc/self/exe", "forkwl", "spin", arg, (char *)NULL);
		_exit(127);
	}
	_exit(fork_a(secs) ? 0 : 1);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, forked = 0;
	double secs = argc > 2 ? atof(argv[2]) : 0;
	bool exec = argc > 3 && !strcmp(argv[3], "exec");
	char line[16];

	if (argc == 3 && !strcmp(argv[1], "spin"))
		return fork_a(secs) ? 0 : 1;
	if (n <= 0 || secs <= 0) {
		fprintf(stderr, "usage: forkwl N SECS [exec]\n");
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0)
			child(secs, exec);
		if (pid > 0 && waitpid(pid, &status, 0) == pid &&
		    WIFEXITED(status) && !WEXITSTATUS(status))
			forked++;
	}
	printf("forked %d\n", forked);
	return 0;
}
