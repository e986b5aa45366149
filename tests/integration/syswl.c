// SPDX-License-Identifier: MIT
/*
 * syswl - system calls with exactly known counts, for --syscalls: two
 * threads named "sys1" and "sys2" each make N getppid() (through
 * syscall(), which libc does not cache), N write()s of 1 byte to
 * /dev/null and N/2 close(-1) (EBADF); thread "sys1" then reads a pipe
 * that thread "feeder" writes to 100 ms later (one read that blocks).
 * The threads end (their last system call, exit, never returns); with
 * --exec PROG the main thread then execs PROG instead of returning.
 *
 * Prints "sys1=TID sys2=TID feeder=TID n=N" before starting (after a
 * line on stdin with --wait) and "read_blocked_ns=NS" at the end.
 *
 * usage: syswl N [--wait] [--exec PROG]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int n_calls, devnull, pipefd[2];
static pid_t tids[3];
static pthread_barrier_t start;
static uint64_t read_ns;
/* set by sys1 just before its read, so the feeder's 100 ms start there:
 * on a loaded machine sys1's calls before it can take most of 100 ms */
static atomic_int reading;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	int idx = (int)(intptr_t)arg;
	char name[16], b = 'x';

	snprintf(name, sizeof(name), "sys%d", idx + 1);
	pthread_setname_np(pthread_self(), name);
	tids[idx] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&start);
	for (int i = 0; i < n_calls; i++) {
		syscall(SYS_getppid);
		if (write(devnull, &b, 1) != 1)
			exit(1);
		if (i % 2 == 0)
			close(-1);
	}
	if (idx == 0) {
		uint64_t t0 = mono_ns();

		atomic_store(&reading, 1);
		if (read(pipefd[0], &b, 1) != 1)
			exit(1);
		read_ns = mono_ns() - t0;
	}
	return NULL;
}

static void *feeder(void *arg)
{
	struct timespec d = {0, 100 * 1000000L};
	char b = 'y';

	(void)arg;
	pthread_setname_np(pthread_self(), "feeder");
	tids[2] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&start);
	while (!atomic_load(&reading))
		usleep(1000);
	nanosleep(&d, NULL);
	if (write(pipefd[1], &b, 1) != 1)
		exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *exec_prog = NULL;
	pthread_t th[3];
	int wait_go = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: syswl N [--wait] [--exec PROG]\n");
		return 2;
	}
	n_calls = atoi(argv[1]);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait_go = 1;
		else if (!strcmp(argv[i], "--exec") && i + 1 < argc)
			exec_prog = argv[++i];
	}
	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0 || pipe(pipefd))
		return 1;
	pthread_barrier_init(&start, NULL, 4);
	pthread_create(&th[0], NULL, worker, (void *)0);
	pthread_create(&th[1], NULL, worker, (void *)1);
	pthread_create(&th[2], NULL, feeder, NULL);
	pthread_barrier_wait(&start);
	printf("sys1=%d sys2=%d feeder=%d n=%d\n", (int)tids[0], (int)tids[1],
	       (int)tids[2], n_calls);
	fflush(stdout);
	if (wait_go) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	pthread_barrier_wait(&start);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("read_blocked_ns=%llu\n", (unsigned long long)read_ns);
	fflush(stdout);
	if (exec_prog) {
		execl(exec_prog, exec_prog, (char *)NULL);
		return 1;
	}
	return 0;
}
