// SPDX-License-Identifier: MIT
/*
 * uw_cache.c - the persistent cache of unwind tables, a directory of
 * files (see uw_cache.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "uw_cache.h"

struct ftfb_uw_cache {
	int dirfd;
	uint64_t max_bytes;
	char dir[4096];
};

/* the largest file a valid table can be (its header: under 1 KiB) */
#define MAX_FILE (1024 + (uint64_t)FTFB_UW_MAX_ROWS * 8)

/* Not the effective user's, or writable by another: another user could
 * have put it there, or could change it under us. */
static const char *unsafe(const struct stat *st)
{
	if (st->st_uid != geteuid())
		return "not owned by this user (root)";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others";
	return NULL;
}

/* The directory's fd, made 0700 when missing; -1 and err if unsafe. */
static int open_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	const char *why = NULL;
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		ftfb_seterr(err, errlen, "unwind cache %s not used: %s", dir,
			    strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ftfb_seterr(err, errlen, "unwind cache %s not used: %s", dir,
			    errno == ELOOP ? "a symbolic link"
					   : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || (why = unsafe(&st))) {
		ftfb_seterr(err, errlen, "unwind cache %s not used: %s", dir,
			    why ? why : strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct ftfb_uw_cache *ftfb_uw_cache_open(const char *dir, uint64_t max_bytes,
					 char *err, size_t errlen)
{
	struct ftfb_uw_cache *c;

	if (errlen)
		err[0] = '\0';
	if (!dir)
		dir = getenv(FTFB_UW_CACHE_ENV);
	if (!dir)
		dir = FTFB_UW_CACHE_DEFAULT_DIR;
	if (!*dir || !strcmp(dir, "off"))
		return NULL;
	if (dir[0] != '/' || strlen(dir) >= sizeof(c->dir)) {
		ftfb_seterr(err, errlen,
			    "unwind cache %s not used: not an absolute path",
			    dir);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	strcpy(c->dir, dir);
	c->max_bytes = max_bytes ? max_bytes : FTFB_UW_CACHE_MAX_BYTES;
	c->dirfd = open_dir(dir, err, errlen);
	if (c->dirfd < 0) {
		free(c);
		return NULL;
	}
	return c;
}

void ftfb_uw_cache_close(struct ftfb_uw_cache *c)
{
	if (!c)
		return;
	close(c->dirfd);
	free(c);
}

const char *ftfb_uw_cache_dir(const struct ftfb_uw_cache *c)
{
	return c->dir;
}

/* "uwt-BUILDID-SIZE": the file of key k */
static void name_of(const struct ftfb_uw_cache_key *k, char *name, size_t len)
{
	size_t at = (size_t)snprintf(name, len, "uwt-");

	for (size_t i = 0; i < k->build_id_len && at + 3 < len; i++)
		at += (size_t)snprintf(name + at, len - at, "%02x",
				       k->build_id[i]);
	snprintf(name + at, len - at, "-%llu",
		 (unsigned long long)k->file_size);
}

/* The whole of fd (size bytes) in a new buffer, or NULL. */
static void *read_all(int fd, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t got = 0;

	while (buf && got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);

		if (n <= 0) { /* (shorter than fstat said: truncated) */
			free(buf);
			return NULL;
		}
		got += (size_t)n;
	}
	return buf;
}

/* The table in the open file fd: as ftfb_uw_cache_load. */
static int load_fd(int fd, const struct ftfb_uw_cache_key *k,
		   struct ftfb_uw_table_built *t, char *err, size_t errlen)
{
	struct stat st;
	const char *why;
	void *buf;
	int rc;

	if (fstat(fd, &st))
		return -errno;
	why = !S_ISREG(st.st_mode) ? "not a regular file" : unsafe(&st);
	if (!why && (uint64_t)st.st_size > MAX_FILE)
		why = "larger than any table";
	if (why) {
		ftfb_seterr(err, errlen, "%s", why);
		return -EPERM;
	}
	buf = read_all(fd, (size_t)st.st_size);
	if (!buf) {
		ftfb_seterr(err, errlen, "unreadable or truncated");
		return -EIO;
	}
	rc = ftfb_uw_cache_decode(buf, (size_t)st.st_size, k, t, err, errlen);
	free(buf);
	if (!rc)
		futimens(fd, NULL); /* used: the last to be evicted */
	return rc;
}

int ftfb_uw_cache_load(struct ftfb_uw_cache *c,
		       const struct ftfb_uw_cache_key *k,
		       struct ftfb_uw_table_built *t, char *err, size_t errlen)
{
	char name[256], why[200];
	int fd, rc;

	memset(t, 0, sizeof(*t));
	name_of(k, name, sizeof(name));
	fd = openat(c->dirfd, name,
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0) {
		rc = -errno;
		snprintf(why, sizeof(why), "%s",
			 rc == -ELOOP ? "a symbolic link" : strerror(-rc));
	} else {
		rc = load_fd(fd, k, t, why, sizeof(why));
		close(fd);
	}
	if (rc && rc != -ENOMEM) {
		ftfb_seterr(err, errlen, "unwind cache file %s/%s refused: %s",
			    c->dir, name, why);
		unlinkat(c->dirfd, name, 0); /* rebuilt, written again */
	}
	return rc;
}

/* Writes len bytes of buf to a new file of the directory, then renames
 * it to name: a reader sees the old file or the whole new one. */
static int write_renamed(struct ftfb_uw_cache *c, const char *name,
			 const void *buf, size_t len)
{
	char tmp[300];
	size_t done = 0;
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), ".tmp-%d-%s", (int)getpid(), name);
	fd = openat(c->dirfd, tmp,
		    O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	while (!rc && done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n <= 0)
			rc = n < 0 ? -errno : -EIO;
		else
			done += (size_t)n;
	}
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && renameat(c->dirfd, tmp, c->dirfd, name))
		rc = -errno;
	if (rc)
		unlinkat(c->dirfd, tmp, 0);
	return rc;
}

