/* SPDX-License-Identifier: MIT */
/*
 * binary_find.h - the file a spec's BINARY part names (binary_find.c;
 * the spec's syntax: probespec.h).
 */
#ifndef FTFB_BINARY_FIND_H
#define FTFB_BINARY_FIND_H

#include <stdbool.h>
#include <stddef.h>

/* Finds the file for a BINARY part of a spec (path or name, see above);
 * writes a path openable from this process to @path. */
int ftfb_probespec_find_binary(const char *name, int pid, char *path,
			       size_t pathlen, char *errmsg, size_t errlen);

/* The target's main binary: main_binary (a name or path) when given,
 * else /proc/PID/exe's file; -EINVAL without either. */
int ftfb_probespec_main_binary(int pid, const char *main_binary, char *path,
			       size_t pathlen, char *errmsg, size_t errlen);

/* Process pid exists (its /proc entry). */
bool ftfb_pid_exists(int pid);

/* name in the RUNPATH (or RPATH) of main_binary, $ORIGIN expanded:
 * its path in out; 0 or -ENOENT. */
int ftfb_find_in_runpath(const char *main_binary, const char *name,
			 char *out, size_t outlen);

#endif
