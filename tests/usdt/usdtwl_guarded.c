// SPDX-License-Identifier: MIT
/*
 * usdtwl_guarded.c - the workload's probe behind a semaphore. In a file
 * of its own: with _SDT_HAS_SEMAPHORES every probe of a file has one.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "usdtwl.h"

unsigned short usdtwl_guarded_semaphore
	__attribute__((section(".probes"), used));

int usdtwl_guarded(long i)
{
	/* the check a program makes to skip preparing costly arguments */
	if (!usdtwl_guarded_semaphore)
		return 0;
	STAP_PROBE2(usdtwl, guarded, i, -i);
	return 1;
}

volatile unsigned short *usdtwl_semaphore(void)
{
	return &usdtwl_guarded_semaphore;
}
