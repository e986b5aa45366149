/* SPDX-License-Identifier: MIT */
/*
 * pingpong - a workload with exactly known scheduling behaviour.
 *
 * Usage: pingpong N [--wait] [--cpu K | --split]
 *
 * Two threads named "ping" and "pong" (prctl PR_SET_NAME) pass one byte
 * back and forth N times over two pipes: ping writes, pong reads and
 * writes back, ping reads. With --cpu K both threads run on CPU K only:
 * then the byte can only pass if the two take turns on that CPU, so each
 * is switched in at least N times, and each turn ends with a thread that
 * blocks (and is later woken) or is preempted.
 *
 * With --split, ping runs on CPU 0 only and pong on CPU 1 only, and each
 * prints, once its N passes are done, how many times the kernel switched
 * it out so far ("ping_switched_out=A pong_switched_out=B", the
 * voluntary + involuntary counts of /proc/self/task/TID/status): each
 * switch-out is one sched_switch with it as prev.
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
static bool split;
static long switched_out[2]; /* ping's, pong's (--split) */

/* --cpu K: both on K; --split: ping (0) on CPU 0, pong (1) on CPU 1 */
static void pin(int who)
{
	cpu_set_t set;
	int cpu = split ? who : pin_cpu;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* voluntary_ctxt_switches + nonvoluntary_ctxt_switches of this thread */
static long own_switches(void)
{
	char path[64], line[128];
	long n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status",
		 (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static void *pong(void *arg)
{
	char b;

	(void)arg;
	pin(1);
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
	switched_out[1] = own_switches();
	return NULL;
}

static void *ping(void *arg)
{
	char b = 'x';

	(void)arg;
	pin(0);
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
	switched_out[0] = own_switches();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;
	char line[16];

	bool wait = false;

	if (argc < 2 || (rounds = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: pingpong N [--wait] [--cpu K | --split]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--wait") == 0)
			wait = true;
		else if (strcmp(argv[i], "--split") == 0)
			split = true;
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
	if (split)
		printf("ping_switched_out=%ld pong_switched_out=%ld\n",
		       switched_out[0], switched_out[1]);
	return 0;
}
