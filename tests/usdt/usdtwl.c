// SPDX-License-Identifier: MIT
/*
 * usdtwl.c - a workload with USDT probes of exactly known hits, for the
 * USDT integration tests.
 *
 * Two threads, "uw-worker-0" and "uw-worker-1", each fire:
 *   usdtwl:tick(i, 3i)            for i = 0..999      (1000 instants)
 *   usdtwl:guarded(i, -i)         for i = 0..99, only while the semaphore
 *                                 is set (usdtwl_guarded.c)
 *   usdtwl:msg("item-<t>-<i>", i) for i = 0..9        (a string argument)
 *   usdtwl:req__start(i) usdtwl:req__start(1000 + i)
 *   usdtwl:req__done(1000 + i, 1) usdtwl:req__done(i, 0) for i = 0..19
 *                                 (40 requests, each outer one holding
 *                                 one inner one)
 *
 * usage: usdtwl [--wait-stdin] [--hold]
 *   prints "ready PID SEMAPHORE_ADDRESS" first; --wait-stdin waits for a
 *   line on stdin before the threads start; at the end it prints "done
 *   GUARDED" (the guarded probes fired, all threads); --hold then waits
 *   for another line before it exits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "usdtwl.h"

#define NTHREADS 2

static int guarded_hits[NTHREADS];

static void *worker(void *arg)
{
	long t = (long)arg;
	char name[16], msg[32];

	snprintf(name, sizeof(name), "uw-worker-%ld", t);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < 1000; i++)
		DTRACE_PROBE2(usdtwl, tick, i, 3 * i);
	for (long i = 0; i < 100; i++)
		guarded_hits[t] += usdtwl_guarded(i);
	for (long i = 0; i < 10; i++) {
		snprintf(msg, sizeof(msg), "item-%ld-%ld", t, i);
		DTRACE_PROBE2(usdtwl, msg, msg, i);
	}
	for (long i = 0; i < 20; i++) {
		DTRACE_PROBE1(usdtwl, req__start, i);
		DTRACE_PROBE1(usdtwl, req__start, 1000 + i);
		DTRACE_PROBE2(usdtwl, req__done, 1000 + i, 1);
		DTRACE_PROBE2(usdtwl, req__done, i, 0);
	}
	return NULL;
}

static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		line[0] = '\0';
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	int wait = 0, hold = 0, total = 0;

	for (int i = 1; i < argc; i++) {
		wait |= !strcmp(argv[i], "--wait-stdin");
		hold |= !strcmp(argv[i], "--hold");
	}
	printf("ready %d %p\n", (int)getpid(), (void *)usdtwl_semaphore());
	fflush(stdout);
	if (wait)
		wait_line();
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < NTHREADS; t++) {
		pthread_join(th[t], NULL);
		total += guarded_hits[t];
	}
	printf("done %d\n", total);
	fflush(stdout);
	if (hold)
		wait_line();
	return 0;
}
