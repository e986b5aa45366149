// SPDX-License-Identifier: MIT
/*
 * kstackwl - a thread that blocks in three kernel paths in turn, for the
 * test of the kernel stacks found again at blocks (test_kstack_cache.py,
 * bpf/kstack_cache.bpf.h): thread "blocker" runs ROUNDS rounds of
 * wait_pipe (read(2) of a pipe), wait_sock (read(2) of a unix socket: the
 * same system call, another path) and wait_sleep (nanosleep). Before each
 * read it asks thread "feeder" (a byte on a request pipe), which sleeps
 * 2 ms, so that the read has blocked, then writes the byte it waits for.
 *
 * usage: kstackwl [ROUNDS]   (default 60; prints "blocker tid=N rounds=N")
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int req[2], pipe_fds[2], sock_fds[2];
static int rounds = 60;
/* counted after each wait, so that no wait_* ends in a tail call (its
 * frame must be on the stack for the test to tell the paths apart) */
static volatile int waits;

static void nap_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* asks the feeder for a byte on fd, then reads it */
static __attribute__((noinline)) void read_from(int fd, int feed_fd)
{
	char c = 0;

	if (write(req[1], &feed_fd, sizeof(feed_fd)) != sizeof(feed_fd) ||
	    read(fd, &c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) void wait_pipe(void)
{
	read_from(pipe_fds[0], pipe_fds[1]);
	waits++;
}

__attribute__((noinline)) void wait_sock(void)
{
	read_from(sock_fds[0], sock_fds[1]);
	waits++;
}

__attribute__((noinline)) void wait_sleep(void)
{
	nap_ms(2);
	waits++;
}

static void *feeder(void *arg)
{
	int fd;
	char c = 'x';

	(void)arg;
	pthread_setname_np(pthread_self(), "feeder");
	while (read(req[0], &fd, sizeof(fd)) == sizeof(fd)) {
		nap_ms(2);
		if (write(fd, &c, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (pipe(req) || pipe(pipe_fds) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds) ||
	    pthread_create(&t, NULL, feeder, NULL))
		return 1;
	pthread_setname_np(pthread_self(), "blocker");
	for (int i = 0; i < rounds; i++) {
		wait_pipe();
		wait_sock();
		wait_sleep();
	}
	close(req[1]);
	pthread_join(t, NULL);
	printf("blocker tid=%d rounds=%d\n", gettid(), rounds);
	return 0;
}
