// SPDX-License-Identifier: MIT
/*
 * src/loader/bpf_loader.c - the loader's core: the sched object loaded with the
 * shared maps, the other objects' maps made those, the rings read, the
 * stop, the counters and statistics, the close. Each source's load and
 * attach is a file of its own (loader_*.c, bpf_loader_priv.h).
 *
 * The sched object creates the shared maps (rings, traced_tgids, fired,
 * drops); every other object is loaded when its source is attached, with
 * the same maps (bpf_map__reuse_fd), so there is one event stream and
 * one set of counters. The ring buffers themselves are created of the
 * size asked for, and stored in the `rings` array-of-maps
 * (loader_rings.c).
 *
 * The uprobe programs buffer their events per cpu (`ubufs`, see
 * bpf/ubuf.h) and write them to the ring as FTFB_EV_BATCH records, which
 * are split when read; at stop the loader takes the buffers' tails
 * through an mmap of that map. The sched programs that flush the buffers
 * (switch, exit, exec) are loaded even without opts->sched, then
 * attached with the first uprobes and emitting nothing of their own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpf_loader_priv.h"
#include "detach.h"
#include "monotime.h"
#include "ring_reader.h"
#include "ubuf.h"
#include "unwind_maps.h"
#include "sched.skel.h"
#include "uprobe.skel.h"
#include "syscalls.skel.h"
#include "usdt.skel.h"
#include "stacks.skel.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void ftfb_ld_set_err(char *errmsg, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errmsg || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errmsg, errlen, fmt, ap);
	va_end(ap);
}

/* strerror for the kernel-internal codes libbpf passes through too. */
const char *ftfb_ld_errstr(int err)
{
	if (err < 0)
		err = -err;
	if (err == 524) /* ENOTSUPP */
		return "Operation not supported";
	return strerror(err);
}

const char *ftfb_ld_load_hint(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return ": ftf-bpf needs root or CAP_BPF+CAP_PERFMON";
	case EINVAL:
	case 524:
	case EOPNOTSUPP:
		return ": the kernel lacks a needed BPF feature (tp_btf, "
		       "ring buffers; Linux 5.8+ with BTF), -v shows libbpf's "
		       "log";
	default:
		return "";
	}
}

