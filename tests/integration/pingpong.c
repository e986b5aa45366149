/* SPDX-License-Identifier: MIT */
/*
 * pingpong - a workload with exactly known scheduling behaviour.
 *
 * Usage: pingpong N [--wait] [--cpu K]
 *
 * Two threads named "ping" and "pong" (prctl PR_SET_NAME) pass one byte
 * back and forth N times over two pipes: ping writes, pong reads and
 * writes back, ping reads. With --cpu K both threads run on CPU K only:
 * then the byte can only pass if the two take turns on that CPU, so each
 * is switched in at least N times, and each turn ends with a thread that
 * blocks (and is later woken) or is preempted.
 *
 * The main thread (still named "pingpong") only starts and joins them.
 * It prints "pid=P ping=T1 pong=T2" on stdout once both threads exist.
 * With --wait the threads then wait for a line (or EOF) on stdin before
 * starting, so a tracer can attach with -p first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int to_pong[2], to_ping[2];
static long rounds;
static pid_t ping_tid, pong_tid;
static pthread_barrier_t ready, go;

__attribute__((noreturn)) static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int pin_cpu = -1;

static void pin(void)
{
	cpu_set_t set;

	if (pin_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(pin_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void *pong(void *arg)
{
	char b;

	(void)arg;
	pin();
	prctl(PR_SET_NAME, "pong");
	pong_tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	for (long i = 0; i < rounds; i++) {
		if (read(to_pong[0], &b, 1) != 1)
			die("pong read");
		if (write(to_ping[1], &b, 1) != 1)
			die("pong write");
	}
	return NULL;
}

static void *ping(void *arg)
{
	char b = 'x';

	(void)arg;
	pin();
	prctl(PR_SET_NAME, "ping");
	ping_tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	for (long i = 0; i < rounds; i++) {
		if (write(to_pong[1], &b, 1) != 1)
			die("ping write");
		if (read(to_ping[0], &b, 1) != 1)
			die("ping read");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;
	char line[16];

	bool wait = false;

	if (argc < 2 || (rounds = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: pingpong N [--wait] [--cpu K]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--wait") == 0)
			wait = true;
		else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
			pin_cpu = atoi(argv[++i]);
		else {
			fprintf(stderr, "pingpong: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (pipe(to_pong) || pipe(to_ping))
		die("pipe");
	pthread_barrier_init(&ready, NULL, 3);
	pthread_barrier_init(&go, NULL, 3);
	if (pthread_create(&t1, NULL, ping, NULL) ||
	    pthread_create(&t2, NULL, pong, NULL))
		die("pthread_create");
	pthread_barrier_wait(&ready);
	printf("pid=%d ping=%d pong=%d\n", getpid(), ping_tid, pong_tid);
	fflush(stdout);
	if (wait) {
		if (!fgets(line, sizeof(line), stdin)) {
			/* EOF also means go */
		}
	}
	pthread_barrier_wait(&go);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	return 0;
}
