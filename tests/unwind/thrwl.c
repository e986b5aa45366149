// SPDX-License-Identifier: MIT
/*
 * thrwl - the workload of test 'unwind thread starts': main ->
 * make_threads -> pthread_create (glibc: create_thread -> __clone_internal
 * -> clone3) in a loop, NTHREADS at a time, each thread returning at once
 * from worker, until the process used CPU_SECS seconds of CPU. Much of
 * that time is clone3's system call: a thread sampled in it, or as it
 * returns from it, has its user pc just past clone3's syscall
 * instruction, in the bytes where glibc's CFI ends on purpose (see
 * cfi_table.c's mark_clone_gaps), the parent with its whole stack under
 * it, the new thread with none.
 *
 * usage: thrwl CPU_SECS; prints "threads N" at the end.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define NTHREADS 4

static void *worker(void *arg)
{
	return arg;
}

static double cpu_secs(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

__attribute__((noinline)) long make_threads(double secs)
{
	pthread_t t[NTHREADS];
	long n = 0;

	while (cpu_secs() < secs) {
		for (int i = 0; i < NTHREADS; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				abort();
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(t[i], NULL);
		n += NTHREADS;
	}
	__asm__ volatile("");
	return n;
}

int main(int argc, char **argv)
{
	printf("threads %ld\n", make_threads(argc > 1 ? atof(argv[1]) : 1));
	return 0;
}