int ftfb_ld_add_link(struct linkvec *lv, struct bpf_link *link)
{
	if (lv->n == lv->cap) {
		size_t cap = lv->cap ? 2 * lv->cap : 16;
		struct bpf_link **nl = realloc(lv->v, cap * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		lv->v = nl;
		lv->cap = cap;
	}
	lv->v[lv->n++] = link;
	return 0;
}

static void destroy_links(struct linkvec *lv)
{
	while (lv->n)
		bpf_link__destroy(lv->v[--lv->n]);
}

int ftfb_loader_check_btf(char *errmsg, size_t errlen)
{
	int err;

	if (!access(BTF_PATH, R_OK))
		return 0;
	err = -errno;
	if (err == -ENOENT)
		ftfb_ld_set_err(errmsg, errlen,
				"this kernel has no BTF (" BTF_PATH
				" missing): ftf-bpf needs a kernel built with "
				"CONFIG_DEBUG_INFO_BTF=y");
	else
		ftfb_ld_set_err(errmsg, errlen,
				"cannot read " BTF_PATH ": %s%s",
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
	return err;
}

/* The options a caller may get wrong: 0, or -EINVAL with one line. */
static int check_opts(const struct ftfb_loader_opts *opts, char *errmsg,
		      size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);

	if (opts->uprobe_nargs < 0 || opts->uprobe_nargs > FTFB_MAX_ARGS) {
		ftfb_ld_set_err(errmsg, errlen, "--args must be 0..%d, not %d",
				FTFB_MAX_ARGS, opts->uprobe_nargs);
		return -EINVAL;
	}
	if (opts->nr_rings < 0 || opts->nr_rings > FTFB_MAX_RINGS) {
		ftfb_ld_set_err(errmsg, errlen,
				"the number of ring buffers must be "
				"1..%d, not %d",
				FTFB_MAX_RINGS, opts->nr_rings);
		return -EINVAL;
	}
	if (opts->ring_bytes && (opts->ring_bytes < (size_t)page ||
				 (opts->ring_bytes & (opts->ring_bytes - 1)) ||
				 opts->ring_bytes > (1ul << 31))) {
		ftfb_ld_set_err(errmsg, errlen,
				"ring buffer size %zu: must be a power "
				"of 2 between %ld and 2 GiB",
				opts->ring_bytes, page);
		return -EINVAL;
	}
	return 0;
}

int ftfb_loader_open(struct ftfb_loader **out,
		     const struct ftfb_loader_opts *opts, char *errmsg,
		     size_t errlen)
{
	struct ftfb_loader *l;
	int err;

	*out = NULL;
	err = check_opts(opts, errmsg, errlen);
	if (!err)
		err = ftfb_loader_check_btf(errmsg, errlen);
	if (err)
		return err;

	l = calloc(1, sizeof(*l));
	if (!l) {
		ftfb_ld_set_err(errmsg, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < FTFB_MAX_RINGS; i++)
		l->ring_fds[i] = -1;
	l->opts = *opts;
	if (!l->opts.ring_bytes)
		l->opts.ring_bytes = FTFB_DEFAULT_RING_BYTES;
	l->nr_rings = opts->nr_rings ? opts->nr_rings : FTFB_DEFAULT_RINGS;
	l->ncpus = libbpf_num_possible_cpus();
	if (l->ncpus <= 0) {
		err = l->ncpus ? l->ncpus : -EINVAL;
		ftfb_ld_set_err(errmsg, errlen,
				"cannot count the possible CPUs: %s",
				ftfb_ld_errstr(err));
		goto fail;
	}
	l->percpu = calloc(l->ncpus, sizeof(*l->percpu));
	if (!l->percpu) {
		err = -ENOMEM;
		ftfb_ld_set_err(errmsg, errlen, "out of memory");
		goto fail;
	}

	libbpf_verbose = opts->verbose;
	libbpf_set_print(libbpf_print);

	err = ftfb_ld_load_sched(l, errmsg, errlen);
	if (err)
		goto fail;
	if (opts->preload_stacks) /* (its errors: at the attach) */
		ftfb_ld_preload_stacks(l);
	err = ftfb_ld_create_rings(l, errmsg, errlen);
	if (err)
		goto fail;
	err = ftfb_ld_map_ubufs(l, errmsg, errlen);
	if (err)
		goto fail;
	ftfb_ld_prefault_rings(l);
	if (opts->sched) {
		/* While the programs are attached one by one, every task is
		 * named from the kernel (a task born in between has a switch
		 * but maybe no fork event); once all are, only the older ones:
		 * every task born from then on has a fork event. */
		l->sched->bss->born_before_ns = UINT64_MAX;
		err = ftfb_ld_attach_sched(l, false, errmsg, errlen);
		if (err)
			goto fail;
		l->sched->bss->born_before_ns = ftfb_mono_ns();
	}
	*out = l;
	return 0;
fail:
	ftfb_loader_close(l);
	return err;
}

int ftfb_loader_trace_tgid(struct ftfb_loader *l, uint32_t tgid)
{
	__u8 one = 1;

	if (bpf_map__update_elem(l->sched->maps.traced_tgids, &tgid,
				 sizeof(tgid), &one, sizeof(one), BPF_ANY))
		return -errno;
	return 0;
}

int ftfb_ld_share_maps(struct ftfb_loader *l, struct bpf_object *obj)
{
	static const char *const shared[] = {"rings", "traced_tgids", "fired",
					     "drops", "ubufs"};

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *ours =
			bpf_object__find_map_by_name(l->sched->obj, shared[i]);
		struct bpf_map *theirs =
			bpf_object__find_map_by_name(obj, shared[i]);
		int err;

		if (!ours || !theirs)
			return -ENOENT;
		err = bpf_map__reuse_fd(theirs, bpf_map__fd(ours));
		if (err)
			return err;
	}
	return 0;
}

int ftfb_ld_keep_link(struct ftfb_loader *l, struct bpf_link *link)
{
	int err;

	if (!link)
		return -errno;
	if ((err = ftfb_ld_add_link(&l->links, link)))
		bpf_link__destroy(link);
	return err;
}

/* ---- --events sources: one object each, opened by its caller with
 * its rodata set (the common ones by SET_COMMON_RODATA) ---- */

/* The callback of a poll or drain. */
static void begin_reading(struct ftfb_loader *l, ftfb_event_fn fn, void *ctx)
{
	l->fn = fn;
	l->fn_ctx = ctx;
	l->stop = 0;
	l->delivered = 0;
}

int ftfb_loader_poll(struct ftfb_loader *l, int timeout_ms, ftfb_event_fn fn,
		     void *ctx)
{
	int n;

	begin_reading(l, fn, ctx);
	n = ftfb_ring_reader_poll(l->reader, timeout_ms, ftfb_ld_on_record, l);
	if (l->stop)
		return l->stop;
	return n < 0 ? n : l->delivered;
}

int ftfb_loader_poll_raw(struct ftfb_loader *l, int timeout_ms,
			 ftfb_event_fn fn, void *ctx)
{
	return ftfb_ring_reader_poll(l->reader, timeout_ms, fn, ctx);
}

int ftfb_loader_deliver(struct ftfb_loader *l, const void *data, size_t size,
			ftfb_event_fn fn, void *ctx)
{
	begin_reading(l, fn, ctx);
	ftfb_ld_on_record(l, data, size);
	return l->stop;
}

int ftfb_loader_split_rings(struct ftfb_loader *l, int fds[FTFB_MAX_RINGS])
{
	struct ftfb_ring_reader *r;
	int err;

	if (l->nr_rings < 2 || l->split)
		return 0;
	err = ftfb_ring_reader_new(&r, l->ring_fds[0]);
	if (err)
		return err;
	ftfb_ring_reader_free(l->reader);
	l->reader = r;
	l->split = true;
	for (int i = 1; i < l->nr_rings; i++)
		fds[i - 1] = l->ring_fds[i];
	return l->nr_rings - 1;
}

void ftfb_loader_stop_recording(struct ftfb_loader *l)
{
	ftfb_loader_arm_uprobes(l, false);
	if (l->sys)
		__atomic_store_n(&l->sys->bss->armed, 0, __ATOMIC_RELEASE);
	if (l->stk)
		__atomic_store_n(&l->stk->bss->armed, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < l->nsrc; i++)
		if (l->src[i].armed)
			__atomic_store_n(l->src[i].armed, 0, __ATOMIC_RELEASE);
	if (l->sched)
		__atomic_store_n(&l->sched->bss->stopped, 1, __ATOMIC_RELEASE);
}

/* Consume until the rings are empty, also of the records a program still
 * running at the stop commits a moment later (for at most a second). */
static int consume_settled(struct ftfb_loader *l)
{
	int n = ftfb_ring_reader_drain(l->reader, ftfb_ld_on_record, l);

	return l->stop ? l->stop : n;
}

int ftfb_loader_drain(struct ftfb_loader *l, ftfb_event_fn fn, void *ctx)
{
	int err;

	ftfb_uw_stop(l->uw); /* no more stacks to walk */
	begin_reading(l, fn, ctx);
	/* No new events at all: the trace ends now, and draining must end
	 * even on a machine busy enough to fill the rings as fast as they
	 * are read (seen: -a under load never finished draining). The
	 * programs stay attached but return at once (their links are
	 * released at close, which may take long: see detach.h). The
	 * uprobe buffers only shrink from here; with the sched programs
	 * stopped, their tails (each the newest events of the thread that
	 * ran last on that cpu) are taken below, after everything older in
	 * the ring. */
	ftfb_loader_stop_recording(l);
	err = consume_settled(l);
	if (err)
		return err;
	if (!l->flushers)
		return l->delivered;
	/* The tails still buffered, every cpu's whatever fails (the first
	 * error is returned); a sched program still running at the stop
	 * may have flushed one into the ring: read below. */
	for (int cpu = 0; cpu < l->ncpus; cpu++) {
		int e = ftfb_ld_take_ubuf(l, cpu);

		if (e && !err)
			err = e;
	}
	/* What sched programs flushed meanwhile, and the sched events that
	 * followed (after the buffered part of the same thread). */
	{
		int e = consume_settled(l);

		if (e)
			return e;
	}
	return err ? err : l->delivered;
}

static int sum_percpu(struct ftfb_loader *l, struct bpf_map *map,
		      uint64_t out[FTFB_EV_KIND_MAX])
{
	for (__u32 k = 0; k < FTFB_EV_KIND_MAX; k++) {
		out[k] = 0;
		if (bpf_map__lookup_elem(map, &k, sizeof(k), l->percpu,
					 l->ncpus * sizeof(*l->percpu), 0))
			return -errno;
		for (int c = 0; c < l->ncpus; c++)
			out[k] += l->percpu[c];
	}
	return 0;
}

int ftfb_loader_counters(struct ftfb_loader *l,
			 uint64_t drops[FTFB_EV_KIND_MAX],
			 uint64_t fired[FTFB_EV_KIND_MAX])
{
	int err = 0;

	if (drops)
		err = sum_percpu(l, l->sched->maps.drops, drops);
	if (!err && fired)
		err = sum_percpu(l, l->sched->maps.fired, fired);
	if (!err && fired && l->ubufs) {
		static const int slot_kind[FTFB_UBUF_NSLOTS] =
			FTFB_UBUF_SLOT_KINDS;

		/* the uprobe events appended to the buffers */
		for (int cpu = 0; cpu < l->ncpus; cpu++) {
			const struct ftfb_ubuf *b =
				(const void *)(l->ubufs + cpu * l->ubuf_stride);

			for (int i = 0; i < FTFB_UBUF_NSLOTS; i++)
				fired[slot_kind[i]] += __atomic_load_n(
					&b->fired[i], __ATOMIC_RELAXED);
		}
	}
	return err;
}

int ftfb_ld_prog_stats(struct bpf_program *prog, struct ftfb_prog_stats *s)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	if (fd < 0) /* not loaded */
		return 0;
	memset(&info, 0, sizeof(info));
	if (bpf_prog_get_info_by_fd(fd, &info, &len))
		return -errno;
	s->run_cnt += info.run_cnt;
	s->run_time_ns += info.run_time_ns;
	return 0;
}

