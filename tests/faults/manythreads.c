// SPDX-License-Identifier: MIT
/*
 * manythreads - starts and ends THREADS threads (BATCH alive at a time);
 * thread i renames itself RENAMES times, to "n%05d" of v = i * RENAMES + j,
 * and after each rename calls the noinline function mark(v). So a trace
 * of `-u mark --args 1` must hold THREADS * RENAMES slices, the one with
 * arg0 = v on the tid of thread v / RENAMES, named "n%05d" % v at the time.
 * Prints "threads=N renames=R" then one "i tid" line per thread.
 *
 * usage: manythreads THREADS RENAMES [BATCH]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static int renames;

__attribute__((noinline)) long mark(long v)
{
	__asm__ volatile("" ::: "memory");
	return v;
}

struct worker {
	pthread_t th;
	int index;
	pid_t tid;
};

static void *run(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	for (int j = 0; j < renames; j++) {
		long v = (long)w->index * renames + j;
		char name[24];

		snprintf(name, sizeof(name), "n%05ld", v);
		name[15] = 0;
		prctl(PR_SET_NAME, name, 0, 0, 0);
		mark(v);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n, batch = 8;
	struct worker *w;

	if (argc < 3) {
		fprintf(stderr, "usage: manythreads THREADS RENAMES [BATCH]\n");
		return 2;
	}
	n = atoi(argv[1]);
	renames = atoi(argv[2]);
	if (argc > 3)
		batch = atoi(argv[3]);
	if (n < 1 || renames < 1 || batch < 1)
		return 2;
	w = calloc((size_t)n, sizeof(*w));
	if (!w)
		return 1;
	for (int i = 0; i < n; i += batch) {
		int end = i + batch < n ? i + batch : n;

		for (int k = i; k < end; k++) {
			w[k].index = k;
			if (pthread_create(&w[k].th, NULL, run, &w[k])) {
				perror("pthread_create");
				return 1;
			}
		}
		for (int k = i; k < end; k++)
			pthread_join(w[k].th, NULL);
	}
	printf("threads=%d renames=%d\n", n, renames);
	for (int i = 0; i < n; i++)
		printf("%d %d\n", i, (int)w[i].tid);
	free(w);
	return 0;
}
