// SPDX-License-Identifier: MIT
/*
 * reader_priority.c - the ring readers' priority (see reader_priority.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

#include "defaults.h"
#include "reader_priority.h"

int ftfb_reader_priority(void)
{
	/* PRIO_PROCESS with a thread id sets that thread only (Linux,
	 * setpriority(2)); the process's other threads keep theirs */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), FTFB_READER_NICE))
		return -errno;
	return 0;
}