static void add_prog_ids(struct bpf_object *obj, uint32_t *ids, size_t max,
			 int *n)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj)
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_prog_get_info_by_fd(fd, &info, &len))
			continue;
		if ((size_t)*n < max)
			ids[*n] = info.id;
		(*n)++;
	}
}

int ftfb_loader_prog_ids(struct ftfb_loader *l, uint32_t *ids, size_t max)
{
	int n = 0;

	add_prog_ids(l->sched->obj, ids, max, &n);
	if (l->up)
		add_prog_ids(l->up->obj, ids, max, &n);
	if (l->sys)
		add_prog_ids(l->sys->obj, ids, max, &n);
	if (l->usdt)
		add_prog_ids(l->usdt->obj, ids, max, &n);
	if (l->stk) { /* (and its twin, once loaded) */
		add_prog_ids(l->stk->obj, ids, max, &n);
		add_prog_ids(l->stk_off->obj, ids, max, &n);
	}
	for (int i = 0; i < l->nsrc; i++)
		add_prog_ids(*l->src[i].sk->obj, ids, max, &n);
	return n;
}

/* The fds of every link, for the detacher; NULL if there is none. */
static int *link_fds(struct ftfb_loader *l, size_t *n)
{
	size_t total = l->links.n + l->ulinks.n, k = 0;
	int *fds;

	*n = 0;
	if (!total || !(fds = malloc(total * sizeof(*fds))))
		return NULL;
	for (size_t i = 0; i < l->ulinks.n; i++)
		fds[k++] = bpf_link__fd(l->ulinks.v[i]);
	for (size_t i = 0; i < l->links.n; i++)
		fds[k++] = bpf_link__fd(l->links.v[i]);
	*n = k;
	return fds;
}

