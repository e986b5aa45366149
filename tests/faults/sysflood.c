// SPDX-License-Identifier: MIT
/*
 * sysflood - THREADS threads that each make exactly CALLS getppid()
 * system calls (through syscall(), which libc does not cache), all at
 * once; prints "pid=PID calls=TOTAL" when they are done.
 *
 * usage: sysflood THREADS CALLS
 *
 * The fault suite's reader-starvation case: the threads produce events
 * as fast as the cpu they get allows, so a tracer whose reader gets no
 * more cpu than each of them falls behind and loses events.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long calls;

static void *flood(void *arg)
{
	(void)arg;
	for (long i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int n;

	if (argc < 3) {
		fprintf(stderr, "usage: sysflood THREADS CALLS\n");
		return 2;
	}
	n = atoi(argv[1]);
	calls = atol(argv[2]);
	if (n < 1 || n > 64 || calls < 0) {
		fprintf(stderr, "sysflood: 1 to 64 threads\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, flood, NULL)) {
			fprintf(stderr, "sysflood: cannot start a thread\n");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("pid=%d calls=%ld\n", (int)getpid(), (long)n * calls);
	return 0;
}
