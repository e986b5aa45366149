// SPDX-License-Identifier: MIT
/*
 * selftrace - a program that records its own work with libftf while
 * ftf-bpf may trace it: a thread named "stepper" calls step() N times,
 * about a millisecond apart; inside, step() writes its own slice
 * ("own_step", category "app") around a short busy loop, stamped with a
 * calibrated TSC clock as ftf-bpf stamps its own (ftf_clock_init with
 * FTF_CLOCK_TSC), and named process and thread records.
 *
 * usage: selftrace N OUT.fxt   prints "pid=P tid=T" and waits for a line
 * on stdin (a tracer attaches meanwhile), then runs and writes OUT.fxt.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/writer.h"

static struct ftf_writer w;
static int thread_ref, cat_app, name_step, arg_i;
static volatile uint64_t sink;

static int check(int r, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "selftrace: %s: %s\n", what,
			ftf_writer_error(&w));
		exit(1);
	}
	return r;
}

/* The traced function: its own slice starts after its entry and ends
 * before its return, so it nests inside the uprobe slice of the call. */
__attribute__((noinline)) void step(int i)
{
	const struct ftf_clock *c = ftf_writer_clock(&w);

	check(ftf_write_duration_begin(&w, FTF_ARG_TYPES(1, 0, 0, 0, 0, 0),
				       thread_ref, cat_app, name_step,
				       ftf_clock_now(c)),
	      "begin");
	check(ftf_arg_int64(&w, arg_i, i), "arg");
	for (int k = 0; k < 20000; k++)
		sink += (uint64_t)k * (uint64_t)i;
	check(ftf_write_duration_end(&w, FTF_ARG_TYPES_NONE, thread_ref,
				     cat_app, name_step, ftf_clock_now(c)),
	      "end");
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct ftf_writer_options o = {.provider_name = "selftrace",
				       .num_temp_strs = -1};
	struct ftf_dest_file f;
	struct ftf_clock clock;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	char line[16];
	int n;

	if (argc != 3 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: selftrace N OUT.fxt\n");
		return 2;
	}
	prctl(PR_SET_NAME, "stepper");
	ftf_clock_init(&clock, FTF_CLOCK_TSC);
	o.clock = &clock;
	if (ftf_dest_file_open(&f, argv[2], 0)) {
		fprintf(stderr, "selftrace: %s\n", f.errmsg);
		return 1;
	}
	check(ftf_writer_init(&w, &f.base, &o), "init");
	/* ticks per second and a base pair, for readers and ftf-merge */
	check(ftf_make_and_write_tick_translation(&w), "tick translation");
	thread_ref =
		check(ftf_set_thread_slot(&w, 0, (uint64_t)pid, (uint64_t)tid),
		      "thread");
	cat_app = check(ftf_intern_string(&w, "app"), "intern");
	name_step = check(ftf_intern_string(&w, "own_step"), "intern");
	arg_i = check(ftf_intern_string(&w, "i"), "intern");
	check(ftf_set_process_name(&w, (uint64_t)pid,
				   ftf_intern_string(&w, "selftrace")),
	      "process name");
	check(ftf_set_thread_name(&w, (uint64_t)pid, (uint64_t)tid,
				  ftf_intern_string(&w, "stepper")),
	      "thread name");
	printf("pid=%d tid=%d clock=%s\n", pid, tid,
	       clock.source == FTF_CLOCK_TSC ? "tsc" : "mono");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = '\0';
	for (int i = 0; i < n; i++) {
		step(i);
		usleep(1000);
	}
	check(ftf_writer_close(&w), "close");
	return 0;
}
