// SPDX-License-Identifier: MIT
/*
 * src/bpf_loader.c - load the BPF objects of bpf/, share their maps,
 * attach the programs and read the ring buffers.
 *
 * The sched object creates the shared maps (rings, traced_tgids, fired,
 * drops); the uprobe object is loaded on the first uprobe attach with the
 * same maps (bpf_map__reuse_fd), so there is one event stream and one set
 * of counters. The ring buffers themselves are created here, of the size
 * asked for, and stored in the `rings` array-of-maps.
 *
 * The uprobe programs buffer their events per cpu (`ubufs`, see
 * bpf/ubuf.h) and write them to the ring as FTFB_EV_BATCH records, which
 * are split here; at stop the loader takes the buffers' tails through an
 * mmap of that map. The sched programs that flush the buffers (switch, exit,
 * exec) are loaded even without opts->sched, then attached with the
 * first uprobes and emitting nothing of their own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_loader.h"
#include "ring_reader.h"
#include "detach.h"
#include "monotime.h"
#include "ubuf.h"
#include "sched.skel.h"
#include "uprobe.skel.h"
#include "syscalls.skel.h"
#include "usdt.skel.h"
#include "stacks.skel.h"
#include "unwind_maps.h"
#include "blockio.skel.h"
#include "irq.skel.h"
#include "mem.skel.h"
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define BTF_PATH "/sys/kernel/btf/vmlinux"

struct linkvec {
	struct bpf_link **v;
	size_t n, cap;
};

/* sched programs that flush the uprobe buffers */
/* Attached with the uprobes even with --no-sched: switch, exit and exec
 * flush the uprobe buffers; exit, exec, fork and rename also keep the
 * process/thread names and the slices right (a thread that exits or
 * execs has its open calls closed). Only switch is silent then. */
static const char *const flusher_progs[] = { "ftfb_switch", "ftfb_exit",
					     "ftfb_exec", "ftfb_fork",
					     "ftfb_rename" };

struct ftfb_loader {
	struct ftfb_loader_opts opts;
	struct sched_bpf *sched;
	struct uprobe_bpf *up;
	struct syscalls_bpf *sys; /* --syscalls */
	struct usdt_bpf *usdt;    /* -u usdt:... */
	struct stacks_bpf *stk;   /* --stacks */
	struct ftfb_uw_loader *uw; /* --stacks: the user stack walker's tables */
	struct blockio_bpf *blk;  /* --events=io */
	struct irq_bpf *irq;      /* --events=irq */
	struct mem_bpf *mem;      /* --events=mem */
	/* the `armed` flags of the --events sources attached */
	volatile __u32 *src_armed[3];
	int nsrc;
	bool up_multi_loaded; /* the uprobe.multi programs are loaded */
	bool up_multi_used;   /* uprobes attached with uprobe_multi links */
	int ring_fds[FTFB_MAX_RINGS];
	int nr_rings;
	struct ftfb_ring_reader *reader; /* all rings, or ring 0 once split */
	bool split;
	struct linkvec links;  /* sched (and flush-only sched) links */
	struct linkvec ulinks; /* uprobe links, destroyed at drain */
	bool flushers;         /* buffer flushing enabled (ubuf_active) */
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

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void set_err(char *errmsg, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *errmsg, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errmsg || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(errmsg, errlen, fmt, ap);
	va_end(ap);
}

/* strerror for the kernel-internal codes libbpf passes through too. */
static const char *errstr(int err)
{
	if (err < 0)
		err = -err;
	if (err == 524) /* ENOTSUPP */
		return "Operation not supported";
	return strerror(err);
}

static const char *load_hint(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return ": ftf-bpf needs root or CAP_BPF+CAP_PERFMON";
	case EINVAL:
	case 524:
	case EOPNOTSUPP:
		return ": the kernel lacks a needed BPF feature (tp_btf, "
		       "ring buffers; Linux 5.8+ with BTF), -v shows libbpf's log";
	default:
		return "";
	}
}

static int add_link(struct linkvec *lv, struct bpf_link *link)
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

static bool is_flusher(const struct bpf_program *prog)
{
	for (size_t i = 0; i < sizeof(flusher_progs) / sizeof(*flusher_progs);
	     i++)
		if (!strcmp(bpf_program__name(prog), flusher_progs[i]))
			return true;
	return false;
}

