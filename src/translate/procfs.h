/* SPDX-License-Identifier: MIT */
/*
 * procfs.h - the processes and threads alive now, read from /proc.
 *
 * For each thread: tid, tgid, comm (/proc/PID/task/TID/comm) and, for the
 * process, its raw cmdline (cut at FTFB_CMDLINE_MAX) and its name as
 * `ps -o args` shows it: the title it set (setproctitle: "postgres: 15/main:
 * checkpointer"), else the basename of the cmdline's first word (the name
 * to show when comm is truncated to 15 characters); "" for kernel threads.
 */
#ifndef FTFB_PROCFS_H
#define FTFB_PROCFS_H

#include <stdint.h>

#include "tr_types.h"

/* Called once per thread, the process's leader first. A non-zero return
 * stops the scan and is returned. */
typedef int (*ftfb_procfs_cb)(void *ctx, const struct ftfb_task_info *ti);

/* Every process and thread in /proc. Processes and threads that vanish
 * during the scan are skipped. 0, the callback's code, or -errno if /proc
 * cannot be read. */
int ftfb_procfs_scan(ftfb_procfs_cb cb, void *ctx);

/* One process (pid = its tgid) and all its threads. -ENOENT if it does not
 * exist. */
int ftfb_procfs_scan_pid(uint32_t pid, ftfb_procfs_cb cb, void *ctx);

/* An ftfb_lookup_fn: resolves any tid (thread or leader) through
 * /proc/TID/status (Tgid) and comm. ctx is unused. 0, or -ENOENT. */
int ftfb_procfs_lookup(void *ctx, uint32_t tid, struct ftfb_task_info *out);

/* The process name from a raw cmdline (NUL-separated): the whole first
 * argument if it has a space (a title the process set, as ps shows it),
 * else its basename, made safe (stacks/safe_name.h: a control byte or
 * invalid UTF-8 becomes '?'). out gets "" if there is none. */
void ftfb_procfs_name_from_cmdline(const char *cmdline, size_t len, char *out,
				   size_t outlen);

#endif
