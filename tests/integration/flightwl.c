// SPDX-License-Identifier: MIT
/*
 * flightwl - the flight recorder's workload: THREADS threads named
 * "freq1".. call tick() every millisecond for SECONDS seconds; a thread
 * named "rare" calls rare() once, at RARE_AT seconds, and rare() takes 80
 * ms. At the end it prints, per frequent thread, "tick TID N" and then
 * the CLOCK_MONOTONIC time of each tick() call, one per line, and "rare
 * TID BEGIN END" with the rare call's times, so a test can count the calls
 * of any span of time exactly.
 *
 * usage: flightwl SECONDS RARE_AT [THREADS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 8

static double seconds, rare_at;
static uint64_t t_start;

struct ticker {
	pthread_t th;
	int idx;
	pid_t tid;
	uint64_t *ts;
	size_t n, cap;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) int tick(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) int rare(int ms)
{
	struct timespec d = { 0, ms * 1000000L };

	nanosleep(&d, NULL);
	__asm__ volatile("" ::: "memory");
	return ms;
}

static void *ticker_main(void *arg)
{
	struct ticker *t = arg;
	struct timespec ms = { 0, 1000000L };
	uint64_t end = t_start + (uint64_t)(seconds * 1e9);
	char name[16];

	snprintf(name, sizeof(name), "freq%d", t->idx + 1);
	pthread_setname_np(pthread_self(), name);
	t->tid = (pid_t)syscall(SYS_gettid);
	while (mono_ns() < end && t->n < t->cap) {
		/* the time just before the call: the entry is after it */
		t->ts[t->n++] = mono_ns();
		tick((int)t->n);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static pid_t rare_tid;
static uint64_t rare_begin, rare_end;

static void *rare_main(void *arg)
{
	uint64_t at = t_start + (uint64_t)(rare_at * 1e9);

	(void)arg;
	pthread_setname_np(pthread_self(), "rare");
	rare_tid = (pid_t)syscall(SYS_gettid);
	while (mono_ns() < at)
		usleep(1000);
	rare_begin = mono_ns();
	rare(80);
	rare_end = mono_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	struct ticker t[MAX_THREADS];
	pthread_t r;
	int n;

	if (argc < 3) {
		fprintf(stderr, "usage: flightwl SECONDS RARE_AT [THREADS]\n");
		return 2;
	}
	seconds = atof(argv[1]);
	rare_at = atof(argv[2]);
	n = argc > 3 ? atoi(argv[3]) : 3;
	if (n < 1 || n > MAX_THREADS)
		n = 3;
	t_start = mono_ns();
	for (int i = 0; i < n; i++) {
		t[i].idx = i;
		t[i].n = 0;
		t[i].cap = (size_t)(seconds * 1000) + 16;
		t[i].ts = calloc(t[i].cap, sizeof(uint64_t));
		if (!t[i].ts)
			return 1;
		pthread_create(&t[i].th, NULL, ticker_main, &t[i]);
	}
	pthread_create(&r, NULL, rare_main, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i].th, NULL);
	pthread_join(r, NULL);
	printf("rare %d %llu %llu\n", (int)rare_tid,
	       (unsigned long long)rare_begin, (unsigned long long)rare_end);
	for (int i = 0; i < n; i++) {
		printf("tick %d %zu\n", (int)t[i].tid, t[i].n);
		for (size_t j = 0; j < t[i].n; j++)
			printf("%llu\n", (unsigned long long)t[i].ts[j]);
		free(t[i].ts);
	}
	/* an ASan leak report would end the process before stdio's flush
	 * at exit and cut the list short: nothing is left to leak, and the
	 * list is out before anything else can go wrong */
	fflush(stdout);
	return 0;
}
