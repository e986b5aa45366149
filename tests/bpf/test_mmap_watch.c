// SPDX-License-Identifier: MIT
/*
 * test_mmap_watch.c - the kernel's records of executable mappings
 * (src/loader/mmap_watch.h), against what this test itself maps and
 * execs: the address mmap returned, the offset asked for, the device and
 * inode fstat gives, the path it named, the CLOCK_MONOTONIC times around
 * the calls; a mapping without PROT_EXEC gives none. Real perf events
 * (root).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "mmap_watch.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define MAX_SEEN 4096

static struct {
	struct ftfb_mmap_rec r;
	char path[4096];
} seen[MAX_SEEN];
static unsigned nseen;

static void keep(void *ctx, const struct ftfb_mmap_rec *r)
{
	(void)ctx;
	if (nseen == MAX_SEEN)
		return;
	seen[nseen].r = *r;
	seen[nseen].path[0] = '\0';
	if (r->path)
		snprintf(seen[nseen].path, sizeof(seen[nseen].path), "%s",
			 r->path);
	nseen++;
}

static struct ftfb_mmap_watch *open_or_skip(void)
{
	struct ftfb_mmap_watch *w = NULL;
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr,
			"SKIP: perf events of every process need root\n");
		skip();
	}
	rc = ftfb_mmap_watch_open(&w, (int)sysconf(_SC_NPROCESSORS_CONF));
	assert_int_equal(rc, 0);
	return w;
}

/* A file of two pages in the build's folder (tmpfs and disk alike). */
static int two_pages(char *path, size_t len, struct stat *st)
{
	char page[4096];
	int fd;

	snprintf(path, len, "%s/mmap-watch-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	memset(page, 0xc3, sizeof(page));
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	assert_int_equal(fstat(fd, st), 0);
	return fd;
}

static void test_exec_mapping_recorded(void **state)
{
	struct ftfb_mmap_watch *w = open_or_skip();
	char path[256];
	struct stat st;
	int fd = two_pages(path, sizeof(path), &st);
	uint64_t t0, t1,
		dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
	void *x, *d;
	unsigned exec_at = 0, data_at = 0;

	(void)state;
	nseen = 0;
	t0 = mono_ns();
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);
	t1 = mono_ns();
	d = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(x != MAP_FAILED && d != MAP_FAILED);
	ftfb_mmap_watch_drain(w, keep, NULL);
	for (unsigned i = 0; i < nseen; i++) {
		const struct ftfb_mmap_rec *r = &seen[i].r;

		if (r->pid != (uint32_t)getpid() || !r->path ||
		    strcmp(seen[i].path, path))
			continue;
		if (r->start == (uintptr_t)x) {
			exec_at++;
			assert_int_equal(r->end, (uintptr_t)x + 4096);
			assert_int_equal(r->pgoff, 4096);
			assert_int_equal(r->dev, dev);
			assert_int_equal(r->ino, st.st_ino);
			assert_int_equal(r->tid, (uint32_t)gettid());
			assert_true(r->ns >= t0 && r->ns <= t1);
		} else if (r->start == (uintptr_t)d) {
			data_at++;
		}
	}
	assert_int_equal(exec_at, 1);
	assert_int_equal(data_at, 0); /* (executable mappings only) */
	munmap(x, 4096);
	munmap(d, 4096);
	close(fd);
	unlink(path);
	ftfb_mmap_watch_free(w);
}

/* A child's exec is recorded (path NULL) between the fork and its
 * reaping, and its new program's mapping after it. */
static void test_exec_recorded(void **state)
{
	struct ftfb_mmap_watch *w = open_or_skip();
	uint64_t t0 = mono_ns(), t1, exec_ns = 0, prog_ns = 0;
	struct stat st;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(stat("/bin/true", &st), 0);
	nseen = 0;
	pid = fork();
	if (!pid) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	t1 = mono_ns();
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ftfb_mmap_watch_drain(w, keep, NULL);
	for (unsigned i = 0; i < nseen; i++) {
		const struct ftfb_mmap_rec *r = &seen[i].r;

		if (r->pid != (uint32_t)pid)
			continue;
		if (!r->path)
			exec_ns = r->ns;
		else if (r->ino == st.st_ino)
			prog_ns = r->ns;
	}
	assert_true(exec_ns >= t0 && exec_ns <= t1);
	assert_true(prog_ns >= t0 && prog_ns <= t1);
	/* (the exec's record first, then its new program's mappings: what
	 * mapped_log keeps of an image starts there) */
	assert_true(exec_ns <= prog_ns);
	ftfb_mmap_watch_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_mapping_recorded),
		cmocka_unit_test(test_exec_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
