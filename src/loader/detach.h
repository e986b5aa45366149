/* SPDX-License-Identifier: MIT */
/*
 * src/detach.h - release BPF links in a helper process, off the tool's
 * exit path.
 *
 * Closing the last descriptor of a uprobe link waits in the kernel for an
 * SRCU grace period (bpf_uprobe_multi_link_release -> synchronize_srcu),
 * and on a machine whose cpu is starved that wait has been seen to last
 * minutes. A thread cannot take that wait away from the exit: a process
 * is not reaped (its shell keeps waiting) until every thread has left the
 * kernel, and an exiting process closes its files itself. So the tool
 * forks a small helper that holds a copy of every link descriptor; the
 * tool then closes its own copies (never the last ones: they return at
 * once) and exits, and the helper closes its copies, the last ones, once
 * the tool is gone, however long the kernel takes. Recording has stopped
 * before (the programs return at once until the links go).
 */
#ifndef FTFB_DETACH_H
#define FTFB_DETACH_H

#include <stddef.h>
#include <sys/types.h>

struct ftfb_detacher {
	pid_t pid;	/* the helper, 0 if none */
	int release_fd; /* write end: the helper starts when it closes */
};

/* The helper's name in ps and /proc/PID/comm. */
#define FTFB_DETACHER_NAME "ftf-bpf-detach"

/*
 * Forks the helper, which keeps only fds[0..n-1] (and no terminal: its
 * stdin, stdout and stderr are /dev/null, so a pipe reader of the tool's
 * output sees its end when the tool exits), waits until
 * ftfb_detacher_release() or the tool's exit, closes them and exits.
 * 0, or -errno (no helper: the caller closes the links itself).
 */
int ftfb_detacher_start(struct ftfb_detacher *d, const int *fds, size_t n);

/* Lets the helper close its copies: call once every copy of the tool's
 * own is closed, so the helper's are the last ones. */
void ftfb_detacher_release(struct ftfb_detacher *d);

#endif
