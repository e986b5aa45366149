// SPDX-License-Identifier: MIT
/*
 * hammer - calls the noinline function hit() in a tight loop on THREADS
 * threads for SECONDS seconds (or N calls per thread with -n), then prints
 * its exact counts: "calls=TOTAL t1=TID:COUNT t2=TID:COUNT ...".
 *
 * usage: hammer [--wait] (-s SECONDS | -n CALLS) [THREADS]
 * --wait: print "pid=PID" and wait for a line on stdin before starting,
 * so a tracer can attach with -p first.
 * After printing its counts: --segv crashes (SIGSEGV), --pause waits to
 * be killed, --exec PROG [ARGS...] execs PROG from inside the probed
 * function leave() (so leave's call never returns).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static atomic_int stop;
static long per_thread_calls;
static volatile unsigned long sink;
static volatile uintptr_t zero;

static uintptr_t sink_zero(void)
{
	return zero;
}

__attribute__((noinline)) unsigned long hit(unsigned long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

struct worker {
	pthread_t th;
	pid_t tid;
	unsigned long calls;
};

__attribute__((noinline)) void leave(char **argv)
{
	__asm__ volatile("" ::: "memory");
	execv(argv[0], argv);
	perror("hammer: execv");
	_exit(127);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	unsigned long n = 0, acc = 0;

	w->tid = gettid();
	if (per_thread_calls > 0) {
		for (long i = 0; i < per_thread_calls; i++, n++)
			acc = hit(acc);
	} else {
		while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
			acc = hit(acc);
			n++;
		}
	}
	sink = acc;
	w->calls = n;
	return NULL;
}

/* The fault itself: UBSan (which the tests make halt on error) would
 * stop the process before the kernel's SIGSEGV. */
__attribute__((no_sanitize("undefined"))) static void store_through_null(void)
{
	*(volatile int *)sink_zero() = 1;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	double seconds = 0;
	int nthreads = 2, wait = 0, segv = 0, pause_ = 0, i = 1;
	char **exec_argv = NULL;
	unsigned long total = 0;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = 1;
		else if (!strcmp(argv[i], "--segv"))
			segv = 1;
		else if (!strcmp(argv[i], "--pause"))
			pause_ = 1;
		else if (!strcmp(argv[i], "--exec") && i + 1 < argc) {
			exec_argv = argv + i + 1;
			break;
		}
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			per_thread_calls = atol(argv[++i]);
		else
			nthreads = atoi(argv[i]);
	}
	if (nthreads < 1 || nthreads > MAX_THREADS ||
	    (seconds <= 0 && per_thread_calls <= 0)) {
		fprintf(stderr, "usage: hammer [--wait] (-s SECONDS | -n CALLS) [THREADS]\n");
		return 2;
	}
	if (wait) {
		char line[16];

		printf("pid=%d\n", getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (int t = 0; t < nthreads; t++)
		pthread_create(&w[t].th, NULL, run, &w[t]);
	if (seconds > 0) {
		struct timespec ts = { (time_t)seconds,
				       (long)((seconds - (time_t)seconds) * 1e9) };

		nanosleep(&ts, NULL);
		atomic_store(&stop, 1);
	}
	for (int t = 0; t < nthreads; t++) {
		pthread_join(w[t].th, NULL);
		total += w[t].calls;
	}
	printf("calls=%lu", total);
	for (int t = 0; t < nthreads; t++)
		printf(" t%d=%d:%lu", t + 1, (int)w[t].tid, w[t].calls);
	printf("\n");
	fflush(stdout);
	if (segv) {
		/* A real crash, whatever sanitizer runtime would catch it
		 * (ASan turns a SEGV into exit 1): the default action. */
		signal(SIGSEGV, SIG_DFL);
		store_through_null();
		raise(SIGSEGV);
	}
	if (pause_)
		for (;;)
			pause();
	if (exec_argv)
		leave(exec_argv);
	return 0;
}
