/* SPDX-License-Identifier: MIT */
/*
 * target.h - what ftf-bpf traces: checks on -p PID, starting -- CMD held
 * at the exec until the probes are attached.
 */
#ifndef FTFB_TARGET_H
#define FTFB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* 0 if pid is a live user process; else -errno and one line in err
 * (gone, a kernel thread, ...). */
int target_check_pid(int pid, char *err, size_t errlen);

/* The process (tgid) of a thread id; pid itself if it is a process or
 * cannot be read. */
int target_tgid(int pid);

/* Whether the file at path is a script ("#!" first): its interpreter
 * line (without "#!", cut to fit) in interp. */
bool target_is_script(const char *path, char *interp, size_t len);

/* Resolves CMD like execvp() would (PATH search). Returns 0 and the path
 * in out, or -errno and one line in err. */
int target_resolve_cmd(const char *cmd, char *out, size_t outlen, char *err,
		       size_t errlen);

struct target_child {
	pid_t pid;
	int go_fd;   /* write end: a byte on it lets the child exec (EOF alone
		      * makes it exit: the tracer died before the start) */
	int err_fd;  /* read end: the child's exec errno, or EOF on success */
	bool exited;
	int status;  /* wait status once exited */
};

/* Forks a child that waits before exec'ing argv. Returns 0 or -errno. */
int target_spawn(struct target_child *c, char **argv, char *err,
		 size_t errlen);
/* Lets the child exec; returns 0, or -errno with one line in err if the
 * exec failed (the child is reaped). */
int target_release(struct target_child *c, const char *cmd, char *err,
		   size_t errlen);
/* Kills and reaps a child that was never released. */
void target_abort(struct target_child *c);
/* Non-blocking: true once the child has exited (status recorded). */
bool target_child_exited(struct target_child *c);

/* The trace stopped while the command still runs (-d, Ctrl-C, SIGTERM):
 * as perf record does, it gets SIGTERM, and is waited for up to wait_ms.
 * True once it exited (c->status set), false if it still runs. */
bool target_stop(struct target_child *c, int wait_ms);
/* Non-blocking: true once pid no longer exists. */
bool target_pid_gone(int pid);

#endif
