// SPDX-License-Identifier: MIT
/*
 * files_cancel.c - the stop's deadline for work on processes' files (see
 * files_cancel.h). Lock-free atomics only: a signal handler sets it.
 */
#include <time.h>

#include "files_cancel.h"

static uint64_t deadline = UINT64_MAX; /* none yet */
static uint64_t skipped;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* (async-signal-safe) */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ftfb_files_cancel_at(uint64_t mono)
{
	uint64_t was = __atomic_load_n(&deadline, __ATOMIC_RELAXED);

	while (mono < was &&
	       !__atomic_compare_exchange_n(&deadline, &was, mono, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void ftfb_files_cancel_soon(void)
{
	ftfb_files_cancel_at(mono_ns() + FTFB_FILES_GRACE_NS);
}

bool ftfb_files_cancelled(void)
{
	uint64_t d = __atomic_load_n(&deadline, __ATOMIC_ACQUIRE);

	return d != UINT64_MAX && mono_ns() >= d;
}

void ftfb_files_note_skipped(void)
{
	__atomic_add_fetch(&skipped, 1, __ATOMIC_RELAXED);
}

uint64_t ftfb_files_skipped(void)
{
	return __atomic_load_n(&skipped, __ATOMIC_RELAXED);
}
