/* SPDX-License-Identifier: MIT */
/*
 * symbolize.h - instruction addresses to function names, for --stacks.
 *
 * User addresses: the process's executable mappings (/proc/PID/maps, read
 * once per process and again when an address falls outside them), the
 * functions of each mapped file through the project's ELF reader
 * (elfsym.h, opened through /proc/PID/root so containers work; names
 * demangled), read once per file (device and inode). Kernel addresses:
 * /proc/kallsyms, read once. An address that no function covers keeps
 * its mapping and offset (or none), so Perfetto's offline symbolizer can
 * still work on it.
 */
#ifndef FTFB_SYMBOLIZE_H
#define FTFB_SYMBOLIZE_H

#include "stackprof.h"

struct ftfb_symbolizer;

int ftfb_symbolizer_new(struct ftfb_symbolizer **out);
void ftfb_symbolizer_free(struct ftfb_symbolizer *sy);

/* An ftfb_symbolize_fn; ctx is the symbolizer. The strings it gives are
 * valid until the next call. */
void ftfb_symbolize(void *ctx, uint32_t tgid, uint64_t ip, bool kernel,
		    bool leaf, struct ftfb_frame_sym *out);

/* Drops what is known of process tgid (its maps): it exec'd or exited
 * at ts_ns (CLOCK_MONOTONIC, the event's time). */
void ftfb_symbolizer_forget(void *ctx, uint32_t tgid, uint64_t ts_ns);

#endif
