/* SPDX-License-Identifier: MIT */
/*
 * target.c - the traced process or command, and the output file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

#define PF_KTHREAD 0x00200000

int target_check_pid(int pid, char *err, size_t errlen)
{
	char path[64], buf[1024], *p;
	unsigned long flags = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen,
			 "pid %d does not exist: check it with ps, or trace a command with -- CMD",
			 pid);
		return -ESRCH;
	}
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* Field 9 is flags; skip "pid (comm)" first, comm may hold spaces. */
	if (p)
		p = strrchr(buf, ')');
	if (!p) {
		snprintf(err, errlen, "pid %d: cannot read %s", pid, path);
		return -EIO;
	}
	p += 2;
	for (i = 3; i < 9 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		flags = strtoul(p, NULL, 10);
	if (flags & PF_KTHREAD) {
		snprintf(err, errlen,
			 "pid %d is a kernel thread: -p takes a user process; use -a to see kernel threads' scheduling",
			 pid);
		return -EINVAL;
	}
	/* A thread id that is not a process (tgid) id: accept, its process
	 * is what gets traced; /proc/TID exists for threads too. */
	return 0;
}

int target_tgid(int pid)
{
	char path[64], line[256];
	int tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : pid;
}

bool target_is_script(const char *path, char *interp, size_t len)
{
	char line[256] = "";
	FILE *f = fopen(path, "re");
	bool script;

	if (!f)
		return false;
	script = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2);
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	snprintf(interp, len, "%s", script ? line + 2 : "");
	return script;
}

int target_resolve_cmd(const char *cmd, char *out, size_t outlen, char *err,
		       size_t errlen)
{
	const char *path, *p, *end;

	if (strchr(cmd, '/')) {
		struct stat st;

		if (access(cmd, X_OK)) {
			snprintf(err, errlen, "cannot start '%s': %s", cmd,
				 strerror(errno));
			return -errno;
		}
		/* (exec says "Permission denied" for a directory) */
		if (stat(cmd, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(err, errlen,
				 "cannot start '%s': it is a directory, not a program",
				 cmd);
			return -EISDIR;
		}
		if (!realpath(cmd, out)) {
			snprintf(out, outlen, "%s", cmd);
		}
		return 0;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; p && *p; p = end ? end + 1 : NULL) {
		char cand[PATH_MAX];
		struct stat st;
		size_t n;

		end = strchr(p, ':');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0 || n >= sizeof(cand) - 2 - strlen(cmd))
			continue;
		snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, cmd);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0) {
			snprintf(out, outlen, "%s", cand);
			return 0;
		}
	}
	snprintf(err, errlen,
		 "cannot start '%s': command not found on PATH (give a path such as ./%s)",
		 cmd, cmd);
	return -ENOENT;
}

int target_spawn(struct target_child *c, char **argv, char *err,
		 size_t errlen)
{
	int go[2], ex[2];
	pid_t pid;

	memset(c, 0, sizeof(*c));
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot create a pipe: %s",
			 strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot fork to start '%s': %s", argv[0],
			 strerror(e));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return -e;
	}
	if (pid == 0) {
		ssize_t n;
		char b;
		int e;

		close(go[1]);
		close(ex[0]);
		/* Wait for the parent to attach: a byte means go; EOF
		 * without it, that the tracer is gone (killed while it
		 * started): the command is not run untraced then. */
		while ((n = read(go[0], &b, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			_exit(127);
		close(go[0]);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0) {
			/* nothing left to tell */
		}
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = ex[0];
	return 0;
}

int target_release(struct target_child *c, const char *cmd, char *err,
		   size_t errlen)
{
	ssize_t n;
	int e = 0;

	/* (a pipe's write of one byte to a live reader does not fail) */
	if (write(c->go_fd, "g", 1) != 1) {
		/* the child is gone: its exec's error or status tells */
	}
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(c->pid, &c->status, 0);
		c->exited = true;
		snprintf(err, errlen, "cannot start '%s': %s", cmd,
			 strerror(e));
		return -e;
	}
	return 0;
}

void target_abort(struct target_child *c)
{
	if (c->pid <= 0 || c->exited)
		return;
	kill(c->pid, SIGKILL);
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	waitpid(c->pid, &c->status, 0);
	c->exited = true;
}

bool target_stop(struct target_child *c, int wait_ms)
{
	if (target_child_exited(c))
		return true;
	kill(c->pid, SIGTERM);
	for (int t = 0; t < wait_ms; t += 10) {
		if (target_child_exited(c))
			return true;
		usleep(10000);
	}
	return target_child_exited(c);
}

bool target_child_exited(struct target_child *c)
{
	if (c->exited)
		return true;
	if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->exited = true;
	return c->exited;
}

bool target_pid_gone(int pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	/* A zombie that its parent has not reaped yet has exited too. */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p)
		p = strrchr(buf, ')');
	return p && (p[2] == 'Z' || p[2] == 'X');
}