/* Attach the sched programs (all, or only the buffer flushers). */
static int attach_sched(struct ftfb_loader *l, bool flushers_only,
			char *errmsg, size_t errlen)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, l->sched->obj) {
		struct bpf_link *link;

		if (prog == l->sched->progs.ftfb_prefault ||
		    (flushers_only && !is_flusher(prog)))
			continue;
		link = bpf_program__attach(prog);

		if (!link) {
			int err = -errno;

			set_err(errmsg, errlen,
				"attaching %s failed: %s%s",
				bpf_program__section_name(prog), errstr(err),
				err == -EPERM ? load_hint(err) :
				": tp_btf not supported by this kernel?");
			return err;
		}
		if (add_link(&l->links, link)) {
			bpf_link__destroy(link);
			set_err(errmsg, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}

/* A compact USDT hit (bpf/ubuf.h: nargs, strmask and strbytes in sp)
 * to struct ftfb_usdt; returns its size (without the unused string room)
 * or -EBADMSG. */
static int expand_usdt(struct ftfb_usdt *u, const struct ftfb_ucompact *c,
		       const unsigned char *vals)
{
	uint32_t nargs = c->sp & 0xffff, sbytes = (c->sp >> 32) & 0xffff;

	if (nargs > FTFB_USDT_MAX_ARGS || sbytes > FTFB_USDT_STR_BYTES ||
	    sbytes % 8 || nargs + sbytes / 8 != c->nvals)
		return -EBADMSG;
	u->cookie = c->cookie;
	u->nargs = (uint16_t)nargs;
	u->strmask = (uint16_t)(c->sp >> 16);
	u->strbytes = sbytes;
	u->_pad = 0;
	memcpy(u->args, vals, 8u * nargs);
	memset(u->args + nargs, 0, 8u * (FTFB_USDT_MAX_ARGS - nargs));
	memcpy(u->str, vals + 8u * nargs, sbytes);
	return (int)(offsetof(struct ftfb_usdt, str) + sbytes);
}

/* The events of an FTFB_EV_BATCH record (compact, bpf/ubuf.h) to the
 * callback, one by one, as struct ftfb_uentry / ftfb_uret. -EBADMSG for
 * a malformed record. */
static int split_batch(struct ftfb_loader *l, const unsigned char *data,
		       size_t size)
{
	struct ftfb_batch b;
	size_t off, end;

	if (size < sizeof(b))
		return -EBADMSG;
	memcpy(&b, data, sizeof(b));
	if (b.len > size - sizeof(b))
		return -EBADMSG;
	end = sizeof(b) + b.len;
	for (off = sizeof(b); off < end;) {
		struct ftfb_ucompact c;
		union {
			struct ftfb_hdr h;
			struct ftfb_uentry e;
			struct ftfb_uret r;
			struct ftfb_senter se;
			struct ftfb_sexit sx;
			struct ftfb_usdt u;
		} ev;
		size_t es;
		int r;

		if (end - off < sizeof(c))
			return -EBADMSG;
		memcpy(&c, data + off, sizeof(c));
		off += sizeof(c);
		if (c.nvals > (c.kind == FTFB_EV_USDT ? FTFB_UCOMPACT_MAX / 8
						       : FTFB_MAX_ARGS) ||
		    end - off < 8u * c.nvals)
			return -EBADMSG;
		/* (no memset of the whole union: a USDT event is 300 bytes) */
		memset(&ev, 0, sizeof(ev.e));
		ev.h.ts = c.ts;
		ev.h.kind = c.kind;
		ev.h.cpu = b.hdr.cpu;
		ev.h.tid = b.hdr.tid;
		ev.h.tgid = b.hdr.tgid;
		if (c.kind == FTFB_EV_UENTRY) {
			ev.e.cookie = c.cookie;
			ev.e.sp = c.sp;
			ev.e.nargs = c.nvals;
			memcpy(ev.e.args, data + off, 8u * c.nvals);
			es = sizeof(ev.e);
		} else if (c.kind == FTFB_EV_URET && c.nvals == 1) {
			ev.r.cookie = c.cookie;
			ev.r.sp = c.sp;
			memcpy(&ev.r.ret, data + off, 8);
			es = sizeof(ev.r);
		} else if (c.kind == FTFB_EV_SENTER) {
			ev.se.nr = c.cookie;
			ev.se.nargs = c.nvals;
			memcpy(ev.se.args, data + off, 8u * c.nvals);
			es = sizeof(ev.se);
		} else if (c.kind == FTFB_EV_SEXIT && c.nvals == 1) {
			ev.sx.nr = c.cookie;
			memcpy(&ev.sx.ret, data + off, 8);
			es = sizeof(ev.sx);
		} else if (c.kind == FTFB_EV_USDT) {
			r = expand_usdt(&ev.u, &c, data + off);
			if (r < 0)
				return r;
			es = (size_t)r;
		} else {
			return -EBADMSG;
		}
		off += 8u * c.nvals;
		r = l->fn ? l->fn(l->fn_ctx, &ev, es) : 0;
		if (r)
			return r;
		l->delivered++;
	}
	return 0;
}

/* One ring (or iterator) record to the callback; non-zero stops. */
static int deliver(struct ftfb_loader *l, const void *data, size_t size)
{
	const struct ftfb_hdr *h = data;
	int r;

	if (size >= sizeof(*h) && h->kind == FTFB_EV_BATCH)
		return split_batch(l, data, size);
	r = l->fn ? l->fn(l->fn_ctx, data, size) : 0;
	if (!r)
		l->delivered++;
	return r;
}

/* A ring record, read by l->reader: its events to l->fn. Non-zero (fn's
 * return, kept in l->stop) stops the reading after it. */
static int on_record(void *ctx, const void *data, size_t size)
{
	struct ftfb_loader *l = ctx;
	int r = deliver(l, data, size);

	if (r)
		l->stop = r;
	return r;
}

static int create_rings(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	int outer = bpf_map__fd(l->sched->maps.rings);

	for (int i = 0; i < l->nr_rings; i++) {
		__u32 key = i;
		int err, fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "ftfb_ring",
					     0, 0, l->opts.ring_bytes, NULL);

		if (fd < 0) {
			err = -errno;
			set_err(errmsg, errlen,
				"creating a %zu-byte ring buffer failed: %s",
				l->opts.ring_bytes, errstr(err));
			return err;
		}
		l->ring_fds[i] = fd;
		if (bpf_map_update_elem(outer, &key, &fd, BPF_ANY)) {
			err = -errno;
			set_err(errmsg, errlen,
				"storing ring buffer %d failed: %s", i,
				errstr(err));
			return err;
		}
		if (i == 0)
			err = ftfb_ring_reader_new(&l->reader, fd);
		else
			err = ftfb_ring_reader_add(l->reader, fd);
		if (err) {
			set_err(errmsg, errlen,
				"mapping ring buffer %d failed: %s", i,
				errstr(err));
			return err;
		}
	}
	return 0;
}

static int map_ubufs(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	l->ubuf_stride = (bpf_map__value_size(l->sched->maps.ubufs) + 7) & ~7ul;
	if (l->ubuf_stride < sizeof(struct ftfb_ubuf)) {
		set_err(errmsg, errlen, "ubufs map: value of %zu bytes, "
			"expected %zu", l->ubuf_stride,
			sizeof(struct ftfb_ubuf));
		return -EINVAL;
	}
	l->ubufs_len = (l->ubuf_stride * l->ncpus + page - 1) & ~(page - 1);
	p = mmap(NULL, l->ubufs_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(l->sched->maps.ubufs), 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		set_err(errmsg, errlen, "mapping the uprobe buffers failed: %s",
			errstr(err));
		return err;
	}
	l->ubufs = p;
	return 0;
}

/* Write every ring page once (see ftfb_prefault in bpf/sched.bpf.c) and
 * consume the filler. Only a speed-up: failures are ignored. */
static void prefault_rings(struct ftfb_loader *l)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);

	if (bpf_prog_test_run_opts(bpf_program__fd(l->sched->progs.ftfb_prefault),
				   &topts))
		return;
	l->fn = NULL;
	ftfb_ring_reader_drain(l->reader, on_record, l);
}

