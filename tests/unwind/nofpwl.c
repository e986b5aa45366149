// SPDX-License-Identifier: MIT
/*
 * nofpwl - the workload of the unwinding tests, built with -O2
 * -fomit-frame-pointer (as Debian builds its packages), its library
 * uwlib too; every function below is noinline and ends with an empty asm
 * after its call, so none is inlined or left by a tail call:
 *
 *   thread "spinner": spinner -> spin_a -> uwlib_spin (libuwlib.so)
 *       -> qsort (libc) -> ... -> spin_cmp, which burns about 1 ms of
 *       CPU per comparison (the samples land there), at least
 *       SPIN_ROUNDS sorts and on until main has done its writes
 *   thread "reader":  reader -> read_loop -> read_once -> read (libc),
 *       blocking on a pipe the main thread writes one byte into every
 *       5 ms, READS times, then closes
 *
 * At the end it prints what it did:
 *   spinner tid=T cpu_ns=N
 *   reader tid=T reads=K
 * Arguments: seconds to wait before the threads start (0: at once; "-":
 * until a line comes on stdin), and
 * the number of reads (default READS: 60, about 0.3 s of run).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "uwlib.h"

#define READS 60
#define NSORT 64
#define SPIN_ROUNDS 8 /* sorts of NSORT ints: some 3000 comparisons */

static volatile uint64_t sink;
static int pipefd[2];
static pid_t spinner_tid, reader_tid;
static uint64_t spin_cpu_ns;
static int reads;
static volatile int writing = 1; /* main still writes to the reader */

__attribute__((noinline)) int spin_cmp(const void *a, const void *b)
{
	uint64_t x = (uint64_t)(uintptr_t)a;

	for (int i = 0; i < 300000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) void spin_a(void)
{
	int v[NSORT];

	/* (on while the reader reads: -p attaching late still finds it) */
	for (int r = 0; r < SPIN_ROUNDS || writing; r++) {
		for (int i = 0; i < NSORT; i++)
			v[i] = (i * 7919 + r) % NSORT;
		uwlib_spin(v, NSORT, spin_cmp);
	}
	__asm__ volatile("" ::: "memory");
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void *spinner(void *arg)
{
	uint64_t c0;

	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	spinner_tid = gettid();
	c0 = thread_cpu_ns();
	spin_a();
	spin_cpu_ns = thread_cpu_ns() - c0;
	__asm__ volatile("" ::: "memory");
	return NULL;
}

__attribute__((noinline)) int read_once(void)
{
	char c;
	ssize_t n = read(pipefd[0], &c, 1);

	__asm__ volatile("" ::: "memory");
	return n == 1;
}

__attribute__((noinline)) void read_loop(void)
{
	while (read_once())
		reads++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *reader(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "reader");
	reader_tid = gettid();
	read_loop();
	__asm__ volatile("" ::: "memory");
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec gap = {0, 5000000L};
	int nreads = argc > 2 ? atoi(argv[2]) : READS;
	pthread_t s, r;

	char line[16];

	if (argc > 1 && strcmp(argv[1], "-") == 0) {
		/* a tracer attaching with -p says when: a fixed wait can be
		 * too short on a loaded machine */
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	} else if (argc > 1) {
		usleep((useconds_t)(atof(argv[1]) * 1e6));
	}
	if (pipe(pipefd) || pthread_create(&s, NULL, spinner, NULL) ||
	    pthread_create(&r, NULL, reader, NULL))
		return 1;
	for (int i = 0; i < nreads; i++) {
		nanosleep(&gap, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
	}
	close(pipefd[1]);
	writing = 0;
	pthread_join(r, NULL);
	pthread_join(s, NULL);
	printf("spinner tid=%d cpu_ns=%llu\n", (int)spinner_tid,
	       (unsigned long long)spin_cpu_ns);
	printf("reader tid=%d reads=%d\n", (int)reader_tid, reads);
	return 0;
}
