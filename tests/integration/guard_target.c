// SPDX-License-Identifier: MIT
/*
 * guard_target N: calls ftfb_locked N times, ftfb_plain N times and
 * libc's write() N times (one byte to /dev/null), then prints "done PID".
 * ftfb_locked starts with a LOCK-prefixed instruction, which x86 uprobes
 * cannot probe: ftf-bpf must refuse it rather than attach a probe that
 * never fires. Used by test_guards.py.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__asm__(".text\n"
	".globl ftfb_locked\n"
	".type ftfb_locked, @function\n"
	"ftfb_locked:\n"
	"	lock addl $1, (%rdi)\n"
	"	ret\n"
	".size ftfb_locked, .-ftfb_locked\n");

void ftfb_locked(int *p);

__attribute__((noinline)) void ftfb_plain(int *p)
{
	(*(volatile int *)p)++; /* no LOCK: probeable */
}

static void (*volatile locked_fn)(int *) = ftfb_locked;
static void (*volatile plain_fn)(int *) = ftfb_plain;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, a = 0, b = 0, w = 0;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (n <= 0 || fd < 0) {
		fprintf(stderr, "usage: %s N (N > 0)\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < n; i++)
		locked_fn(&a);
	for (int i = 0; i < n; i++)
		plain_fn(&b);
	for (int i = 0; i < n; i++)
		w += write(fd, "x", 1) == 1;
	close(fd);
	printf("done %d\n", (int)getpid());
	return a == n && b == n && w == n ? 0 : 1;
}
