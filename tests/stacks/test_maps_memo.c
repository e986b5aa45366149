// SPDX-License-Identifier: MIT
/*
 * test_maps_memo.c - the mappings kept for processes gone
 * (src/stacks/native/maps_memo.h) and the open of a gone process's file
 * by name (ftfb_gone_file_open, proc_file.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "maps_memo.h"
#include "monotime.h"
#include "proc_file.h"

/* A read of tgid's maps made of lines (as /proc/PID/maps prints them). */
static void put(uint32_t tgid, const char *const *lines, size_t n)
{
	struct ftfb_memo_read r;

	ftfb_memo_read_begin(&r, tgid);
	for (size_t i = 0; i < n; i++) {
		char line[4400];

		snprintf(line, sizeof(line), "%s\n", lines[i]);
		ftfb_memo_read_line(&r, line);
	}
	ftfb_memo_read_end(&r);
}

static const char *const MAPS[] = {
	"55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/prog",
	"55d0c0001000-55d0c0005000 r-xp 00001000 08:01 1234 /usr/bin/prog",
	"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 ",
	"7f0000100000-7f0000200000 r-xp 00028000 fd:02 99 /lib/libc.so.6",
	"7f0000300000-7f0000301000 r-xp 00000000 00:00 0 ",
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]",
};

/* Only the executable mappings of a file, [vdso] or [uprobes] are kept,
 * with maps' fields. */
static void keeps_executable_file_mappings(void **state)
{
	struct ftfb_memo_map *v;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(100, MAPS, 6);
	assert_int_equal(ftfb_maps_memo_get(100, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].start, 0x55d0c0001000);
	assert_int_equal(v[0].end, 0x55d0c0005000);
	assert_int_equal(v[0].pgoff, 0x1000);
	assert_int_equal(v[0].dev, 8ull << 32 | 1);
	assert_int_equal(v[0].ino, 1234);
	assert_string_equal(v[0].path, "/usr/bin/prog");
	assert_int_equal(v[1].dev, 0xfdull << 32 | 2);
	assert_string_equal(v[1].path, "/lib/libc.so.6");
	assert_string_equal(v[2].path, "[vdso]");
	ftfb_memo_maps_free(v, n);
	assert_int_equal(ftfb_maps_memo_get(101, &v, &n), -ENOENT);
}

/* An exec or exit translated after a read began: that read is of the
 * image before (or of the process gone), never given; a read begun after
 * it is. */
