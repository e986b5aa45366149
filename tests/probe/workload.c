// SPDX-License-Identifier: MIT
/*
 * workload.c - the uprobe workload with exactly known behaviour.
 *
 * Built as a PIE; every traced function is noinline (and noclone on GCC),
 * so each call in the source is one call a uprobe sees.
 *
 * After the start condition (below), the main thread starts 3 threads
 * named "wl-worker-0", "wl-worker-1", "wl-worker-2" (prctl PR_SET_NAME)
 * and joins them. EACH worker thread, in this order:
 *   - work_a(i) for i = 0..999      1000 calls, returns 2*i + 1
 *   - work_b(i) for i = 0..499       500 calls, returns 3*i
 *   - fib(10) once                   177 calls of fib (C(n) = C(n-1) +
 *                                    C(n-2) + 1, C(0) = C(1) = 1), nested
 *                                    10 deep (fib(10) .. fib(1)), fib(10)
 *                                    returns 55
 *   - args6(11, 22, 33, 44, 55, 66)  1 call, returns
 *                                    1*11 + 2*22 + 3*33 + 4*44 + 5*55 + 6*66
 *                                    = 1001
 *   - wl_lib_add(i, 1000) for i = 0..99, in libftfbwl.so: 100 calls,
 *                                    returns i + 1000
 * Totals over the 3 workers: work_a 3000, work_b 1500, fib 531, args6 3,
 * wl_lib_add 300. The main thread calls none of these. No traced function
 * calls another traced function except fib (itself).
 *
 * Start conditions (so a tracer can attach with -p first):
 *   (none)             start at once
 *   --wait-stdin       wait for a line (or EOF) on stdin
 *   --wait-signal      wait for SIGUSR1
 *   --delay-ms N       sleep N milliseconds
 * It prints "ready PID" (flushed) before waiting and "done" at the end;
 * it exits 1 if any traced function returned a wrong value.
 * tests/probe/tracefs_counts.sh checks these counts with kernel uprobes.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "workload_lib.h"

#ifdef __clang__
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noinline, noclone, used))
#endif

#define NTHREADS 3
#define WORK_A_CALLS 1000
#define WORK_B_CALLS 500
#define FIB_N 10
#define WL_LIB_CALLS 100

/*
 * The traced functions do no memory writes and no atomics: an x86 uprobe
 * cannot be placed on a LOCK-prefixed instruction (the kernel refuses it
 * silently when the probe is installed), and a counter at function entry
 * is exactly where the compiler puts it. The empty asm statements make
 * the results opaque to the optimiser (no folding, no call elimination)
 * and, in fib, keep the second recursive call out of tail position so it
 * is not turned into a loop (which would leave 89 calls instead of 177).
 */
TRACED long work_a(long i)
{
	__asm__ volatile("" : "+r"(i));
	return 2 * i + 1;
}

TRACED long work_b(long i)
{
	__asm__ volatile("" : "+r"(i));
	return 3 * i;
}

TRACED long fib(long n)
{
	long a, b;

	if (n < 2)
		return n;
	a = fib(n - 1);
	b = fib(n - 2);
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}

TRACED long args6(long a, long b, long c, long d, long e, long f)
{
	__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e),
		       "+r"(f));
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f;
}

static void *worker(void *arg)
{
	char name[16];
	long bad = 0;

	snprintf(name, sizeof(name), "wl-worker-%d", (int)(long)arg);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (long i = 0; i < WORK_A_CALLS; i++)
		bad += work_a(i) != 2 * i + 1;
	for (long i = 0; i < WORK_B_CALLS; i++)
		bad += work_b(i) != 3 * i;
	bad += fib(FIB_N) != 55;
	bad += args6(11, 22, 33, 44, 55, 66) != 1001;
	for (int i = 0; i < WL_LIB_CALLS; i++)
		bad += wl_lib_add(i, 1000) != i + 1000;
	return (void *)bad;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	int wait_stdin = 0, wait_signal = 0;
	long delay_ms = 0, bad = 0;
	sigset_t set;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--wait-stdin") == 0) {
			wait_stdin = 1;
		} else if (strcmp(argv[i], "--wait-signal") == 0) {
			wait_signal = 1;
		} else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc) {
			delay_ms = atol(argv[++i]);
		} else {
			fprintf(stderr,
				"usage: %s [--wait-stdin|--wait-signal|--delay-ms N]\n",
				argv[0]);
			return 2;
		}
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (wait_signal)
		sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (wait_stdin) {
		char buf[64];

		if (!fgets(buf, sizeof(buf), stdin))
			clearerr(stdin);
	}
	if (wait_signal) {
		int sig;

		sigwait(&set, &sig);
	}
	if (delay_ms > 0) {
		struct timespec ts = { delay_ms / 1000,
				       (delay_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}

	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++) {
		void *r;

		pthread_join(th[i], &r);
		bad += (long)r;
	}
	printf("done\n");
	fflush(stdout);
	return bad ? 1 : 0;
}
