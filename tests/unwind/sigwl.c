// SPDX-License-Identifier: MIT
/*
 * sigwl - the workload of test 'unwind signal': code interrupted by a
 * signal whose handler runs (and blocks) on the interrupted stack, built
 * with -O2 -fomit-frame-pointer so that only CFI walks it. Every
 * function is noinline and ends with an empty asm after its call, so
 * none is inlined or left by a tail call:
 *
 *   main -> spin_outer -> spin_middle -> spin_inner (a loop, until SIGS
 *       SIGPROF signals came)
 *   SIGPROF every 10 ms of CPU (ITIMER_PROF), its handler on_prof ->
 *       handler_spin (about 3 ms of CPU: the samples land there), and
 *       every 4th time on_prof -> handler_sleep -> nanosleep (1 ms off
 *       CPU)
 *
 * The kernel puts the signal frame (the interrupted registers, in a
 * ucontext) on the stack below spin_inner's frame, and the handler
 * returns into libc's __restore_rt, which calls rt_sigreturn: a stack
 * sampled in the handler is whole only through that frame.
 *
 * usage: sigwl SIGS; prints "signals N sleeps M" at the end.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define HANDLER_STEPS 3000000

static volatile sig_atomic_t signals, sleeps;
static volatile uint64_t sink;

__attribute__((noinline)) void handler_spin(void)
{
	uint64_t x = signals;

	for (int i = 0; i < HANDLER_STEPS; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	__asm__ volatile("");
}

__attribute__((noinline)) void handler_sleep(void)
{
	struct timespec ts = {0, 1000000};

	nanosleep(&ts, NULL);
	sleeps++;
	__asm__ volatile("");
}

__attribute__((noinline)) void on_prof(int sig)
{
	(void)sig;
	signals++;
	handler_spin();
	if (signals % 4 == 0)
		handler_sleep();
	__asm__ volatile("");
}

__attribute__((noinline)) uint64_t spin_inner(int want)
{
	uint64_t x = 1;

	while (signals < want)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	__asm__ volatile("");
	return x;
}

__attribute__((noinline)) uint64_t spin_middle(int want)
{
	uint64_t x = spin_inner(want);

	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) uint64_t spin_outer(int want)
{
	uint64_t x = spin_middle(want);

	__asm__ volatile("");
	return x + 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_prof, .sa_flags = SA_RESTART};
	struct itimerval it = {{0, 10000}, {0, 10000}};
	int want = argc > 1 ? atoi(argv[1]) : 100;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) ||
	    setitimer(ITIMER_PROF, &it, NULL)) {
		perror("sigwl");
		return 1;
	}
	sink = spin_outer(want);
	it = (struct itimerval){{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &it, NULL);
	printf("signals %d sleeps %d\n", (int)signals, (int)sleeps);
	return 0;
}
