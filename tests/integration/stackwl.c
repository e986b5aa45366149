// SPDX-License-Identifier: MIT
/*
 * stackwl - the workload of the --stacks tests: thread "spinner" spins in
 * spin_fn() until it has used SPIN_MS of CPU time; thread "sleeper", in
 * sleep_loop(), blocks at least NAPS times in nanosleep() (through
 * block_once()), and on until the spinner is done, so the end of the run
 * (a flight recorder's last window) always holds naps, however long a
 * starved spinner takes.
 * Both measure themselves and print, at the end:
 *   spinner tid=T cpu_ns=N          the spinner's CPU time while spinning
 *   sleeper tid=T slept_ns=N naps=K the time spent inside nanosleep()
 * Built with frame pointers (the BPF unwinder walks them). An argument:
 * seconds to wait before the threads start, or "-" to wait for a line on
 * stdin.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define SPIN_MS 1000
#define NAPS 100
#define NAP_NS 10000000L

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;
static uint64_t spin_cpu_ns, slept_ns;
static pid_t spinner_tid, sleeper_tid;
static int naps;
static volatile int spinner_done;

/* Spins until the thread used SPIN_MS of CPU (at most 20 s of wall
 * time on a loaded machine). */
__attribute__((noinline)) void spin_fn(void)
{
	uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t w0 = clock_ns(CLOCK_MONOTONIC), x = 1;

	for (;;) {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		sink = x;
		spin_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (spin_cpu_ns >= SPIN_MS * 1000000ull ||
		    clock_ns(CLOCK_MONOTONIC) - w0 > 20000000000ull)
			break;
	}
}

__attribute__((noinline)) void block_once(void)
{
	struct timespec ts = {0, NAP_NS};
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	nanosleep(&ts, NULL);
	slept_ns += clock_ns(CLOCK_MONOTONIC) - t0;
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void sleep_loop(void)
{
	for (naps = 0; naps < NAPS || !spinner_done; naps++)
		block_once();
	__asm__ volatile("" ::: "memory");
}

static void *spinner(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "spinner");
	spinner_tid = gettid();
	spin_fn();
	spinner_done = 1;
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "sleeper");
	sleeper_tid = gettid();
	sleep_loop();
	return NULL;
}

/* argv[1]: seconds to wait first, or "-": wait for a line on stdin (for
 * a tracer to attach with -p: on a loaded machine attaching can take
 * longer than any fixed wait) */
int main(int argc, char **argv)
{
	pthread_t a, b;
	char line[16];

	if (argc > 1 && strcmp(argv[1], "-") == 0) {
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	} else if (argc > 1) {
		usleep((useconds_t)(atof(argv[1]) * 1e6));
	}
	if (pthread_create(&a, NULL, spinner, NULL) ||
	    pthread_create(&b, NULL, sleeper, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("spinner tid=%d cpu_ns=%llu\n", (int)spinner_tid,
	       (unsigned long long)spin_cpu_ns);
	printf("sleeper tid=%d slept_ns=%llu naps=%d\n", (int)sleeper_tid,
	       (unsigned long long)slept_ns, naps);
	return 0;
}