int ftfb_loader_check_btf(char *errmsg, size_t errlen)
{
	int err;

	if (!access(BTF_PATH, R_OK))
		return 0;
	err = -errno;
	if (err == -ENOENT)
		set_err(errmsg, errlen, "this kernel has no BTF (" BTF_PATH
			" missing): ftf-bpf needs a kernel built with "
			"CONFIG_DEBUG_INFO_BTF=y");
	else
		set_err(errmsg, errlen, "cannot read " BTF_PATH ": %s%s",
			errstr(err), load_hint(err));
	return err;
}

/* The options a caller may get wrong: 0, or -EINVAL with one line. */
static int check_opts(const struct ftfb_loader_opts *opts, char *errmsg,
		      size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);

	if (opts->uprobe_nargs < 0 || opts->uprobe_nargs > FTFB_MAX_ARGS) {
		set_err(errmsg, errlen, "--args must be 0..%d, not %d",
			FTFB_MAX_ARGS, opts->uprobe_nargs);
		return -EINVAL;
	}
	if (opts->nr_rings < 0 || opts->nr_rings > FTFB_MAX_RINGS) {
		set_err(errmsg, errlen, "the number of ring buffers must be "
			"1..%d, not %d", FTFB_MAX_RINGS, opts->nr_rings);
		return -EINVAL;
	}
	if (opts->ring_bytes &&
	    (opts->ring_bytes < (size_t)page ||
	     (opts->ring_bytes & (opts->ring_bytes - 1)) ||
	     opts->ring_bytes > (1ul << 31))) {
		set_err(errmsg, errlen, "ring buffer size %zu: must be a power "
			"of 2 between %ld and 2 GiB", opts->ring_bytes, page);
		return -EINVAL;
	}
	return 0;
}

/* The sched object: opened, its knobs set (the maps sized: rings, one
 * uprobe buffer per CPU), only the buffer flushers with --no-sched,
 * loaded. */
