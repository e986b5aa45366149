/* SPDX-License-Identifier: MIT */
/*
 * detach.c - the helper process that closes the BPF links last (see
 * detach.h for why a process and not a thread).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "detach.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Every descriptor from 3 up that is not kept (the trace file, the ring
 * buffers, a pipe the tool's caller reads), with close_range over the
 * gaps between the kept ones. */
static void close_others(const int *fds, size_t n, int wait_fd)
{
	int *keep = malloc((n + 1) * sizeof(*keep));
	unsigned int from = 3;

	if (!keep)
		return; /* they stay open until the helper exits: harmless */
	memcpy(keep, fds, n * sizeof(*keep));
	keep[n] = wait_fd;
	qsort(keep, n + 1, sizeof(*keep), cmp_int);
	for (size_t i = 0; i <= n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned int)keep[i] > from)
			close_range(from, (unsigned int)keep[i] - 1, 0);
		from = (unsigned int)keep[i] + 1;
	}
	close_range(from, ~0u, 0);
	free(keep);
}

/* No terminal: Ctrl-C and a hang-up go to the tool, not here, and the
 * output pipes of whoever ran the tool are not held open. */
static void leave_terminal(void)
{
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}

/*
 * Fault injection for the tests: FTFB_FAULT_SLOW_DETACH_S=N makes the
 * helper hold the links N seconds more before it closes them, as a kernel
 * whose release takes that long would (seen: minutes, on a starved cpu;
 * not reproducible on demand). The fault suite checks with it that the
 * tool's stop never waits for the release.
 */
static void injected_delay(void)
{
	const char *s = getenv("FTFB_FAULT_SLOW_DETACH_S");
	unsigned int left = s ? (unsigned int)strtoul(s, NULL, 10) : 0;

	while (left)
		left = sleep(left);
}

static void helper_main(const int *fds, size_t n, int wait_fd)
{
	char b;

	prctl(PR_SET_NAME, FTFB_DETACHER_NAME, 0, 0, 0);
	leave_terminal();
	close_others(fds, n, wait_fd);
	/* EOF once the tool has closed its copies (or died) */
	while (read(wait_fd, &b, 1) < 0 && errno == EINTR)
		;
	injected_delay();
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	_exit(0);
}

int ftfb_detacher_start(struct ftfb_detacher *d, const int *fds, size_t n)
{
	int p[2];
	pid_t pid;

	d->pid = 0;
	d->release_fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		close(p[1]);
		helper_main(fds, n, p[0]);
	}
	close(p[0]);
	d->pid = pid;
	d->release_fd = p[1];
	return 0;
}

void ftfb_detacher_release(struct ftfb_detacher *d)
{
	if (d->release_fd >= 0)
		close(d->release_fd);
	d->release_fd = -1;
}
