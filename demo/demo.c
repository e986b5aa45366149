/* SPDX-License-Identifier: MIT */
/*
 * demo - the bundled workload that the README's first command traces.
 *
 * A small pipeline of named threads: "producer" makes 4000 items, two
 * "worker-N" threads take them from a queue and run them through
 * stage_parse() and stage_checksum() (noinline, so uprobes can see each
 * call), and "logger" wakes every 20 ms to watch progress. It runs for
 * about half a second and exits 0, printing what it did.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define ITEMS 4000
#define QUEUE 64

static int queue[QUEUE];
static int q_head, q_tail, q_len, produced_all;
static long done;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;

__attribute__((noinline)) uint64_t stage_parse(int item)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 20000 + (item % 7) * 3000; i++)
		h = (h ^ (uint64_t)(item + i)) * 1099511628211ull;
	return h;
}

__attribute__((noinline)) uint64_t stage_checksum(uint64_t v)
{
	uint64_t s = 0;

	for (int i = 0; i < 1500; i++)
		s += (v >> (i % 64)) & 0xff;
	return s;
}

static void *producer(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "producer");
	for (int i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&mu);
		while (q_len == QUEUE)
			pthread_cond_wait(&not_full, &mu);
		queue[q_tail] = i;
		q_tail = (q_tail + 1) % QUEUE;
		q_len++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&mu);
		if (i % 20 == 0)
			usleep(2000);
	}
	pthread_mutex_lock(&mu);
	produced_all = 1;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static volatile uint64_t sink;

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "worker-%ld", (long)(intptr_t)arg);
	prctl(PR_SET_NAME, name);
	for (;;) {
		int item;

		pthread_mutex_lock(&mu);
		while (q_len == 0 && !produced_all)
			pthread_cond_wait(&not_empty, &mu);
		if (q_len == 0 && produced_all) {
			pthread_mutex_unlock(&mu);
			break;
		}
		item = queue[q_head];
		q_head = (q_head + 1) % QUEUE;
		q_len--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&mu);
		sink += stage_checksum(stage_parse(item));
		__atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *logger(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "logger");
	while (__atomic_load_n(&done, __ATOMIC_RELAXED) < ITEMS)
		usleep(20000);
	return NULL;
}

int main(void)
{
	pthread_t p, w1, w2, l;

	pthread_create(&l, NULL, logger, NULL);
	pthread_create(&w1, NULL, worker, (void *)1);
	pthread_create(&w2, NULL, worker, (void *)2);
	pthread_create(&p, NULL, producer, NULL);
	pthread_join(p, NULL);
	pthread_join(w1, NULL);
	pthread_join(w2, NULL);
	pthread_join(l, NULL);
	printf("demo: %d items through stage_parse and stage_checksum on 2 workers\n",
	       ITEMS);
	return 0;
}