static int load_sched(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	const struct ftfb_loader_opts *opts = &l->opts;
	int err;

	l->sched = sched_bpf__open();
	if (!l->sched) {
		err = -errno;
		set_err(errmsg, errlen, "opening the BPF object failed: %s",
			errstr(err));
		return err;
	}
	l->sched->rodata->filter_tgids = opts->filter_tgids;
	l->sched->rodata->nr_rings = l->nr_rings;
	l->sched->rodata->wakeup_bytes = l->opts.ring_bytes / 4;
	l->sched->rodata->emit_sched = opts->sched;
	/* one pass through each ring, in records of one full buffer */
	l->sched->rodata->prefault_records =
		l->opts.ring_bytes /
			(sizeof(struct ftfb_batch) + FTFB_UBUF_BYTES + 8) + 1;
	bpf_map__set_max_entries(l->sched->maps.rings, l->nr_rings);
	bpf_map__set_max_entries(l->sched->maps.ubufs, l->ncpus);
	if (!opts->sched) {
		struct bpf_program *prog;

		/* only the uprobe buffer flushers, attached with uprobes */
		bpf_object__for_each_program(prog, l->sched->obj)
			if (!is_flusher(prog) &&
			    prog != l->sched->progs.ftfb_prefault)
				bpf_program__set_autoload(prog, false);
	}
	err = sched_bpf__load(l->sched);
	if (err) {
		set_err(errmsg, errlen, "BPF load failed: %s%s", errstr(err),
			load_hint(err));
		return err;
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
		set_err(errmsg, errlen, "out of memory");
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
		set_err(errmsg, errlen, "cannot count the possible CPUs: %s",
			errstr(err));
		goto fail;
	}
	l->percpu = calloc(l->ncpus, sizeof(*l->percpu));
	if (!l->percpu) {
		err = -ENOMEM;
		set_err(errmsg, errlen, "out of memory");
		goto fail;
	}

	libbpf_verbose = opts->verbose;
	libbpf_set_print(libbpf_print);

	err = load_sched(l, errmsg, errlen);
	if (err)
		goto fail;
	err = create_rings(l, errmsg, errlen);
	if (err)
		goto fail;
	err = map_ubufs(l, errmsg, errlen);
	if (err)
		goto fail;
	prefault_rings(l);
	if (opts->sched) {
		/* While the programs are attached one by one, every task is
		 * named from the kernel (a task born in between has a switch
		 * but maybe no fork event); once all are, only the older ones:
		 * every task born from then on has a fork event. */
		l->sched->bss->born_before_ns = UINT64_MAX;
		err = attach_sched(l, false, errmsg, errlen);
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

static int share_maps(struct ftfb_loader *l, struct bpf_object *obj)
{
	static const char *const shared[] = { "rings", "traced_tgids", "fired",
					      "drops", "ubufs" };

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct bpf_map *ours =
			bpf_object__find_map_by_name(l->sched->obj, shared[i]);
		struct bpf_map *theirs = bpf_object__find_map_by_name(obj, shared[i]);
		int err;

		if (!ours || !theirs)
			return -ENOENT;
		err = bpf_map__reuse_fd(theirs, bpf_map__fd(ours));
		if (err)
			return err;
	}
	return 0;
}

/* The sched programs flush the per-cpu buffers from now on (before the
 * first event can be buffered); with --no-sched, only the flushers are
 * attached, here. */
static int start_flushers(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	int err;

	if (l->flushers)
		return 0;
	if (!l->opts.sched) {
		err = attach_sched(l, true, errmsg, errlen);
		if (err)
			return err;
	}
	l->sched->bss->ubuf_active = 1;
	l->flushers = true;
	return 0;
}

static int load_uprobe(struct ftfb_loader *l, bool multi)
{
	struct uprobe_bpf *u = uprobe_bpf__open();
	int err;

	if (!u)
		return -errno;
	SET_COMMON_RODATA(l, u);
	u->rodata->nargs = l->opts.uprobe_nargs;
	if ((err = share_maps(l, u->obj)))
		goto fail;
	if (!multi) {
		bpf_program__set_autoload(u->progs.ftfb_uentry_multi, false);
		bpf_program__set_autoload(u->progs.ftfb_uret_multi, false);
	}
	err = uprobe_bpf__load(u);
	if (err)
		goto fail;
	l->up = u;
	l->up_multi_loaded = multi;
	return 0;
fail:
	uprobe_bpf__destroy(u);
	return err;
}

/* Attach with two uprobe_multi links; 0 or -errno (links not kept). */
static int attach_multi(struct ftfb_loader *l, const char *path,
			const uint64_t *offs, const uint64_t *cookies,
			size_t n, int pid)
{
	struct bpf_link *entry, *ret;
	unsigned long *uoffs;
	int err;

	uoffs = malloc(n * sizeof(*uoffs));
	if (!uoffs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		uoffs[i] = offs[i];
	LIBBPF_OPTS(bpf_uprobe_multi_opts, eo, .offsets = uoffs,
		    .cookies = (const __u64 *)cookies, .cnt = n);
	LIBBPF_OPTS(bpf_uprobe_multi_opts, ro, .offsets = uoffs,
		    .cookies = (const __u64 *)cookies, .cnt = n,
		    .retprobe = true);
	/* The return link first and, in l->ulinks, before the entry link
	 * (links are destroyed last first): while only one of the two is
	 * there, calls show returns without entries (dropped, counted),
	 * never entries without returns (slices closed as unfinished). */
	ret = bpf_program__attach_uprobe_multi(l->up->progs.ftfb_uret_multi,
					       pid, path, NULL, &ro);
	if (!ret) {
		err = -errno;
		goto out;
	}
	entry = bpf_program__attach_uprobe_multi(l->up->progs.ftfb_uentry_multi,
						 pid, path, NULL, &eo);
	if (!entry) {
		err = -errno;
		bpf_link__destroy(ret);
		goto out;
	}
	err = add_link(&l->ulinks, ret);
	if (err) {
		bpf_link__destroy(entry);
		bpf_link__destroy(ret);
		goto out;
	}
	err = add_link(&l->ulinks, entry);
	if (err)
		bpf_link__destroy(entry); /* ret stays: closed with l */
out:
	free(uoffs);
	return err;
}

/* One link per function and kind; on failure the links made here are
 * destroyed. */
static int attach_single(struct ftfb_loader *l, const char *path,
			 const uint64_t *offs, const uint64_t *cookies,
			 size_t n, int pid, size_t *failed)
{
	size_t first = l->ulinks.n;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		/* return first, as in attach_multi */
		for (int r = 1; r >= 0 && !err; r--) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo,
				    .bpf_cookie = cookies[i], .retprobe = r);
			struct bpf_link *link = bpf_program__attach_uprobe_opts(
				r ? l->up->progs.ftfb_uret :
				    l->up->progs.ftfb_uentry,
				pid, path, offs[i], &uo);

			if (!link) {
				err = -errno;
				*failed = i;
			} else if ((err = add_link(&l->ulinks, link))) {
				bpf_link__destroy(link);
				*failed = i;
			}
		}
	}
	if (err) {
		while (l->ulinks.n > first)
			bpf_link__destroy(l->ulinks.v[--l->ulinks.n]);
	}
	return err;
}

