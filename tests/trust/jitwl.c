// SPDX-License-Identifier: MIT
/*
 * jitwl.c - a workload with "JIT" code for the hostile-user tests
 * (test_hostile.py): a page of anonymous executable memory at a fixed
 * address (JIT_ADDR, so a perf map can be written before it starts),
 * and optionally a library it dlopens, both run in a loop by a thread.
 *
 *   jitwl [--lib PATH] [--bind SRC DST]...
 *
 * --bind: once the library is mapped, bind-mount SRC over DST (as the
 * user may in its own user + mount namespace, unshare -Urm). Prints
 * "ready pid=PID" and spins until its stdin ends.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#define JIT_ADDR 0x200000000000UL

typedef unsigned long (*fn_t)(unsigned long);

static void (*jit)(void);
static fn_t lib_fn;

static void *spin(void *arg)
{
	(void)arg;
	for (;;) {
		jit();
		if (lib_fn)
			lib_fn(200000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	/* mov ecx, 2000000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char code[] = {0xb9, 0x80, 0x84, 0x1e, 0x00,
					     0xff, 0xc9, 0x75, 0xfc, 0xc3};
	void *page =
		mmap((void *)JIT_ADDR, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	pthread_t t;
	char buf[64];

	if (page != (void *)JIT_ADDR) {
		perror("jitwl: mmap");
		return 1;
	}
	memcpy(page, code, sizeof(code));
	jit = (void (*)(void))page;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lib") && i + 1 < argc) {
			void *h = dlopen(argv[++i], RTLD_NOW);

			if (!h || !(lib_fn = (fn_t)dlsym(h, "trust_real_fn"))) {
				fprintf(stderr, "jitwl: %s\n", dlerror());
				return 1;
			}
		} else if (!strcmp(argv[i], "--bind") && i + 2 < argc) {
			if (mount(argv[i + 1], argv[i + 2], NULL, MS_BIND,
				  NULL)) {
				perror("jitwl: mount --bind");
				return 1;
			}
			i += 2;
		}
	}
	pthread_create(&t, NULL, spin, NULL);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	while (fgets(buf, sizeof(buf), stdin))
		;
	return 0;
}