static void a_read_before_the_last_exec_is_not_given(void **state)
{
	struct ftfb_memo_map *v;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(200, MAPS, 6);
	ftfb_maps_memo_bound(200, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(200, &v, &n), -ENOENT);
	/* (a read the loader ends after the bound, begun before it) */
	ftfb_maps_memo_bound(201, ftfb_mono_ns() + 1000000000ull);
	put(201, MAPS, 6);
	assert_int_equal(ftfb_maps_memo_get(201, &v, &n), -ENOENT);
	/* an exec translated long after the loader read the new image */
	put(200, MAPS + 3, 1);
	assert_int_equal(ftfb_maps_memo_get(200, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "/lib/libc.so.6");
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(200, 1); /* an older bound changes nothing */
	assert_int_equal(ftfb_maps_memo_get(200, &v, &n), 0);
	ftfb_memo_maps_free(v, n);
}

/* A child forked after its parent's read gets it; one forked before the
 * read began (the parent may have exec'd since) does not. */
static void a_child_gets_its_parents_at_the_fork(void **state)
{
	uint64_t before = ftfb_mono_ns();
	struct ftfb_memo_map *v;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(300, MAPS, 6);
	ftfb_maps_memo_fork(300, 301, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(301, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].path, "/usr/bin/prog");
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_fork(300, 302, before);
	assert_int_equal(ftfb_maps_memo_get(302, &v, &n), -ENOENT);
	/* a grandchild, from the child's copy */
	ftfb_maps_memo_fork(301, 303, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(303, &v, &n), 0);
	ftfb_memo_maps_free(v, n);
	/* the child's exec: its copy is of the image before */
	ftfb_maps_memo_bound(301, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(301, &v, &n), -ENOENT);
}

/* Another image of the program (exec'd again: ASLR put it elsewhere),
 * and of another program. */
static const char *const MAPS_AGAIN[] = {
	"56aa00001000-56aa00005000 r-xp 00001000 08:01 1234 /usr/bin/prog",
	"7f0000100000-7f0000200000 r-xp 00028000 fd:02 99 /lib/libc.so.6",
};
static const char *const MAPS_OTHER[] = {
	"55e000001000-55e000009000 r-xp 00001000 08:01 777 /usr/bin/other",
};

/* A read with no mapping (a zombie's maps are empty) keeps the read
 * before. */
static void an_empty_read_hides_nothing(void **state)
{
	struct ftfb_memo_map *v;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(600, MAPS, 6);
	put(600, MAPS, 0);
	assert_int_equal(ftfb_maps_memo_get(600, &v, &n), 0);
	assert_int_equal(n, 3);
	ftfb_memo_maps_free(v, n);
}

/* A process that exec'd again before its exec is translated: the image
 * translated is given, with "later", until the exec's bound; a later
 * read of one image replaces the one before (ld.so has mapped more). */
static void a_later_image_waits_for_its_exec(void **state)
{
	struct ftfb_memo_map *v;
	uint64_t exec_ns;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(700, MAPS + 1, 1); /* the program, ld.so not done */
	put(700, MAPS, 6);
	assert_int_equal(ftfb_maps_memo_get(700, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_false(ftfb_maps_memo_later(700));
	ftfb_memo_maps_free(v, n);
	exec_ns = ftfb_mono_ns();
	put(700, MAPS_AGAIN, 2);
	assert_int_equal(ftfb_maps_memo_get(700, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].start, 0x55d0c0001000);
	assert_true(ftfb_maps_memo_later(700));
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(700, exec_ns);
	assert_int_equal(ftfb_maps_memo_get(700, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].start, 0x56aa00001000);
	assert_false(ftfb_maps_memo_later(700));
	ftfb_memo_maps_free(v, n);
	/* a fourth image replaces the third, the first stays */
	put(700, MAPS_OTHER, 1);
	put(700, MAPS, 6);
	put(700, MAPS_AGAIN + 1, 1);
	assert_int_equal(ftfb_maps_memo_get(700, &v, &n), 0);
	assert_int_equal(v[0].start, 0x56aa00001000);
	assert_true(ftfb_maps_memo_later(700));
	ftfb_memo_maps_free(v, n);
}

/* A vfork's child that exec'd before the fork is translated (a make's
 * sh, gcc's cc1): its samples before the exec are of its parent's
 * image, given first; its own read of the new program after. */
static void a_forks_child_exec_read_comes_after(void **state)
{
	struct ftfb_memo_map *v;
	uint64_t fork_ns, exec_ns;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(800, MAPS, 6);
	put(801, MAPS_OTHER, 1); /* what the pid was before: gone */
	fork_ns = ftfb_mono_ns();
	exec_ns = ftfb_mono_ns();
	put(801, MAPS_OTHER, 1);
	ftfb_maps_memo_fork(800, 801, fork_ns);
	assert_int_equal(ftfb_maps_memo_get(801, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].path, "/usr/bin/prog");
	assert_true(ftfb_maps_memo_later(801));
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(801, exec_ns);
	assert_int_equal(ftfb_maps_memo_get(801, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/other");
	assert_false(ftfb_maps_memo_later(801));
	ftfb_memo_maps_free(v, n);
	/* a pid come back, forked from a parent with no read: nothing of
	 * the process before */
	ftfb_maps_memo_fork(999, 801, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(801, &v, &n), -ENOENT);
	assert_false(ftfb_maps_memo_later(801));
}

/* A read begun before the exec's time, of the new image: the kernel
 * installs it, and /proc/PID/maps shows it, before the tracepoint that
 * gives the event its time. The read of the image before (the parent's
 * copy at the fork) goes at the exec's bound; that one stays (before, it
 * went too, and a process that exited before its table came kept no
 * name). Known the other way: the image said ended is the new read's. */
static void a_new_image_read_within_the_exec_stays(void **state)
{
	struct ftfb_memo_map *v;
	uint64_t fork_ns, exec_ns;
	/* (dev: major << 32 | minor, as the reads keep it) */
	struct ftfb_memo_map prog = {.start = 0x55d0c0001000,
				     .end = 0x55d0c0005000,
				     .dev = 8ull << 32 | 1,
				     .ino = 1234};
	struct ftfb_memo_map other = {.start = 0x55e000001000,
				      .end = 0x55e000009000,
				      .dev = 8ull << 32 | 1,
				      .ino = 777};
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(850, MAPS, 6);
	fork_ns = ftfb_mono_ns();
	ftfb_maps_memo_fork(850, 851, fork_ns);
	put(851, MAPS_OTHER, 1); /* (within the exec) */
	exec_ns = ftfb_mono_ns();
	ftfb_maps_memo_bound(851, exec_ns);
	assert_int_equal(ftfb_maps_memo_get(851, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/other");
	assert_false(ftfb_maps_memo_later(851));
	ftfb_memo_maps_free(v, n);
	/* its only read, within the exec, with the image that ended said:
	 * kept, being of another */
	put(852, MAPS_OTHER, 1);
	ftfb_maps_memo_put_ended(852, &prog, 1, ftfb_mono_ns());
	ftfb_maps_memo_bound(852, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(852, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/other");
	ftfb_memo_maps_free(v, n);
	/* and gone at the exit, when the image said ended is that one */
	ftfb_maps_memo_put_ended(852, &other, 1, ftfb_mono_ns());
	ftfb_maps_memo_bound(852, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(852, &v, &n), -ENOENT);
}

/* The mappings of "other"'s image as the walker lists them at its end
 * (bpf/uw_refresh.bpf.h): its program, anonymous memory, the vDSO. */
static const struct ftfb_uw_vmas OTHER_ENDED = {
	.n = 3,
	.v = {{0x55e000001000, 0x55e000009000, 0x1000, 8ull << 32 | 1, 777},
	      {0x7f0000300000, 0x7f0000301000, 0, ~0ull, 0},
	      {0x7ffd00000000, 0x7ffd00002000, 0, 0, 0}},
};

/* A child of a build (make's sh exec'd as) gone before the loader read
 * its maps, told ended (its copies finished) before the translator
 * reached its fork: its image is named from the walker's list, with the
 * paths other reads gave its files, between its exec and its exit; its
 * parent's image before the exec. */
static void an_image_never_read_is_named_from_its_end(void **state)
{
	struct ftfb_memo_map *v;
	uint64_t t;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(950, MAPS, 6);
	put(960, MAPS_OTHER, 1); /* (another process names other's file) */
	t = ftfb_mono_ns();	 /* (after both reads) */
	/* fork at t + 1000, exec at t + 2000, exit at t + 3000 */
	ftfb_maps_memo_put_vmas(951, &OTHER_ENDED, t + 3000);
	ftfb_maps_memo_fork(950, 951, t + 1000);
	assert_int_equal(ftfb_maps_memo_get(951, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/prog");
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(951, t + 2000);
	assert_int_equal(ftfb_maps_memo_get(951, &v, &n), 0);
	assert_int_equal(n, 2); /* (not the anonymous memory) */
	assert_int_equal(v[0].start, 0x55e000001000);
	assert_string_equal(v[0].path, "/usr/bin/other");
	assert_int_equal(v[0].pgoff, 0x1000);
	assert_string_equal(v[1].path, "[vdso]");
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(951, t + 3000);
	assert_int_equal(ftfb_maps_memo_get(951, &v, &n), -ENOENT);
	/* a program no read names: no read made of its image (its frames
	 * would be taken for a library's) */
	ftfb_maps_memo_clear();
	put(950, MAPS, 6);
	t = ftfb_mono_ns();
	ftfb_maps_memo_put_vmas(952, &OTHER_ENDED, t + 3000);
	ftfb_maps_memo_bound(952, t + 2000);
	assert_int_equal(ftfb_maps_memo_get(952, &v, &n), -ENOENT);
}

/* "prog"'s image at its end, as the walker lists it. */
static const struct ftfb_uw_vmas PROG_ENDED = {
	.n = 2,
	.v = {{0x55d0c0001000, 0x55d0c0005000, 0x1000, 8ull << 32 | 1, 1234},
	      {0x7f0000100000, 0x7f0000200000, 0x28000, 0xfdull << 32 | 2, 99}},
};

/* A child forked from a parent never read, read only after its exec:
 * the image before the exec is named from the walker's list, given at
 * the exec, up to the exec's bound; the read after it. */
static void an_image_before_the_exec_is_named_from_its_end(void **state)
{
	struct ftfb_memo_map *v;
	uint64_t t;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(960, MAPS, 6); /* (another process names prog's files) */
	/* fork at t + 1000, exec at t + 2000, both before the child's read */
	t = ftfb_mono_ns() - 1000000;
	put(951, MAPS_OTHER, 1);
	ftfb_maps_memo_put_vmas(951, &PROG_ENDED, t + 2000);
	ftfb_maps_memo_fork(959, 951, t + 1000);
	assert_int_equal(ftfb_maps_memo_get(951, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].path, "/usr/bin/prog");
	assert_string_equal(v[1].path, "/lib/libc.so.6");
	assert_int_equal(v[1].pgoff, 0x28000);
	assert_true(ftfb_maps_memo_later(951));
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(951, t + 2000);
	assert_int_equal(ftfb_maps_memo_get(951, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/other");
	assert_false(ftfb_maps_memo_later(951));
	ftfb_memo_maps_free(v, n);
}

/* A read of /proc showing another program, or the same one elsewhere
 * (exec'd again: ASLR), than the memo's read of the image being
 * translated is of a later image; the same program at its address, or
 * no read kept, is not. */
static void tells_a_later_program(void **state)
{
	(void)state;
	ftfb_maps_memo_clear();
	assert_false(ftfb_maps_memo_other_program(970, 0x55d0c0001000,
						  8ull << 32 | 1, 1234));
	put(970, MAPS, 6);
	assert_false(ftfb_maps_memo_other_program(970, 0x55d0c0001000,
						  8ull << 32 | 1, 1234));
	assert_true(ftfb_maps_memo_other_program(970, 0x55e000001000,
						 8ull << 32 | 1, 777));
	assert_true(ftfb_maps_memo_other_program(970, 0x56aa00001000,
						 8ull << 32 | 1, 1234));
}

/* make's child exec'd sh, which exec'd gcc, all before the translator
 * reached the fork: each image's samples get that image's read. */
static void two_execs_before_the_fork_is_translated(void **state)
{
	struct ftfb_memo_map *v;
	uint64_t fork_ns, exec1_ns, exec2_ns;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(900, MAPS, 6);
	fork_ns = ftfb_mono_ns();
	exec1_ns = ftfb_mono_ns();
	put(901, MAPS_OTHER, 1);
	exec2_ns = ftfb_mono_ns();
	put(901, MAPS_AGAIN, 2);
	ftfb_maps_memo_fork(900, 901, fork_ns);
	assert_int_equal(ftfb_maps_memo_get(901, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/prog");
	assert_true(ftfb_maps_memo_later(901));
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(901, exec1_ns);
	assert_int_equal(ftfb_maps_memo_get(901, &v, &n), 0);
	assert_string_equal(v[0].path, "/usr/bin/other");
	assert_true(ftfb_maps_memo_later(901));
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_bound(901, exec2_ns);
	assert_int_equal(ftfb_maps_memo_get(901, &v, &n), 0);
	assert_int_equal(v[0].start, 0x56aa00001000);
	assert_false(ftfb_maps_memo_later(901));
	ftfb_memo_maps_free(v, n);
}

/* At most FTFB_MAPS_MEMO_PROCS processes: the oldest goes. */
static void keeps_the_newest_processes(void **state)
{
	struct ftfb_memo_map *v;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	for (uint32_t t = 1; t <= FTFB_MAPS_MEMO_PROCS + 1; t++)
		put(1000 + t, MAPS + 1, 1);
	assert_int_equal(ftfb_maps_memo_get(1001, &v, &n), -ENOENT);
	assert_int_equal(ftfb_maps_memo_get(1002, &v, &n), 0);
	ftfb_memo_maps_free(v, n);
	assert_int_equal(
		ftfb_maps_memo_get(1001 + FTFB_MAPS_MEMO_PROCS, &v, &n), 0);
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_clear();
}

/* A shell forking more subshells than the memo holds: each fork uses the
 * shell's entry, which stays (the least recently used go), so the last
 * child still gets its copy. */
static void a_forking_parent_stays(void **state)
{
	struct ftfb_memo_map *v;
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	put(500, MAPS + 1, 1);
	for (uint32_t t = 1; t <= FTFB_MAPS_MEMO_PROCS + 10; t++)
		ftfb_maps_memo_fork(500, 2000 + t, ftfb_mono_ns());
	assert_int_equal(ftfb_maps_memo_get(500, &v, &n), 0);
	ftfb_memo_maps_free(v, n);
	assert_int_equal(
		ftfb_maps_memo_get(2000 + FTFB_MAPS_MEMO_PROCS + 10, &v, &n),
		0);
	assert_int_equal(n, 1);
	ftfb_memo_maps_free(v, n);
	assert_int_equal(ftfb_maps_memo_get(2001, &v, &n), -ENOENT);
	ftfb_maps_memo_clear();
}

/* A process's user chooses its paths: at most FTFB_MAPS_MEMO_PATH_BYTES
 * of them are kept per process. */
static void keeps_a_bounded_size_of_paths(void **state)
{
	static char lines[64][2200];
	const char *lp[64];
	struct ftfb_memo_map *v;
	char name[2001];
	size_t n;

	(void)state;
	ftfb_maps_memo_clear();
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (int i = 0; i < 64; i++) {
		snprintf(lines[i], sizeof(lines[i]),
			 "%x000-%x000 r-xp 00000000 08:01 %d /%s", i + 1, i + 2,
			 i + 1, name + 1);
		lp[i] = lines[i];
	}
	put(400, lp, 64);
	assert_int_equal(ftfb_maps_memo_get(400, &v, &n), 0);
	/* (each path 2,000 bytes and its NUL) */
	assert_int_equal(n, FTFB_MAPS_MEMO_PATH_BYTES / 2001);
	ftfb_memo_maps_free(v, n);
	ftfb_maps_memo_clear();
}

static struct ftfb_maps_line line_of(const char *path)
{
	struct ftfb_maps_line l = {.name = path};
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	l.dev = (uint64_t)major(st.st_dev) << 32 | minor(st.st_dev);
	l.ino = st.st_ino;
	return l;
}

/* By name, a gone process's file is opened only if the name is still
 * that very file (dev/ino, as stat gives them), no symbolic link
 * followed, never a name the kernel marks deleted. */
static void a_gone_file_is_the_mapped_one(void **state)
{
	char dir[] = "/tmp/ftfb-memo-XXXXXX", a[64], b[64], del[80];
	struct ftfb_maps_line l;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	fd = open(a, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "elf", 3), 3);
	close(fd);
	l = line_of(a);
	fd = ftfb_gone_file_open(&l);
	assert_true(fd >= 0);
	close(fd);
	/* another file at the name */
	assert_int_equal(rename(a, b), 0);
	fd = open(a, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ftfb_gone_file_open(&l), -ESTALE);
	/* a symbolic link at the name, to the very file */
	assert_int_equal(unlink(a), 0);
	assert_int_equal(symlink(b, a), 0);
	assert_int_equal(ftfb_gone_file_open(&l), -ELOOP);
	/* the kernel's " (deleted)" */
	snprintf(del, sizeof(del), "%s (deleted)", b);
	l.name = del;
	assert_int_equal(ftfb_gone_file_open(&l), -ENOENT);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* Whether tgid's memo names a mapping at start, with path. */
static bool names(uint32_t tgid, uint64_t start, const char *path)
{
	struct ftfb_memo_map *v;
	size_t n;
	bool found = false;

	if (ftfb_maps_memo_get(tgid, &v, &n))
		return false;
	for (size_t i = 0; i < n; i++)
		found |= v[i].start == start && !strcmp(v[i].path, path);
	ftfb_memo_maps_free(v, n);
	return found;
}

/* A library the kernel recorded the process mapping after a read of its
 * image began (dlopen) is named from that read, and still once a later
 * read of the image no longer shows it (dlclose); one recorded in an
 * image exec'd after the read began is not that read's; one where the
 * read holds a mapping is not added over it. */
static void a_dlclosed_library_stays_named(void **state)
{
	struct ftfb_memo_map lib = {0x7f0000500000,
				    0x7f0000501000,
				    0,
				    8ull << 32 | 1,
				    777,
				    "/usr/lib/bfd-plugins/liblto_plugin.so"};
	struct ftfb_memo_map over = lib;
	uint64_t t0;

	(void)state;
	ftfb_maps_memo_clear();
	t0 = ftfb_mono_ns();
	put(300, MAPS, 6);
	ftfb_maps_memo_put_mapped(300, &lib, t0 - 1, ftfb_mono_ns());
	assert_true(names(300, lib.start, lib.path));
	put(300, MAPS, 6); /* (read again, after the dlclose) */
	assert_true(names(300, lib.start, lib.path));
	assert_true(names(300, 0x55d0c0001000, "/usr/bin/prog"));

	put(301, MAPS, 6);
	ftfb_maps_memo_put_mapped(301, &lib, ftfb_mono_ns(), ftfb_mono_ns());
	assert_false(names(301, lib.start, lib.path));

	put(302, MAPS, 6);
	over.start = 0x7f0000100000; /* libc's */
	over.end = 0x7f0000101000;
	ftfb_maps_memo_put_mapped(302, &over, 0, ftfb_mono_ns());
	assert_false(names(302, over.start, over.path));
	assert_true(names(302, 0x7f0000100000, "/lib/libc.so.6"));
}

/* Mappings the kernel recorded add to a read no more paths than a read
 * may hold (a hostile process maps files of 4,000-byte paths). */
static void mapped_paths_are_bounded(void **state)
{
	static char path[4001];
	struct ftfb_memo_map m = {0, 0x1000, 0, 8ull << 32 | 1, 0, path};
	struct ftfb_memo_map *v;
	size_t n, bytes = 0;

	(void)state;
	ftfb_maps_memo_clear();
	put(400, MAPS, 6);
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	for (int i = 0; i < 100; i++) {
		m.start = 0x7e0000000000ull + (uint64_t)i * 0x10000;
		m.end = m.start + 0x1000;
		m.ino = 1000 + (uint64_t)i;
		ftfb_maps_memo_put_mapped(400, &m, 0, ftfb_mono_ns());
	}
	assert_int_equal(ftfb_maps_memo_get(400, &v, &n), 0);
	for (size_t i = 0; i < n; i++)
		bytes += strlen(v[i].path) + 1;
	ftfb_memo_maps_free(v, n);
	assert_true(n > 3); /* (some added) */
	assert_true(bytes <= FTFB_MAPS_MEMO_PATH_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_executable_file_mappings),
		cmocka_unit_test(a_read_before_the_last_exec_is_not_given),
		cmocka_unit_test(a_child_gets_its_parents_at_the_fork),
		cmocka_unit_test(an_empty_read_hides_nothing),
		cmocka_unit_test(a_later_image_waits_for_its_exec),
		cmocka_unit_test(a_forks_child_exec_read_comes_after),
		cmocka_unit_test(a_new_image_read_within_the_exec_stays),
		cmocka_unit_test(two_execs_before_the_fork_is_translated),
		cmocka_unit_test(an_image_never_read_is_named_from_its_end),
		cmocka_unit_test(
			an_image_before_the_exec_is_named_from_its_end),
		cmocka_unit_test(tells_a_later_program),
		cmocka_unit_test(keeps_the_newest_processes),
		cmocka_unit_test(a_forking_parent_stays),
		cmocka_unit_test(keeps_a_bounded_size_of_paths),
		cmocka_unit_test(a_gone_file_is_the_mapped_one),
		cmocka_unit_test(a_dlclosed_library_stays_named),
		cmocka_unit_test(mapped_paths_are_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
