/* SPDX-License-Identifier: MIT */
/*
 * stackprof.h - stack samples (--stacks) as Perfetto TracePackets inside
 * the FTF trace.
 *
 * Perfetto's Fuchsia importer reads the payloads of blob records of blob
 * type 3 as a stream of Perfetto TracePackets, so the samples go there:
 * interned mappings, frames, callstacks and sample contexts (InternedData)
 * and one StackSample packet per sample. Each kind of sample has a packet
 * sequence of its own, and so a session (primary counter) of its own in
 * trace_processor: sequence 1 the on-CPU samples, sequence 2 the off-CPU
 * stacks (weighted by the time off CPU in ns, as primary_weight),
 * sequence 3 the wakers' stacks at the wakeups of traced threads. A
 * sequence interns each distinct string, mapping, frame and callstack
 * once.
 *
 * Each kind has its own source too: "linux.perf" (the UI's "Perf") the
 * on-CPU samples, "off-CPU" and "waker" the others. The UI gives each
 * source its own callstack tracks and its own area-selection tab ("Perf
 * Sample Flamegraph", ...), the known sources first (linux.perf), and
 * selects the Perf samples of a process at load. Within one source the
 * flame graph opens on the first session's counter, sessions sorted by
 * name ("off-CPU time" before "on-CPU samples") or by id (the order of
 * their first samples in time): with one source for all, an area
 * selection opened on the time off CPU.
 *
 * Stacks come from the kernel as 64-bit hashes: the ips of a stack are
 * sent once, with the first sample that shows it (bpf/stacks.bpf.c), and
 * kept here by hash.
 *
 * Timestamps are given in the trace's Perfetto ns (the FTF ticks as
 * Perfetto converts them), so the samples land on the timeline of the
 * scheduling records. Symbols come from a callback (symbolize.h for the
 * tool; tests give their own). Memory grows with each distinct stack,
 * frame and name, never per sample.
 */
#ifndef FTFB_STACKPROF_H
#define FTFB_STACKPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftf/writer.h"
#include "pystack_codes.h"
#include "events.h"

enum ftfb_stack_kind {
	FTFB_STACK_ON_CPU = 0,
	FTFB_STACK_OFF_CPU = 1,
	FTFB_STACK_WAKER = 2, /* the waker's, at a wakeup (--events=waker) */
	FTFB_STACK_KINDS = 3,
};

/* What the symbolizer knows of one instruction address. Strings are the
 * symbolizer's, read (and copied) during the call only. */
struct ftfb_frame_sym {
	const char *function; /* demangled name; NULL: unknown */
	const char *path;     /* the mapping's file; NULL: no mapping found */
	uint64_t start, end, pgoff; /* the mapping */
	uint64_t rel_pc;	    /* ip - start + pgoff (kernel: the ip) */
	const uint8_t *build_id;    /* the mapped file's GNU build id, raw */
	size_t build_id_len;	    /* 0: none known */
};

/* leaf: ip is where the sample was taken (not a return address). */
typedef void (*ftfb_symbolize_fn)(void *ctx, uint32_t tgid, uint64_t ip,
				  bool kernel, bool leaf,
				  struct ftfb_frame_sym *out);

/* The stacks the kernel sent, by hash (a stack's ips come once). A
 * stackprof keeps its own, or uses one that outlives it: the flight
 * recorder's, fed as events come in, since a snapshot's window may hold
 * samples of a stack whose ips came before it. */
struct ftfb_stackstore;
int ftfb_stackstore_new(struct ftfb_stackstore **out);
/* Keeps n ips (leaf first) under hash, unless it has them; 0 or -ENOMEM. */
int ftfb_stackstore_add(struct ftfb_stackstore *s, uint64_t hash,
			const uint64_t *ips, uint32_t n);
/* The ips kept under hash (*n of them), NULL if none. */
const uint64_t *ftfb_stackstore_get(const struct ftfb_stackstore *s,
				    uint64_t hash, uint32_t *n);
