/* SPDX-License-Identifier: MIT */
/*
 * tests/ftf/tmpfile.h - a trace file in a temporary folder of its own
 * (or on a small tmpfs, to fill), and a file read back whole: what the
 * destination tests share. Include after helpers.h (cmocka).
 */
#ifndef TESTS_FTF_TMPFILE_H
#define TESTS_FTF_TMPFILE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

struct tmp {
	char dir[64];
	char path[128];
};

static inline void tmp_make(struct tmp *t)
{
	strcpy(t->dir, "/tmp/ftf-test-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/out.fxt", t->dir);
}

static inline void tmp_remove(struct tmp *t)
{
	unlink(t->path);
	rmdir(t->dir);
}

/* A temporary folder on a tmpfs of its own (`opts`: its size), to fill;
 * false (nothing left behind) without root or mount. */
static inline bool tmp_make_small(struct tmp *t, const char *opts)
{
	tmp_make(t);
	if (geteuid() == 0 && mount("tmpfs", t->dir, "tmpfs", 0, opts) == 0)
		return true;
	tmp_remove(t);
	return false;
}

static inline uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	uint8_t *p;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

#endif
