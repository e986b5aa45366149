// SPDX-License-Identifier: MIT
/*
 * evwl - workloads with known counts for --events (tests/integration/
 * test_events.py). Each prints its thread id and what it measured on
 * stdout, so the test compares the trace with the workload's own numbers.
 *
 *   evwl io FILE N     N O_DIRECT pwrite()s of 64 KiB to FILE (which the
 *                      test made, N * 64 KiB long), each followed by
 *                      fdatasync(), then N O_DIRECT pread()s of them back
 *   evwl mem STEPS MB  STEPS times: map MB MiB anonymous, touch every page;
 *                      after each step print the time and RssAnon (kB)
 *   evwl fault FILE N  map FILE (N pages, not in the page cache: dropped
 *                      with posix_fadvise), MADV_RANDOM (no readahead),
 *                      read one byte of each page: N major faults; print
 *                      the change of ru_majflt, and of ru_nvcsw (the faults
 *                      that slept: a read done before the fault waits
 *                      for it costs no sleep)
 *   evwl wake N        thread "sleeper" waits N times on a pipe; the main
 *                      thread wakes it each time from waker_writes()
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define IO_BYTES (64 * 1024)

static long tid(void)
{
	return syscall(SYS_gettid);
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int die(const char *what)
{
	perror(what);
	return 1;
}

static int do_io(const char *path, int n)
{
	void *buf;
	int fd = open(path, O_RDWR | O_DIRECT);

	if (fd < 0)
		return die(path);
	if (posix_memalign(&buf, 4096, IO_BYTES))
		return die("posix_memalign");
	memset(buf, 0x5a, IO_BYTES);
	printf("tid=%ld bytes=%d\n", tid(), IO_BYTES);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if (pwrite(fd, buf, IO_BYTES, (off_t)i * IO_BYTES) != IO_BYTES)
			return die("pwrite");
		if (fdatasync(fd))
			return die("fdatasync");
	}
	for (int i = 0; i < n; i++)
		if (pread(fd, buf, IO_BYTES, (off_t)i * IO_BYTES) != IO_BYTES)
			return die("pread");
	close(fd);
	free(buf);
	return 0;
}

static long rss_anon_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int do_mem(int steps, int mb)
{
	size_t len = (size_t)mb << 20;

	printf("tid=%ld\n", tid());
	for (int i = 0; i < steps; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return die("mmap");
		madvise(p, len, MADV_NOHUGEPAGE); /* counted page by page */
		for (size_t o = 0; o < len; o += 4096)
			p[o] = 1;
		/* the counter's value now, then time passes with no change */
		printf("step=%d ns=%llu rss_anon_kb=%ld\n", i, mono_ns(),
		       rss_anon_kb());
		fflush(stdout);
		usleep(20000);
	}
	return 0;
}

static int do_fault(const char *path, int n)
{
	struct rusage before, after;
	volatile char sum = 0;
	size_t len = (size_t)n * 4096;
	int fd = open(path, O_RDONLY);
	char *p;

	if (fd < 0)
		return die(path);
	if (posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED))
		return die("posix_fadvise");
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return die("mmap");
	if (madvise(p, len, MADV_RANDOM))
		return die("madvise");
	getrusage(RUSAGE_THREAD, &before);
	for (size_t o = 0; o < len; o += 4096)
		sum += p[o];
	(void)sum; /* (read: each access is the fault) */
	getrusage(RUSAGE_THREAD, &after);
	/* the faults that slept: the loop sleeps nowhere else */
	printf("tid=%ld majflt=%ld slept=%ld\n", tid(),
	       after.ru_majflt - before.ru_majflt,
	       after.ru_nvcsw - before.ru_nvcsw);
	munmap(p, len);
	close(fd);
	return 0;
}

static int wake_pipe[2], ack_pipe[2];

/* the sleeper's sleeps in its loop (ru_nvcsw): each ended by a wakeup */
static long slept;

static void *sleeper(void *arg)
{
	struct rusage before, after;
	int n = *(int *)arg;
	char c;

	pthread_setname_np(pthread_self(), "sleeper");
	getrusage(RUSAGE_THREAD, &before);
	for (int i = 0; i < n; i++) {
		if (read(wake_pipe[0], &c, 1) != 1 || write(ack_pipe[1], &c, 1) != 1)
			break;
	}
	getrusage(RUSAGE_THREAD, &after);
	slept = after.ru_nvcsw - before.ru_nvcsw;
	printf("sleeper=%ld slept=%ld\n", tid(), slept);
	return NULL;
}

/* The write itself. libc's write() keeps no frame pointer, so a
 * frame-pointer walk from inside it skips its caller (this function):
 * the caller's caller, waker_writes(), is the frame the test looks for. */
__attribute__((noinline)) void wake_write(void)
{
	char c = 'w';

	if (write(wake_pipe[1], &c, 1) != 1)
		perror("write");
	__asm__ volatile("" ::: "memory");
}

/* the function the waker stacks must name (not inlined) */
__attribute__((noinline)) void waker_writes(void)
{
	wake_write();
	__asm__ volatile("" ::: "memory");
}

static int do_wake(int n)
{
	pthread_t th;
	char c;

	if (pipe(wake_pipe) || pipe(ack_pipe))
		return die("pipe");
	pthread_create(&th, NULL, sleeper, &n);
	/* the tracer builds this process's unwind tables when its first
	 * stack (this nap's) asks for them: the waker stacks come after */
	usleep(2000000);
	for (int i = 0; i < n; i++) {
		usleep(2000); /* the sleeper is asleep in read() by then */
		waker_writes();
		if (read(ack_pipe[0], &c, 1) != 1)
			return die("read");
	}
	pthread_join(th, NULL);
	printf("waker=%ld\n", tid());
	/* alive while the tracer names the stacks' user frames from its
	 * maps (read as the samples are written, a poll later) */
	usleep(1500000);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "io"))
		return do_io(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "mem"))
		return do_mem(atoi(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "fault"))
		return do_fault(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "wake"))
		return do_wake(atoi(argv[2]));
	fprintf(stderr, "usage: evwl io FILE N | mem STEPS MB | fault FILE N | wake N\n");
	return 2;
}
