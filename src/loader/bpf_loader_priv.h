/* SPDX-License-Identifier: MIT */
/*
 * bpf_loader_priv.h - the loader's state and the helpers its files share:
 * the core (bpf_loader.c), the rings (loader_rings.c) and one file per
 * source (loader_sched.c, loader_uprobe.c, loader_usdt.c,
 * loader_syscalls.c, loader_stacks.c, and the --events sources through
 * loader_events.c). Not for the tool: it reads bpf_loader.h.
 */
#ifndef FTFB_BPF_LOADER_PRIV_H
#define FTFB_BPF_LOADER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_loader.h"

struct linkvec {
	struct bpf_link **v;
	size_t n, cap;
};

/* An --events source's object (loader_events.c): a generic skeleton, so
 * the core stops, lists and closes it without knowing its type. */
struct ftfb_ld_source {
	const char *name;		/* its --events name: "irq" */
	struct bpf_object_skeleton *sk; /* destroyed at close, */
	void *skel;			/* and its skeleton struct freed */
	volatile __u32 *armed;		/* its `armed` flag once armed */
};

#define FTFB_LD_MAX_SOURCES 8

struct ftfb_loader {
	struct ftfb_loader_opts opts;
	struct sched_bpf *sched;
	struct uprobe_bpf *up;
	struct syscalls_bpf *sys; /* --syscalls */
	struct usdt_bpf *usdt;	  /* -u usdt:... */
	struct stacks_bpf *stk;	  /* --stacks */
	/* --stacks: the stack object's twin (load_twins.h), with the
	 * off-CPU and waker programs and the same maps; before the attach,
	 * the stack object while both load (stk_twins), and the error of
	 * their start */
	struct stacks_bpf *stk_off;
	struct stacks_bpf *stk_loading;
	struct ftfb_ld_twins *stk_twins;
	int stk_err;
	struct ftfb_uw_loader
		*uw; /* --stacks: the user stack walker's tables */
	/* the --events sources attached, in their order */
	struct ftfb_ld_source src[FTFB_LD_MAX_SOURCES];
	int nsrc;
	bool up_multi_loaded; /* the uprobe.multi programs are loaded */
	bool up_multi_used;   /* uprobes attached with uprobe_multi links */
	int ring_fds[FTFB_MAX_RINGS];
	int nr_rings;
	struct ftfb_ring_reader *reader; /* all rings, or ring 0 once split */
	bool split;
	struct linkvec links;  /* sched (and flush-only sched) links */
	struct linkvec ulinks; /* uprobe links, destroyed at drain */
	bool flushers;	       /* buffer flushing enabled (ubuf_active) */
	int ncpus;
	unsigned char *ubufs; /* mmap of the ubufs map (ncpus buffers) */
	size_t ubufs_len, ubuf_stride;
	uint64_t *percpu; /* ncpus values, for the counter lookups */
	/* the current poll's callback */
	ftfb_event_fn fn;
	void *fn_ctx;
	int stop;      /* fn's non-zero return */
	int delivered; /* events passed to fn by this poll/drain */
};

/* bpf_loader.c: one line in errmsg; strerror for the kernel-internal
 * codes libbpf passes through too; what to do about a load error */
void ftfb_ld_set_err(char *errmsg, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *ftfb_ld_errstr(int err);
const char *ftfb_ld_load_hint(int err);
/* link kept in lv (destroyed at close); 0 or -ENOMEM */
int ftfb_ld_add_link(struct linkvec *lv, struct bpf_link *link);
/* a link just made (NULL: -errno) kept with the sched links */
int ftfb_ld_keep_link(struct ftfb_loader *l, struct bpf_link *link);
/* obj's copies of the shared maps made the sched object's */
int ftfb_ld_share_maps(struct ftfb_loader *l, struct bpf_object *obj);
/* the run count and time of prog added to s (kernel.bpf_stats_enabled) */
int ftfb_ld_prog_stats(struct bpf_program *prog, struct ftfb_prog_stats *s);

/* The set-up every source's object shares, after its skeleton's open:
 * the common rodata knobs (common.bpf.h) and its copies of the shared
 * maps made the sched object's (the rings, the traced set, the counters,
 * the per-CPU buffers). One macro for the rodata: each skeleton has its
 * own rodata struct, with these fields of the same names. */
#define SET_COMMON_RODATA(l, skel)                                             \
	do {                                                                   \
		(skel)->rodata->filter_tgids = (l)->opts.filter_tgids;         \
		(skel)->rodata->nr_rings = (l)->nr_rings;                      \
		(skel)->rodata->wakeup_bytes = (l)->opts.ring_bytes / 4;       \
		(skel)->rodata->self_tgid =                                    \
			(l)->opts.exclude_self ? (__u32)getpid() : 0;          \
	} while (0)

/* loader_sched.c */
bool ftfb_ld_is_flusher(const struct bpf_program *prog);
int ftfb_ld_load_sched(struct ftfb_loader *l, char *errmsg, size_t errlen);
int ftfb_ld_attach_sched(struct ftfb_loader *l, bool flushers_only,
			 char *errmsg, size_t errlen);
/* the per-cpu buffers flushed from now on (a buffering source's attach) */
int ftfb_ld_start_flushers(struct ftfb_loader *l, char *errmsg, size_t errlen);

/* loader_stacks.c: the stack programs' loads started (the sched object's
 * shared maps made), to go on beside the rest of the start; their end
 * waited for and what they made closed (the close of an l never
 * attached: before the objects' destroy) */
void ftfb_ld_preload_stacks(struct ftfb_loader *l);
void ftfb_ld_abandon_stacks(struct ftfb_loader *l);

/* loader_rings.c */
int ftfb_ld_create_rings(struct ftfb_loader *l, char *errmsg, size_t errlen);
int ftfb_ld_map_ubufs(struct ftfb_loader *l, char *errmsg, size_t errlen);
void ftfb_ld_prefault_rings(struct ftfb_loader *l);
/* a ring record to l->fn (the ring reader's callback, ctx: l) */
int ftfb_ld_on_record(void *ctx, const void *data, size_t size);
/* at stop: what is left in cpu's uprobe buffer, delivered */
int ftfb_ld_take_ubuf(struct ftfb_loader *l, int cpu);

/* loader_events.c: an --events source's object, opened by its file
 * with its rodata set: kept in l->src (closed with l even on failure),
 * loaded and attached; then armed. */
bool ftfb_ld_source_started(const struct ftfb_loader *l, const char *name);
int ftfb_ld_start_source(struct ftfb_loader *l, const char *name,
			 struct bpf_object_skeleton *sk, void *skel,
			 char *errmsg, size_t errlen);
int ftfb_ld_arm_source(struct ftfb_loader *l, volatile __u32 *armed);
int ftfb_ld_open_failed(const char *what, char *errmsg, size_t errlen);

#endif
