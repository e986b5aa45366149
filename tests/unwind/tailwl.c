// SPDX-License-Identifier: MIT
/*
 * tailwl.c - one thread whose stack changes under a frame that stays in
 * the same state, for the on-CPU walks that end with their thread's last
 * walk's frames (bpf/utail.bpf.h; test_utail.py).
 *
 * main -> tail_deep (DEPTH levels of recursion, so that a walk has
 * frames worth not walking again) -> tail_round, which calls in turn,
 * for the CPU seconds given:
 *   tail_path_a -> tail_shared(tail_leaf_a)
 *   tail_path_b -> tail_shared(tail_leaf_b)
 * tail_path_a and tail_path_b are alike (the same frame size), so
 * tail_shared's frame is at the same sp with the same pc (past its
 * indirect call) on both paths: a walk taken in tail_leaf_b finds the
 * last walk's frame of tail_shared in its own state, but the return
 * address above it is tail_path_a's. Each leaf spins about 3 ms of CPU
 * time, so most samples follow one of the same leaf (frames found again)
 * and some follow the other's (frames refused). A sample in tail_leaf_a
 * under tail_path_b, or the reverse, is a wrong stack.
 *
 * Built twice: -O2 without frame pointers (CFI from the stack pointer:
 * the frames above are checked by their return addresses) and -O0 with
 * them (CFA from rbp: every word read, and rbp, checked).
 */
#include <stdio.h>
#include <stdlib.h>
#include "cpu_seconds.h"

#define DEPTH 12
#define LEAF_S 0.003

volatile unsigned long tail_sink;

__attribute__((noinline)) unsigned long tail_leaf_a(void)
{
	double end = cpu_s() + LEAF_S;
	unsigned long n = 0;

	while (cpu_s() < end)
		for (int i = 0; i < 200; i++)
			tail_sink += ++n;
	return n;
}

__attribute__((noinline)) unsigned long tail_leaf_b(void)
{
	double end = cpu_s() + LEAF_S;
	unsigned long n = 0;

	while (cpu_s() < end)
		for (int i = 0; i < 200; i++)
			tail_sink += ++n;
	return n + 1;
}

__attribute__((noinline)) unsigned long tail_shared(unsigned long (*leaf)(void))
{
	unsigned long r = leaf();

	tail_sink += r;
	return r + 1;
}

/* (the additions after the calls keep them calls, not jumps) */
__attribute__((noinline)) unsigned long tail_path_a(void)
{
	unsigned long r = tail_shared(tail_leaf_a);

	tail_sink += r;
	return r + 2;
}

__attribute__((noinline)) unsigned long tail_path_b(void)
{
	unsigned long r = tail_shared(tail_leaf_b);

	tail_sink += r;
	return r + 3;
}

__attribute__((noinline)) unsigned long tail_round(double secs)
{
	double end = cpu_s() + secs;
	unsigned long r = 0;

	while (cpu_s() < end)
		r += tail_path_a() + tail_path_b();
	return r;
}

__attribute__((noinline)) unsigned long tail_deep(int level, double secs)
{
	unsigned long r;

	if (level == 0)
		r = tail_round(secs);
	else
		r = tail_deep(level - 1, secs);
	tail_sink += r;
	return r + 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;

	printf("tailwl: %lu\n", tail_deep(DEPTH, secs));
	return 0;
}