void ftfb_stackstore_free(struct ftfb_stackstore *s);

struct ftfb_stackprof_opts {
	struct ftf_writer *w;
	ftfb_symbolize_fn symbolize;
	void *symbolize_ctx;
	unsigned freq_hz; /* the on-CPU timebase's frequency */
	/* may be NULL; ts_ns: the exec's or exit's CLOCK_MONOTONIC time */
	void (*forget)(void *symbolize_ctx, uint32_t tgid, uint64_t ts_ns);
	struct ftfb_stackstore *store; /* NULL: the stackprof's own */
	struct ftfb_pycodes *pycodes;  /* NULL: the stackprof's own */
};

/* One sample. Stack ips leaf first (as bpf_get_stack gives them); ips is
 * NULL when the stack was sent before (its hash is known); hash 0: no
 * such stack (no user frames, or no kernel frames). */
struct ftfb_stack_sample {
	enum ftfb_stack_kind kind;
	uint64_t ts_ns; /* Perfetto ns */
	uint32_t cpu, tid, tgid;
	uint64_t weight; /* off CPU: ns; on CPU: 1 */
	uint64_t uhash, khash;
	const uint64_t *uips, *kips;
	uint32_t nu, nk;
	/* Python frames (bpf/pystack.h entries, leaf first), as a stack
	 * of their own: hash 0 none, pips NULL when sent before; they take
	 * the place of the interpreter's frames (pystack_merge.h) */
	uint64_t phash;
	const uint64_t *pips;
	uint32_t np;
};

/* Whether a stack event of size bytes, its ips at ips, is one the BPF
 * side can send: its counts within bounds and its ips all there. */
bool ftfb_stack_event_ok(const struct ftfb_stack *e, size_t size,
			 const uint64_t *ips);

struct ftfb_stackprof;

int ftfb_stackprof_new(struct ftfb_stackprof **out,
		       const struct ftfb_stackprof_opts *o);
/* 0, a negative errno of the writer, or -ENOMEM. A sample whose stack
 * hash was never defined is counted (unknown_stacks) and written with
 * the stack it has. */
int ftfb_stackprof_sample(struct ftfb_stackprof *sp,
			  const struct ftfb_stack_sample *s);
/* The strings of a Python code object (FTFB_EV_PYCODE); 0 or -ENOMEM. */
int ftfb_stackprof_pycode(struct ftfb_stackprof *sp,
			  const struct ftfb_pycode *e);
/* Process tgid exec'd or exited: its addresses mean other code from now
 * on (a new image, or a new process under a reused pid), so its frames
 * and callstacks are interned anew, and the symbolizer's forget callback
 * drops what it knew of the process. */
void ftfb_stackprof_forget(struct ftfb_stackprof *sp, uint32_t tgid,
			   uint64_t ts_ns);
/* Writes what is buffered (call at the end of the trace). */
int ftfb_stackprof_flush(struct ftfb_stackprof *sp);
void ftfb_stackprof_free(struct ftfb_stackprof *sp);

struct ftfb_stackprof_stats {
	uint64_t samples[FTFB_STACK_KINDS], weight[FTFB_STACK_KINDS];
	uint64_t unknown_stacks; /* a hash whose ips never came */
	uint64_t python_samples; /* with Python frames */
	uint64_t python_interleaved; /* ... among complete native stacks */
	uint64_t unknown_pycodes; /* Python frames whose strings never came */
	uint64_t packets, bytes;
};
const struct ftfb_stackprof_stats *
ftfb_stackprof_stats(const struct ftfb_stackprof *sp);

/* The top functions of kind by weight: the innermost user frame of each
 * sample (the kernel's if it has none). Writes up to n names and weights,
 * returns how many. */
size_t ftfb_stackprof_top(const struct ftfb_stackprof *sp,
			  enum ftfb_stack_kind kind, const char **names,
			  uint64_t *weights, size_t n);

#endif