void ftfb_loader_close(struct ftfb_loader *l)
{
	struct ftfb_detacher d = {0, -1};

	if (!l)
		return;
	if (l->opts.background_detach) {
		size_t n;
		int *fds = link_fds(l, &n);

		/* recording stops first, so nothing is recorded half while
		 * the links go one by one */
		ftfb_loader_stop_recording(l);
		int err = fds ? ftfb_detacher_start(&d, fds, n) : 0;

		if (err && l->opts.verbose)
			fprintf(stderr,
				"ftf-bpf: cannot start the detaching helper "
				"(%s): detaching here\n",
				strerror(-err));
		else if (d.pid && l->opts.verbose)
			fprintf(stderr,
				"ftf-bpf: the probes go with process %d "
				"(" FTFB_DETACHER_NAME
				"), once the kernel lets them\n",
				(int)d.pid);
		free(fds);
	}
	/* With a helper these are not the last copies: they return at once. */
	destroy_links(&l->ulinks);
	destroy_links(&l->links);
	free(l->ulinks.v);
	free(l->links.v);
	uprobe_bpf__destroy(l->up);
	syscalls_bpf__destroy(l->sys);
	usdt_bpf__destroy(l->usdt);
	ftfb_ld_abandon_stacks(l);
	stacks_bpf__destroy(l->stk_off);
	stacks_bpf__destroy(l->stk);
	ftfb_uw_loader_free(l->uw);
	for (int i = 0; i < l->nsrc; i++) { /* (as their X_bpf__destroy) */
		bpf_object__destroy_skeleton(l->src[i].sk);
		free(l->src[i].skel);
	}
	ftfb_ring_reader_free(l->reader);
	sched_bpf__destroy(l->sched);
	for (int i = 0; i < FTFB_MAX_RINGS; i++)
		if (l->ring_fds[i] >= 0)
			close(l->ring_fds[i]);
	if (l->ubufs)
		munmap(l->ubufs, l->ubufs_len);
	free(l->percpu);
	free(l);
	ftfb_detacher_release(&d);
}