void ftfb_loader_arm_uprobes(struct ftfb_loader *l, bool on)
{
	if (l->up)
		__atomic_store_n(&l->up->bss->armed, on ? 1 : 0,
				 __ATOMIC_RELEASE);
	if (l->usdt)
		__atomic_store_n(&l->usdt->bss->armed, on ? 1 : 0,
				 __ATOMIC_RELEASE);
}

static int load_usdt(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct usdt_bpf *u = usdt_bpf__open();
	int err;

	if (!u) {
		err = -errno;
		set_err(errmsg, errlen, "opening the USDT program failed: %s",
			errstr(err));
		return err;
	}
	SET_COMMON_RODATA(l, u);
	err = share_maps(l, u->obj);
	if (!err)
		err = usdt_bpf__load(u);
	if (err) {
		set_err(errmsg, errlen, "loading the USDT program failed: %s%s",
			errstr(err), load_hint(err));
		usdt_bpf__destroy(u);
		return err;
	}
	l->usdt = u;
	return 0;
}

int ftfb_loader_attach_usdt(struct ftfb_loader *l, const char *binary_path,
			    const char *provider, const char *name,
			    uint64_t cookie, int pid, char *errmsg,
			    size_t errlen)
{
	LIBBPF_OPTS(bpf_usdt_opts, uo, .usdt_cookie = cookie);
	struct bpf_link *link;
	int err;

	if (!l->usdt && (err = load_usdt(l, errmsg, errlen)))
		return err;
	err = start_flushers(l, errmsg, errlen);
	if (err)
		return err;
	link = bpf_program__attach_usdt(l->usdt->progs.ftfb_usdt, pid,
					binary_path, provider, name, &uo);
	if (!link) {
		err = -errno;
		set_err(errmsg, errlen,
			"attaching USDT probe %s:%s in %s failed: %s%s", provider,
			name, binary_path, errstr(err),
			err == -EPERM ? load_hint(err) : "");
		return err;
	}
	err = add_link(&l->ulinks, link);
	if (err) {
		bpf_link__destroy(link);
		set_err(errmsg, errlen, "out of memory");
	}
	return err;
}

int ftfb_loader_attach_uprobes(struct ftfb_loader *l, const char *binary_path,
			       const uint64_t *offs, const uint64_t *cookies,
			       size_t n, int pid, char *errmsg, size_t errlen)
{
	size_t failed = 0;
	int err, merr = 0;

	if (!n)
		return 0;
	if (!l->up) {
		err = -EOPNOTSUPP;
		if (!l->opts.uprobe_no_multi)
			err = load_uprobe(l, true);
		if (err) /* no uprobe_multi in this kernel? */
			err = load_uprobe(l, false);
		if (err) {
			set_err(errmsg, errlen,
				"loading the uprobe programs failed: %s%s",
				errstr(err), load_hint(err));
			return err;
		}
	}
	err = start_flushers(l, errmsg, errlen);
	if (err)
		return err;
	if (l->up_multi_loaded) {
		merr = attach_multi(l, binary_path, offs, cookies, n, pid);
		if (!merr) {
			l->up_multi_used = true;
			return 0;
		}
		if (merr == -ENOMEM) {
			set_err(errmsg, errlen, "out of memory");
			return merr;
		}
	}
	err = attach_single(l, binary_path, offs, cookies, n, pid, &failed);
	if (err) {
		set_err(errmsg, errlen,
			"attaching uprobe to %s at offset 0x%llx failed: %s (error %d)%s%s%s%s",
			binary_path, (unsigned long long)offs[failed],
			errstr(err), -err, err == -EPERM ? load_hint(err) : "",
			merr ? "; uprobe_multi: " : "",
			merr ? errstr(merr) : "", "");
		return err;
	}
	return 0;
}

