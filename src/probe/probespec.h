/* SPDX-License-Identifier: MIT */
/*
 * probespec.h - resolve a -u SPEC to functions and their file offsets.
 *
 * Forms:
 *   FUNC            a name or fnmatch glob in the target's main binary
 *   BINARY:FUNC     BINARY is a path (contains '/') or a name: first a file
 *                   mapped by the target (/proc/PID/maps, basename equal to
 *                   the name or the name followed by '.' or '-DIGIT', so
 *                   "libc" finds libc.so.6 and "python3" python3.11), then
 *                   PATH, then the dynamic linker's search path
 *                   (LD_LIBRARY_PATH, /etc/ld.so.cache, standard dirs).
 *                   Names starting with "lib" try the linker's path before
 *                   PATH.
 *   BINARY:0xOFF    a raw file offset in BINARY
 * C++ names contain "::": the spec is split at the first ':' that is not
 * part of a "::", so "ns::f" is a function and "libfoo:ns::f" is FUNC
 * "ns::f" in libfoo.
 *
 * Matching: a symbol matches when the glob matches its name, one of its
 * aliases, the demangled form of either, or the demangled form without its
 * parameter list ("ns::f" matches "ns::f(int)"). Each matching address is
 * returned once, named by the name that matched.
 *
 * With a pid, the target's files are opened through /proc/PID/root (when
 * its root differs from ours) so containers work; a deleted mapped file
 * through /proc/PID/map_files.
 *
 * Errors (negative errno, one line in errmsg):
 *   -ESRCH   "pid 123 does not exist", "pid 2 has no executable (kernel thread?)"
 *   -ENOENT  "no function matches 'prase_*' in /usr/bin/foo; closest:
 *            parse_args, parse_line", "'libfoo' is not a library mapped by
 *            pid 123 nor found on the linker's search path", "/x: No such
 *            file or directory"
 *   -ENOEXEC "/tmp/x: not an ELF file", "/tmp/x: truncated ELF file"
 *   -EINVAL  malformed spec, bare FUNC without a target, offset past EOF
 */
#ifndef FTFB_PROBESPEC_H
#define FTFB_PROBESPEC_H

#include <stdio.h>

#include "binary_find.h"
#include "elfsym.h"

/* Resolves one -u SPEC. pid: the target (0 if none). main_binary: the
 * target's executable when known (e.g. the -- command resolved on PATH),
 * else NULL (then /proc/PID/exe is used when pid > 0). On success @out
 * holds at least one entry; on error it is empty. */
int ftfb_probespec_resolve(const char *spec, int pid, const char *main_binary,
			   struct ftfb_symlist *out, char *errmsg,
			   size_t errlen);

/* Resolves @spec and prints one line per function:
 * "NAME\tBINARY\t0xOFFSET\tSIZE\n" (NAME demangled when mangled). Returns
 * the number of functions printed or a negative errno (errmsg set). */
int ftfb_probespec_list(FILE *f, const char *spec, int pid,
			const char *main_binary, char *errmsg, size_t errlen);

/* Prints @l in the format above. */
void ftfb_symlist_print(FILE *f, const struct ftfb_symlist *l);

/* Edit distance between a glob and a name: '*' matches any run of
 * characters and '?' / '[...]' any one character for free; each other
 * pattern character costs 1 to substitute, insert or delete. Used for
 * "closest:" suggestions. */
int ftfb_glob_distance(const char *pattern, const char *name);

#endif /* FTFB_PROBESPEC_H */
