/* SPDX-License-Identifier: MIT */
/*
 * mapped_log.h - the executable files each process mapped, as the
 * kernel recorded them at the mmap (src/loader/mmap_watch.h), kept for
 * the stacks finished from a copy (stack_finish.c).
 *
 * A sample whose walk met an address in no mapping its process's entry
 * has (a library dlopen'd since the loader read the maps) is held with
 * a copy of its stack until the entry is read again; a library
 * dlclose'd before that (binutils' bfd plugins, within a millisecond)
 * is in no read and in no list of the mappings at the process's end.
 * This log still has it: the copy is walked with the mapping its
 * process had when the sample was taken.
 *
 * Bounded: FTFB_MAPPED_SLOTS processes (by tgid; a newer one takes an
 * older one's slot), FTFB_MAPPED_PER_PROC mappings each (the oldest go;
 * a mapping made again as it was is kept once, with its first time).
 * Thread-safe (one lock): the loader's thread puts, the run loop finds.
 */
#ifndef FTFB_MAPPED_LOG_H
#define FTFB_MAPPED_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

/* (binutils' ar dlopens its bfd plugins for each member of an archive,
 * and LLVMgold.so maps some twenty libraries each time: the same
 * mappings, kept once) */
#define FTFB_MAPPED_SLOTS 2048
#define FTFB_MAPPED_PER_PROC 64

/* tgid exec'd at at_ns (CLOCK_MONOTONIC): its mappings made before are
 * gone (those put later but made before are not kept). */
void ftfb_mapped_exec(uint32_t tgid, uint64_t at_ns);
/* The time of tgid's last exec put (0: none known). */
uint64_t ftfb_mapped_exec_ns(uint32_t tgid);
/* tgid mapped v at at_ns (CLOCK_MONOTONIC). */
void ftfb_mapped_put(uint32_t tgid, const struct ftfb_uw_vma *v,
		     uint64_t at_ns);
/* The mappings tgid made in its image before at_ns into out (at most
 * max), the latest first: how many. */
size_t ftfb_mapped_list(uint32_t tgid, uint64_t at_ns, struct ftfb_uw_vma *out,
			size_t max);
/* Whether the kernel's records are being taken (the loader opened its
 * perf events), and the time up to which they have all been put: a copy
 * of a stack taken later waits for them (a library its process mapped
 * and unmapped just before is in none of its reads). */
void ftfb_mapped_watching(bool on);
void ftfb_mapped_drained(uint64_t until_ns);
/* The time up to which the log is whole: UINT64_MAX when no records are
 * taken (nothing to wait for). */
uint64_t ftfb_mapped_until(void);
/* Forgets all (tests; a session's end). */
void ftfb_mapped_clear(void);

#endif