int ftfb_loader_attach_syscalls(struct ftfb_loader *l, const uint8_t *wanted,
				uint32_t only_tgid, char *errmsg,
				size_t errlen)
{
	struct syscalls_bpf *s;
	int err;

	if (l->sys)
		return 0;
	s = syscalls_bpf__open();
	if (!s) {
		err = -errno;
		set_err(errmsg, errlen, "opening the system call programs failed: %s",
			errstr(err));
		return err;
	}
	SET_COMMON_RODATA(l, s);
	s->rodata->nargs = l->opts.uprobe_nargs;
	s->rodata->use_list = wanted != NULL;
	s->rodata->only_tgid = only_tgid;
	if (wanted)
		memcpy((void *)s->rodata->wanted, wanted, FTFB_NR_SYSCALLS);
	err = share_maps(l, s->obj);
	if (!err)
		err = syscalls_bpf__load(s);
	if (err) {
		set_err(errmsg, errlen, "loading the system call programs failed: %s%s",
			errstr(err), load_hint(err));
		syscalls_bpf__destroy(s);
		return err;
	}
	l->sys = s;
	err = start_flushers(l, errmsg, errlen);
	for (int i = 0; !err && i < 2; i++) {
		struct bpf_program *p = i ? s->progs.ftfb_sys_exit
					  : s->progs.ftfb_sys_enter;
		struct bpf_link *link = bpf_program__attach(p);

		if (!link) {
			err = -errno;
			set_err(errmsg, errlen,
				"attaching %s failed: %s%s",
				bpf_program__section_name(p), errstr(err),
				err == -EPERM ? load_hint(err) : "");
		} else if ((err = add_link(&l->links, link))) {
			bpf_link__destroy(link);
			set_err(errmsg, errlen, "out of memory");
		}
	}
	if (!err) /* both there: entries and exits start together */
		__atomic_store_n(&s->bss->armed, 1, __ATOMIC_RELEASE);
	return err;
}

/* The cpu-clock perf event of one cpu, sampling at freq_hz. */
static int open_cpu_clock(int cpu, unsigned freq_hz)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = freq_hz;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static int attach_stack_link(struct ftfb_loader *l, struct bpf_link *link)
{
	int err;

	if (!link)
		return -errno;
	if ((err = add_link(&l->links, link)))
		bpf_link__destroy(link);
	return err;
}

/* The on-CPU program on every online cpu's cpu-clock event. */
static int attach_cpu_samplers(struct ftfb_loader *l, unsigned freq_hz,
			       char *errmsg, size_t errlen)
{
	int attached = 0, err = 0;

	for (int cpu = 0; cpu < l->ncpus; cpu++) {
		int fd = open_cpu_clock(cpu, freq_hz);

		if (fd < 0 && (errno == ENODEV || errno == ENOENT))
			continue; /* an offline cpu */
		if (fd < 0) {
			err = -errno;
			set_err(errmsg, errlen,
				"opening the cpu-clock perf event of cpu %d failed: %s%s",
				cpu, errstr(err),
				err == -EINVAL ? " (--freq above kernel.perf_event_max_sample_rate?)" :
				err == -EACCES || err == -EPERM ? load_hint(err) : "");
			return err;
		}
		err = attach_stack_link(l, bpf_program__attach_perf_event(
						   l->stk->progs.ftfb_cpu_sample, fd));
		if (err) {
			close(fd);
			set_err(errmsg, errlen,
				"attaching the stack sampler to cpu %d failed: %s",
				cpu, errstr(err));
			return err;
		}
		attached++;
	}
	if (!attached) {
		set_err(errmsg, errlen, "no online cpu to sample");
		return -ENODEV;
	}
	return 0;
}

/* Process tgid runs this program: a command forked by ftf-bpf, waiting
 * to exec (its tables would be of no use, and delay those it needs). */
