/* SPDX-License-Identifier: MIT */
/*
 * bench/replay_gen.h - a synthetic raw event stream for bench-replay: what
 * the BPF side of `ftf-bpf -a --syscalls -u ...` hands the translator on a
 * busy many-core machine (after the loader has split the per-CPU batches).
 */
#ifndef FTFB_REPLAY_GEN_H
#define FTFB_REPLAY_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct replay_params {
	size_t events;   /* events to generate */
	unsigned cpus;   /* cpus the tasks run on */
	unsigned tasks;  /* threads, all alive from the start */
	unsigned procs;  /* processes they belong to */
	unsigned funcs;  /* probed functions (uprobe cookies) */
	/* the mix, percent of events (the rest: uprobe entries/returns) */
	unsigned pct_switch, pct_wakeup, pct_syscall;
	uint64_t ns_per_event; /* time between events, machine-wide */
	uint64_t seed;
};

/* One event of the stream: its bytes in the arena, its ring. */
struct replay_ev {
	uint32_t off;  /* offset in replay_stream.bytes */
	uint16_t size;
	uint16_t cpu;
};

struct replay_stream {
	unsigned char *bytes; /* the raw events, 8-aligned, back to back */
	size_t used, alloc;
	struct replay_ev *ev;
	size_t n, cap;
	size_t by_kind[FTFB_EV_KIND_MAX];
};

/* Builds the stream; 0 or -ENOMEM. */
int replay_generate(struct replay_stream *s, const struct replay_params *p);
void replay_free(struct replay_stream *s);

/* tid of task i (0-based) and its process's tgid, as the generator uses */
uint32_t replay_tid(const struct replay_params *p, unsigned i);
uint32_t replay_tgid(const struct replay_params *p, unsigned i);

#endif
