// SPDX-License-Identifier: MIT
/*
 * self-trace - a program that records its own work with libftf.
 *
 * A thread named "stepper" runs STEPS timed steps (each spins for BUSY_US,
 * then sleeps for SLEEP_US) and writes one slice per step, "step" with
 * the step's index, on its own thread of a process named "self-trace".
 * The timestamps are the calibrated TSC ticks ftf-bpf uses, and the trace
 * starts with the same 4-word initialization record (ticks per second and
 * a wall-clock base), so this trace and an ftf-bpf trace of the same run
 * share one tick domain.
 *
 * The work of a step is the function selftrace_step(), kept out of line
 * so that `ftf-bpf -u selftrace_step -- self-trace` sees every call: the
 * program's own slice of step i and the uprobe slice of the same call
 * then start a few instructions apart.
 *
 * Built in the tree (build/examples/self-trace) and, by the install test,
 * outside it against the installed library with only
 *   cc self_trace.c $(pkg-config --cflags --libs libftf) -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ftf/clock.h>
#include <ftf/destination.h>
#include <ftf/writer.h>

struct steps {
	struct ftf_writer w;
	struct ftf_clock clock;
	unsigned long count, busy_us, sleep_us;
	uint64_t tid;
	/* string ids: "self-trace" (the process, its main thread and the
	 * slices' category), "stepper", "step" (the slices and their arg) */
	int s_self, s_stepper, s_step;
	int err; /* the stepper's first writer error, or 0 */
};

/* One step's work: spin `busy_us`, then sleep `sleep_us`. Not inlined
 * and not static, so a uprobe finds it by name. */
__attribute__((noinline)) void selftrace_step(unsigned long i,
					      const struct steps *s)
{
	uint64_t end = ftf_clock_now(&s->clock) +
		       ftf_clock_ns_to_ticks_span(&s->clock, s->busy_us * 1000);
	struct timespec nap = {.tv_sec = (time_t)(s->sleep_us / 1000000),
			       .tv_nsec = (long)(s->sleep_us % 1000000) * 1000};

	(void)i;
	while (ftf_clock_now(&s->clock) < end)
		;
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
}

/* Names this thread (for the kernel too, so ftf-bpf's name agrees) and
 * gives it a thread slot. Returns the thread ref or a negative error. */
static int register_thread(struct steps *s, int slot, const char *name,
			   int name_id)
{
	uint64_t pid = (uint64_t)getpid();
	int ref, err;

	pthread_setname_np(pthread_self(), name);
	ref = ftf_set_thread_slot(&s->w, slot, pid, (uint64_t)gettid());
	if (ref < 0)
		return ref;
	err = ftf_set_thread_name(&s->w, pid, (uint64_t)gettid(), name_id);
	return err < 0 ? err : ref;
}

/* The stepper: one slice per step, taken right around the call. */
static void *stepper(void *arg)
{
	struct steps *s = arg;
	int th, err = 0;

	s->tid = (uint64_t)gettid();
	th = register_thread(s, 1, "stepper", s->s_stepper);
	if (th < 0) {
		s->err = th;
		return NULL;
	}
	for (unsigned long i = 0; i < s->count && !err; i++) {
		uint64_t t0 = ftf_clock_now(&s->clock), t1;

		selftrace_step(i, s);
		t1 = ftf_clock_now(&s->clock);
		err = ftf_write_duration_complete(
			&s->w, FTF_ARG_TYPES(1, 0, 0, 0, 0, 0), th, s->s_self,
			s->s_step, t0, t1);
		if (!err)
			err = ftf_arg_int64(&s->w, s->s_step, (int64_t)i);
		/* a new buffer (and tick record) each second: a trace being
		 * written reads up to the last second */
		if (!err)
			err = ftf_refresh_buf_if_stale(&s->w, t1);
	}
	s->err = err;
	return NULL;
}

/* The trace's start: the tick domain, the strings, the process and its
 * main thread. */