static bool runs_this_program(__u32 tgid)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%u/exe", tgid);
	return !stat(path, &a) && !stat("/proc/self/exe", &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The tables of the user stack walker: the loader of them, the
 * processes traced so far loaded at once, their tables built before the
 * first sample (the others' when the walker first asks), and the
 * programs that drop a process's table at exec and exit. */
#define UW_PREBUILD_BUDGET_NS 3000000000ull

static int start_unwinder(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct stacks_bpf *s = l->stk;
	struct ftfb_uw_bpf_maps m = {
		.rows = s->maps.uw_rows, .tables = s->maps.uw_tables,
		.procs = s->maps.uw_procs, .wanted = s->maps.uw_wanted,
		.stats = s->maps.uw_stats,
	};
	struct bpf_program *progs[] = {s->progs.ftfb_uw_exec,
				       s->progs.ftfb_uw_exit};
	__u32 key, *prev = NULL;
	int err = ftfb_uw_loader_new(&l->uw, &m, errmsg, errlen);

	if (!err) /* (its build starts with the thread, below) */
		ftfb_uw_prebuild_libc(l->uw);
	for (size_t i = 0; !err && i < sizeof(progs) / sizeof(*progs); i++) {
		err = attach_stack_link(l, bpf_program__attach(progs[i]));
		if (err)
			set_err(errmsg, errlen, "attaching %s failed: %s",
				bpf_program__section_name(progs[i]),
				errstr(err));
	}
	while (!err && l->opts.filter_tgids &&
	       !bpf_map_get_next_key(bpf_map__fd(s->maps.traced_tgids), prev,
				     &key)) {
		if (!runs_this_program(key)) /* (a command not exec'd yet) */
			ftfb_uw_want_process(l->uw, key);
		prev = &key;
	}
	if (!err && (err = ftfb_uw_start(l->uw)))
		set_err(errmsg, errlen,
			"starting the unwind table thread failed: %s",
			errstr(err));
	/* their binaries' tables before the samplers attach (a process
	 * mapping many large libraries: the first 3 seconds' worth), built
	 * by the thread: a stop signal ends the wait */
	if (!err && l->opts.filter_tgids)
		ftfb_uw_wait_settled(l->uw, UW_PREBUILD_BUDGET_NS);
	return err;
}

int ftfb_loader_unwind_stats(struct ftfb_loader *l, struct ftfb_uw_stats *st)
{
	if (!l->uw)
		return -ENOENT;
	ftfb_uw_get_stats(l->uw, st);
	return 0;
}

int ftfb_loader_set_python(void *ctx, uint32_t tgid,
			   const struct ftfb_py_proc *p)
{
	struct ftfb_loader *l = ctx;
	int fd;

	if (!l->stk)
		return -ENODEV;
	fd = bpf_map__fd(l->stk->maps.py_procs);
	if (!p)
		return bpf_map_delete_elem(fd, &tgid) ? -errno : 0;
	return bpf_map_update_elem(fd, &tgid, p, BPF_ANY) ? -errno : 0;
}

int ftfb_loader_attach_stacks(struct ftfb_loader *l, unsigned freq_hz,
			      char *errmsg, size_t errlen)
{
	struct stacks_bpf *s;
	int err;

	if (l->stk)
		return 0;
	s = stacks_bpf__open();
	if (!s) {
		err = -errno;
		set_err(errmsg, errlen, "opening the stack programs failed: %s",
			errstr(err));
		return err;
	}
	SET_COMMON_RODATA(l, s);
	s->rodata->py_enabled = l->opts.python_stacks;
	bpf_program__set_autoload(s->progs.ftfb_waker_stack,
				  l->opts.waker_stacks);
	err = share_maps(l, s->obj);
	if (!err)
		err = ftfb_uw_prepare(s->maps.uw_rows, FTFB_UW_ROWS_DEFAULT);
	if (!err)
		err = stacks_bpf__load(s);
	if (err) {
		set_err(errmsg, errlen, "loading the stack programs failed: %s%s",
			errstr(err), load_hint(err));
		stacks_bpf__destroy(s);
		return err;
	}
	l->stk = s;
	/* with --no-sched: the lifecycle programs still name the threads
	 * (fork, exec, rename) and end processes (exit) */
	err = start_flushers(l, errmsg, errlen);
	if (!err)
		err = start_unwinder(l, errmsg, errlen);
	if (!err)
		err = attach_cpu_samplers(l, freq_hz, errmsg, errlen);
	if (!err) {
		err = attach_stack_link(
			l, bpf_program__attach(s->progs.ftfb_offcpu_switch));
		if (err)
			set_err(errmsg, errlen, "attaching %s failed: %s",
				bpf_program__section_name(
					s->progs.ftfb_offcpu_switch),
				errstr(err));
	}
	if (!err && l->opts.waker_stacks) {
		err = attach_stack_link(
			l, bpf_program__attach(s->progs.ftfb_waker_stack));
		if (err)
			set_err(errmsg, errlen, "attaching %s failed: %s",
				bpf_program__section_name(
					s->progs.ftfb_waker_stack),
				errstr(err));
	}
	if (!err) /* both kinds start together */
		__atomic_store_n(&s->bss->armed, 1, __ATOMIC_RELEASE);
	return err;
}

/* ---- --events sources: one object each, opened by its caller with
 * its rodata set (the common ones by SET_COMMON_RODATA) ---- */

/* Loads the source's object (its shared maps the sched object's;
 * through its skeleton, whose .bss then maps the kernel's) and attaches
 * every program. */
static int start_source(struct ftfb_loader *l, struct bpf_object_skeleton *sk,
			struct bpf_object *obj, const char *what, char *errmsg,
			size_t errlen)
{
	struct bpf_program *prog;
	int err = share_maps(l, obj);

	if (!err)
		err = bpf_object__load_skeleton(sk);
	if (err) {
		set_err(errmsg, errlen, "loading the %s programs failed: %s%s",
			what, errstr(err), load_hint(err));
		return err;
	}
	bpf_object__for_each_program(prog, obj) {
		err = attach_stack_link(l, bpf_program__attach(prog));
		if (err) {
			set_err(errmsg, errlen,
				"attaching %s failed: %s%s (--events=%s needs this tracepoint)",
				bpf_program__section_name(prog), errstr(err),
				load_hint(err), what);
			return err;
		}
	}
	return 0;
}

/* The source records from now on (and stops with the others). */
static int arm_source(struct ftfb_loader *l, volatile __u32 *armed)
{
	l->src_armed[l->nsrc++] = armed;
	__atomic_store_n(armed, 1, __ATOMIC_RELEASE);
	return 0;
}

static int open_failed(const char *what, char *errmsg, size_t errlen)
{
	int err = -errno;

	set_err(errmsg, errlen, "opening the %s programs failed: %s", what,
		errstr(err));
	return err;
}

int ftfb_loader_attach_blockio(struct ftfb_loader *l, char *errmsg,
			       size_t errlen)
{
	int err;

	if (l->blk)
		return 0;
	if (!(l->blk = blockio_bpf__open()))
		return open_failed("io", errmsg, errlen);
	SET_COMMON_RODATA(l, l->blk);
	err = start_source(l, l->blk->skeleton, l->blk->obj, "io", errmsg,
			   errlen);
	return err ? err : arm_source(l, &l->blk->bss->armed);
}

int ftfb_loader_attach_irq(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	int err;

	if (l->irq)
		return 0;
	if (!(l->irq = irq_bpf__open()))
		return open_failed("irq", errmsg, errlen);
	SET_COMMON_RODATA(l, l->irq);
	err = start_source(l, l->irq->skeleton, l->irq->obj, "irq", errmsg,
			   errlen);
	return err ? err : arm_source(l, &l->irq->bss->armed);
}

int ftfb_loader_attach_mem(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	int err;

	if (l->mem)
		return 0;
	if (!(l->mem = mem_bpf__open()))
		return open_failed("mem", errmsg, errlen);
	SET_COMMON_RODATA(l, l->mem);
	l->mem->rodata->nr_cpus = (__u32)l->ncpus;
	err = start_source(l, l->mem->skeleton, l->mem->obj, "mem", errmsg,
			   errlen);
	return err ? err : arm_source(l, &l->mem->bss->armed);
}

bool ftfb_loader_uprobe_multi(const struct ftfb_loader *l)
{
	return l->up_multi_used;
}

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
	n = ftfb_ring_reader_poll(l->reader, timeout_ms, on_record, l);
	if (l->stop)
		return l->stop;
	return n < 0 ? n : l->delivered;
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

/* Take what is left in cpu's buffer (its uprobe links are gone) and
 * deliver it. The sched programs flush buffers too and hold them briefly
 * (busy): wait for them. -EBUSY if a buffer stays busy. */
static int take_ubuf(struct ftfb_loader *l, int cpu)
{
	struct ftfb_ubuf *b = (void *)(l->ubufs + cpu * l->ubuf_stride);
	__u64 free_ = 0;
	int err = 0, tries = 0;

	while (!__atomic_compare_exchange_n(&b->busy, &free_,
					    FTFB_UBUF_FLUSHING, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		free_ = 0;
		if (++tries > 1000)
			return -EBUSY;
		usleep(100);
	}
	if (b->batch.len) {
		b->batch.hdr.kind = FTFB_EV_BATCH;
		if (b->batch.len > FTFB_UBUF_BYTES)
			err = -EBADMSG;
		else
			err = split_batch(l, (const void *)&b->batch,
					  sizeof(b->batch) + b->batch.len);
		if (!err) {
			b->batch.len = 0;
			memset(b->n, 0, sizeof(b->n));
		}
	}
	__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
	return err;
}

void ftfb_loader_stop_recording(struct ftfb_loader *l)
{
	ftfb_loader_arm_uprobes(l, false);
	if (l->sys)
		__atomic_store_n(&l->sys->bss->armed, 0, __ATOMIC_RELEASE);
	if (l->stk)
		__atomic_store_n(&l->stk->bss->armed, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < l->nsrc; i++)
		__atomic_store_n(l->src_armed[i], 0, __ATOMIC_RELEASE);
	if (l->sched)
		__atomic_store_n(&l->sched->bss->stopped, 1, __ATOMIC_RELEASE);
}

/* Consume until the rings are empty, also of the records a program still
 * running at the stop commits a moment later (for at most a second). */
static int consume_settled(struct ftfb_loader *l)
{
	int n = ftfb_ring_reader_drain(l->reader, on_record, l);

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
		int e = take_ubuf(l, cpu);

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

static int prog_stats(struct bpf_program *prog, struct ftfb_prog_stats *s)
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

int ftfb_loader_uprobe_stats(struct ftfb_loader *l,
			     struct ftfb_prog_stats *entry,
			     struct ftfb_prog_stats *ret)
{
	int err;

	memset(entry, 0, sizeof(*entry));
	memset(ret, 0, sizeof(*ret));
	if (!l->up)
		return 0;
	if ((err = prog_stats(l->up->progs.ftfb_uentry_multi, entry)) ||
	    (err = prog_stats(l->up->progs.ftfb_uentry, entry)) ||
	    (err = prog_stats(l->up->progs.ftfb_uret_multi, ret)) ||
	    (err = prog_stats(l->up->progs.ftfb_uret, ret)))
		return err;
	return 0;
}

int ftfb_loader_stack_stats(struct ftfb_loader *l, struct ftfb_prog_stats *on,
			    struct ftfb_prog_stats *off)
{
	int err;

	memset(on, 0, sizeof(*on));
	memset(off, 0, sizeof(*off));
	if (!l->stk)
		return 0;
	if ((err = prog_stats(l->stk->progs.ftfb_cpu_sample, on)) ||
	    (err = prog_stats(l->stk->progs.ftfb_offcpu_switch, off)))
		return err;
	return 0;
}

static void add_prog_ids(struct bpf_object *obj, uint32_t *ids, size_t max,
			 int *n)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
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
	if (l->stk)
		add_prog_ids(l->stk->obj, ids, max, &n);
	if (l->blk)
		add_prog_ids(l->blk->obj, ids, max, &n);
	if (l->irq)
		add_prog_ids(l->irq->obj, ids, max, &n);
	if (l->mem)
		add_prog_ids(l->mem->obj, ids, max, &n);
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
	struct ftfb_detacher d = { 0, -1 };

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
				"ftf-bpf: cannot start the detaching helper (%s): detaching here\n",
				strerror(-err));
		else if (d.pid && l->opts.verbose)
			fprintf(stderr,
				"ftf-bpf: the probes go with process %d (" FTFB_DETACHER_NAME "), once the kernel lets them\n",
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
	stacks_bpf__destroy(l->stk);
	ftfb_uw_loader_free(l->uw);
	blockio_bpf__destroy(l->blk);
	irq_bpf__destroy(l->irq);
	mem_bpf__destroy(l->mem);
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
