// SPDX-License-Identifier: MIT
/*
 * cpuhog - starves one CPU: a busy loop pinned to CPU, as a real-time
 * (SCHED_FIFO) task with --rt so that only what the kernel must run
 * beside it (interrupts, its fair-server share) gets that CPU. Prints
 * "ready" once it spins; runs until killed or for SECONDS.
 *
 * usage: cpuhog CPU SECONDS [--rt]
 *
 * The fault suite uses it to reproduce a production box whose CPU is
 * starved: work the kernel queues on that CPU (SRCU callbacks, which the
 * release of a uprobe link waits for) makes little or no progress.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile unsigned long spin = 0;
	cpu_set_t set;
	double end;

	if (argc < 3) {
		fprintf(stderr, "usage: cpuhog CPU SECONDS [--rt]\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "cpuhog: cannot pin to cpu %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	if (argc > 3 && !strcmp(argv[3], "--rt")) {
		struct sched_param sp = {.sched_priority = 50};

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(stderr,
				"cpuhog: cannot become SCHED_FIFO: %s\n",
				strerror(errno));
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	end = now_s() + atof(argv[2]);
	while (now_s() < end)
		for (int i = 0; i < 1000000; i++)
			spin++;
	return 0;
}
