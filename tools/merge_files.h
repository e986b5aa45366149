/* SPDX-License-Identifier: MIT */
/*
 * merge_files.h - where ftf-merge reads and writes: inputs that can be
 * read only once (pipes, FIFOs) kept in a temporary file, and the output
 * written beside its name and put in place only when it is whole.
 */
#ifndef FTF_MERGE_FILES_H
#define FTF_MERGE_FILES_H

#include <limits.h>
#include <stddef.h>

/* ftf-merge reads each input twice (its clock first, then its records):
 * an input that is not a regular file is copied once into an unlinked
 * temporary file, read back through /proc/self/fd. */
struct merge_spool {
	int fd;        /* the temporary file, or -1: the input is read as is */
	char path[40]; /* /proc/self/fd/N when fd >= 0 */
};

/* 0 (sp->fd = -1 for a regular file), or a negative errno with one line
 * in err. */
int merge_spool_input(const char *path, struct merge_spool *sp, char *err,
		      size_t errlen);
/* The path to read the input from. */
const char *merge_spool_path(const struct merge_spool *sp, const char *path);
void merge_spool_close(struct merge_spool *sp);

/* The output: refused unless it is new or a regular file (a device, a
 * FIFO, a directory or a symlink is never written nor removed), written
 * to a new temporary file in its folder, renamed over it when whole, so
 * a failed merge leaves whatever was there untouched. */
struct merge_out_file {
	char tmp[PATH_MAX];
};

/* The temporary file's fd, or a negative errno with one line in err. */
int merge_out_create(const char *output, struct merge_out_file *of,
		     char *err, size_t errlen);
/* The temporary file renamed to output: 0, or a negative errno with one
 * line in err (the temporary file removed). */
int merge_out_commit(struct merge_out_file *of, const char *output,
		     char *err, size_t errlen);
/* Removes the temporary file (only it: the only file ftf-merge made). */
void merge_out_discard(struct merge_out_file *of);

#endif