static int write_prologue(struct steps *s)
{
	int err = ftf_make_and_write_tick_translation(&s->w);

	if (err)
		return err;
	s->s_self = ftf_intern_string(&s->w, "self-trace");
	s->s_stepper = ftf_intern_string(&s->w, "stepper");
	s->s_step = ftf_intern_string(&s->w, "step");
	if (s->s_self < 0 || s->s_stepper < 0 || s->s_step < 0)
		return -EIO;
	err = ftf_set_process_name(&s->w, (uint64_t)getpid(), s->s_self);
	if (err)
		return err;
	err = register_thread(s, 0, "self-trace", s->s_self);
	return err < 0 ? err : 0;
}

static int run(struct steps *s, const char *path)
{
	struct ftf_dest_file file;
	struct ftf_writer_options opts = {
		.provider_name = "self-trace",
		.num_temp_strs = -1,
		.clock = &s->clock,
	};
	pthread_t thread;
	int err;

	if (ftf_dest_file_open(&file, path, 0)) {
		fprintf(stderr, "self-trace: %s\n", file.errmsg);
		return 1;
	}
	err = ftf_writer_init(&s->w, &file.base, &opts);
	if (!err)
		err = write_prologue(s);
	/* The writer is the stepper's until it is joined. */
	if (!err && (err = -pthread_create(&thread, NULL, stepper, s)) == 0) {
		pthread_join(thread, NULL);
		err = s->err;
	}
	if (err) {
		fprintf(stderr, "self-trace: writing %s: %s\n", path,
			ftf_writer_error(&s->w)[0] ? ftf_writer_error(&s->w)
						   : "cannot start a thread");
		ftf_writer_close(&s->w);
		return 1;
	}
	if (ftf_writer_close(&s->w)) {
		fprintf(stderr, "self-trace: closing %s: %s\n", path,
			ftf_writer_error(&s->w));
		return 1;
	}
	printf("self-trace: %lu steps (%lu us busy + %lu us asleep) on "
	       "thread %llu of pid %d, clock %s; trace in %s\n",
	       s->count, s->busy_us, s->sleep_us, (unsigned long long)s->tid,
	       getpid(), s->clock.source == FTF_CLOCK_TSC ? "TSC" : "monotonic",
	       path);
	return 0;
}

static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' || *out > max ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: self-trace [-o FILE] [-n STEPS] [-b BUSY_US] [-s "
		   "SLEEP_US]\n"
		   "Records its own work with libftf: a thread \"stepper\" "
		   "runs STEPS\n"
		   "steps (default 20), each spinning BUSY_US (default 2000) "
		   "then\n"
		   "sleeping SLEEP_US (default 3000) in selftrace_step(), one "
		   "slice\n"
		   "\"step\" each, stamped with the calibrated TSC as ftf-bpf "
		   "does.\n"
		   "  -o FILE      the trace (default self-trace.fxt)\n"
		   "  -n STEPS     how many steps (default 20)\n"
		   "  -b BUSY_US   microseconds of spinning per step (default "
		   "2000)\n"
		   "  -s SLEEP_US  microseconds of sleep per step (default "
		   "3000)\n"
		   "  -h           this text\n");
}

int main(int argc, char **argv)
{
	static struct steps s = {
		.count = 20, .busy_us = 2000, .sleep_us = 3000};
	const char *path = "self-trace.fxt";
	int c, bad = 0;

	while ((c = getopt(argc, argv, "o:n:b:s:h")) != -1) {
		switch (c) {
		case 'o':
			path = optarg;
			break;
		case 'n':
			bad |= parse_count(optarg, 10000000, &s.count);
			break;
		case 'b':
			bad |= parse_count(optarg, 10000000, &s.busy_us);
			break;
		case 's':
			bad |= parse_count(optarg, 10000000, &s.sleep_us);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			bad = 1;
		}
	}
	if (bad || optind != argc) {
		fprintf(stderr, "self-trace: bad arguments (counts are whole "
				"numbers up to 10000000)\n");
		usage(stderr);
		return 2;
	}
	/* ~20 ms: the TSC's rate measured against the system clock */
	ftf_clock_init(&s.clock, FTF_CLOCK_TSC);
	if (s.clock.source != FTF_CLOCK_TSC)
		fprintf(stderr, "self-trace: TSC not used: %s\n",
			s.clock.fallback_reason);
	return run(&s, path);
}
