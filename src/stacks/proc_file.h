/* SPDX-License-Identifier: MIT */
/*
 * proc_file.h - opens the file behind a traced process's mapping, as the
 * process maps it, without following anything its user placed.
 *
 * The process's user chooses what lies at every path it maps: a
 * look-alike bind-mounted over a library in its own mount namespace, a
 * FIFO or a device in place of a deleted file, a symlink out of its
 * container. So the file is reached through /proc/PID/map_files/START-END
 * (the kernel's own reference to the mapped file, whatever the namespace;
 * needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), else by its name inside
 * /proc/PID/root, resolved in that root, and kept only if its device and
 * inode are the ones /proc/PID/maps shows. Either way it is first opened
 * O_PATH (no open of a device or FIFO happens), checked to be a regular
 * file under FTFB_PROC_FILE_MAX bytes, and only then opened to read
 * (O_RDONLY | O_NONBLOCK | O_CLOEXEC).
 */
#ifndef FTFB_PROC_FILE_H
#define FTFB_PROC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Larger mapped files are not read (symbols, unwind tables, CPython's
 * symbols): the largest binaries with their debug info stay below. */
#define FTFB_PROC_FILE_MAX (2ULL << 30)

/* One line of /proc/PID/maps. */
struct ftfb_maps_line {
	uint64_t start, end, pgoff;
	uint64_t dev; /* major << 32 | minor, as maps prints them */
	uint64_t ino;
	char perms[5];
	const char *name; /* into the line: to its end (spaces and a
			   * " (deleted)" suffix kept), "" if anonymous */
};

/* Parses line (its newline removed in place): false if it is not a maps
 * line. */
bool ftfb_maps_line_parse(char *line, struct ftfb_maps_line *out);

/* Whether st is the file maps names by dev (major << 32 | minor) and
 * ino. */
bool ftfb_same_file(const struct stat *st, uint64_t dev, uint64_t ino);

/* An O_PATH fd of name resolved inside tgid's root, as the process
 * would see it (its symlinks followed, unless resolve adds openat2's
 * RESOLVE_NO_SYMLINKS; never a magic link), or -errno. */
int ftfb_proc_path_at(uint32_t tgid, const char *name, uint64_t resolve);

/* The mapped file of line l of /proc/TGID/maps, opened to read: an fd,
 * or -errno: -ENOENT (gone), -ESTALE (the path names another file than
 * the one mapped),
 * -ENOEXEC (not a regular file), -EFBIG
 * (over FTFB_PROC_FILE_MAX). tgid 0: this process. */
int ftfb_proc_file_open(uint32_t tgid, const struct ftfb_maps_line *l);

/* The file of line l of the maps of a process that is gone (no
 * map_files, no root to resolve in): name resolved from this process's
 * root without following any symbolic link, kept only if its device and
 * inode are l's (in a container, another file: -ESTALE) and it is a
 * regular file; an fd or -errno. A name the kernel marks deleted is not
 * looked up (its inode may be another file's now). */
int ftfb_gone_file_open(const struct ftfb_maps_line *l);

/* Opens what path_fd (an O_PATH fd) names to read, if st (its fstat)
 * is a regular file of at most max bytes: an fd or -errno (-ENOEXEC,
 * -EFBIG). path_fd is left open. */
int ftfb_reopen_regular(int path_fd, const struct stat *st, uint64_t max);

#endif