struct entry {
	struct timespec used;
	uint64_t size;
	char name[256];
};

static int by_age(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return 0;
}

/* The directory's regular files (all of them are the cache's), their
 * sizes summed in *total; NULL when out of memory. */
static struct entry *list_files(struct ftfb_uw_cache *c, size_t *n,
				uint64_t *total)
{
	int fd = fcntl(c->dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct entry *e = NULL, *grown;
	size_t cap = 0;
	struct dirent *de;
	struct stat st;

	*n = 0;
	*total = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || strlen(de->d_name) >= 256)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(grown = realloc(e, cap * sizeof(*e))))
				break;
			e = grown;
		}
		e[*n].used = st.st_mtim;
		e[*n].size = (uint64_t)st.st_size;
		strcpy(e[*n].name, de->d_name);
		*total += e[(*n)++].size;
	}
	closedir(d);
	return e;
}

uint64_t ftfb_uw_cache_bytes(struct ftfb_uw_cache *c)
{
	size_t n;
	uint64_t total;

	free(list_files(c, &n, &total));
	return total;
}

/* Removes the least recently used files until the rest fit the bound. */
static void evict(struct ftfb_uw_cache *c)
{
	size_t n;
	uint64_t total;
	struct entry *e = list_files(c, &n, &total);

	if (e && total > c->max_bytes) {
		qsort(e, n, sizeof(*e), by_age);
		for (size_t i = 0; i < n && total > c->max_bytes; i++)
			if (!unlinkat(c->dirfd, e[i].name, 0))
				total -= e[i].size;
	}
	free(e);
}

int ftfb_uw_cache_store(struct ftfb_uw_cache *c,
			const struct ftfb_uw_cache_key *k,
			const struct ftfb_uw_table_built *t)
{
	char name[256];
	void *buf;
	size_t len;
	int rc = ftfb_uw_cache_encode(k, t, &buf, &len);

	if (rc)
		return rc;
	if (len > c->max_bytes) {
		free(buf);
		return -E2BIG;
	}
	name_of(k, name, sizeof(name));
	rc = write_renamed(c, name, buf, len);
	free(buf);
	if (!rc)
		evict(c);
	return rc;
}
