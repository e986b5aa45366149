/* SPDX-License-Identifier: MIT */
/*
 * main.c - ftf-bpf: load, attach, drain, translate, stop, summarize.
 *
 * The lifecycle: parse options; check privileges, BTF, the target and the
 * output before anything is loaded; open the trace file; load and attach
 * the BPF programs; name every task already alive (/proc); let a -- CMD
 * exec; then drain the ring buffer(s) with epoll into the translator until
 * Ctrl-C, SIGTERM, -d, the target's exit or an output error; drain what is
 * left, record the loss, close every open slice, close the file and print
 * a summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "ftf/destination.h"
#include "ftf/writer.h"
#include "bpf_loader.h"
#include "cli.h"
#include "flight.h"
#include "events.h"
#include "output.h"
#include "probespec.h"
#include "stackprof.h"
#include "symbolize.h"
#include "procfs.h"
#include "syscall_names.h"
#include "target.h"
#include "translate.h"
#include "usdt_set.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define STATUS_INTERVAL_NS 1000000000ull
#define POLL_MS 100
#define STOP_COMMAND_WAIT_MS 5000 /* for a command still running at the stop */

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t snapshot_signals; /* SIGUSR1s received */

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_usr1(int sig)
{
	(void)sig;
	snapshot_signals++;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die_line(const char *msg)
{
	fprintf(stderr, "ftf-bpf: %s\n", msg);
}

/* CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON, in the effective set. Not
 * just euid 0: root in a container or under a reduced bounding set may
 * lack them, and would fail only after the output was created. */
static int check_privileges(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	uint64_t eff;
	const char *missing;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data)) {
		snprintf(err, errlen,
			 "cannot read this process's capabilities (%s): run ftf-bpf with sudo",
			 strerror(errno));
		return -EPERM;
	}
	eff = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
	if ((eff & (1ull << CAP_SYS_ADMIN)) ||
	    ((eff & (1ull << CAP_BPF)) && (eff & (1ull << CAP_PERFMON))))
		return 0;
	if (!(eff & (1ull << CAP_BPF)) && !(eff & (1ull << CAP_PERFMON)))
		missing = "CAP_BPF and CAP_PERFMON";
	else if (!(eff & (1ull << CAP_BPF)))
		missing = "CAP_BPF";
	else
		missing = "CAP_PERFMON";
	snprintf(err, errlen,
		 "not permitted: loading BPF programs needs root or %s (missing %s); run it with sudo",
		 "CAP_BPF and CAP_PERFMON", missing);
	return -EPERM;
}

static int check_kernel(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen,
			 "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): ftf-bpf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y",
			 strerror(errno));
		return -ENOTSUP;
	}
	return 0;
}

/* --freq above the kernel's limit would fail at perf_event_open, after
 * the output was created: say so first. */
static int check_freq(const struct cli_opts *o, char *err, size_t errlen)
{
	FILE *f;
	long max = 0;

	if (!o->stacks)
		return 0;
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &max) != 1)
		max = 0;
	fclose(f);
	if (max > 0 && o->freq_hz > (unsigned long)max) {
		snprintf(err, errlen,
			 "--freq %u is above kernel.perf_event_max_sample_rate (%ld): give --freq %ld or less, or raise the sysctl",
			 o->freq_hz, max, max);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* uprobes: resolve every -u spec, give each function a cookie          */
/* ------------------------------------------------------------------ */

struct probes {
	struct ftfb_symlist *lists; /* one per spec */
	int nlists;
	struct ftfb_func *funcs;    /* cookie -> name, category */
	char **categories;
	size_t nfuncs;
};

static const char *short_binary_name(const char *path, char *buf,
				      size_t len)
{
	const char *base = strrchr(path, '/');
	char *dot;

	snprintf(buf, len, "%s", base ? base + 1 : path);
	/* libc.so.6 -> libc, libssl.so.3 -> libssl */
	dot = strstr(buf, ".so");
	if (dot && dot != buf)
		*dot = '\0';
	return buf;
}

static void probes_free(struct probes *p)
{
	for (int i = 0; i < p->nlists; i++)
		ftfb_symlist_free(&p->lists[i]);
	free(p->lists);
	for (size_t i = 0; i < p->nfuncs; i++)
		free(p->categories[i]);
	free(p->categories);
	free(p->funcs);
	memset(p, 0, sizeof(*p));
}

/*
 * x86 uprobes refuse a first instruction with a LOCK, CS, DS, ES or SS
 * prefix (the kernel's is_prefix_bad()); for a probe with no pid filter it
 * refuses silently when the binary is mapped, so no call would ever be
 * seen. Read the legacy prefixes at the function's file offset and say so
 * instead. Returns true if the function can be probed (or we can't tell).
 */
static bool first_insn_probeable(const char *path, uint64_t off)
{
	unsigned char b[4];
	ssize_t n;
	int fd;

#if defined(__x86_64__) || defined(__i386__)
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = pread(fd, b, sizeof(b), (off_t)off);
	close(fd);
	for (ssize_t i = 0; i < n; i++) {
		switch (b[i]) {
		case 0xf0: /* lock */
		case 0x26: /* es */
		case 0x2e: /* cs */
		case 0x36: /* ss */
		case 0x3e: /* ds (also "notrack") */
			return false;
		case 0x64: case 0x65: case 0x66: case 0x67: case 0xf2:
		case 0xf3:
			continue; /* other legacy prefixes: look further */
		default:
			return true;
		}
	}
#else
	(void)path;
	(void)off;
	(void)b;
	(void)n;
	(void)fd;
#endif
	return true;
}

/*
 * Functions that return twice or on another stack: a uretprobe replaces
 * their return address with a trampoline, and setjmp saves that address,
 * vfork/clone return through it in two tasks, swapcontext returns into
 * another context: the probed process then crashes or computes wrong
 * results (seen: bash and python under -u 'libc:*'). Never probe them.
 */
static const char *const returns_twice[] = {
	"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp",
	"savectx", "vfork", "__vfork", "clone", "__clone", "clone3",
	"__clone3", "__clone_internal", "getcontext", "__getcontext",
	"swapcontext", "__swapcontext", "setcontext", "__setcontext",
};

static bool name_returns_twice(const char *name)
{
	for (size_t i = 0; name && i < sizeof(returns_twice) /
				       sizeof(returns_twice[0]); i++)
		if (!strcmp(name, returns_twice[i]))
			return true;
	return false;
}

/* NULL if the function can be probed, else why not. */
static const char *unprobeable(const struct ftfb_sym *s)
{
	bool twice = name_returns_twice(s->name) ||
		     name_returns_twice(s->demangled);

	for (size_t i = 0; !twice && i < s->naliases; i++)
		twice = name_returns_twice(s->aliases[i]);
	if (twice)
		return "returns twice or on another stack (setjmp, vfork, clone, *context), which a uretprobe would break";
	if (!first_insn_probeable(s->binary, s->offset))
		return "starts with an instruction x86 uprobes cannot probe (LOCK or segment prefix)";
	return NULL;
}

static void free_sym(struct ftfb_sym *s)
{
	free(s->name);
	free(s->demangled);
	free(s->binary);
	for (size_t j = 0; j < s->naliases; j++)
		free(s->aliases[j]);
	free(s->aliases);
}

/* Drops the functions that must not be probed, with one warning line per
 * reason and spec; an error if a spec keeps none. */
static int drop_unprobeable(struct ftfb_symlist *sl, const char *spec,
			    char *err, size_t errlen)
{
	struct {
		const char *why;
		char names[256];
		size_t n;
	} groups[2] = { { 0 } };
	size_t kept = 0, dropped = 0;

	for (size_t i = 0; i < sl->n; i++) {
		struct ftfb_sym *s = &sl->v[i];
		const char *why = unprobeable(s);
		int g;

		if (!why) {
			if (kept != i) {
				struct ftfb_sym tmp = sl->v[kept];

				sl->v[kept] = *s;
				*s = tmp;
			}
			kept++;
			continue;
		}
		dropped++;
		g = groups[0].why && groups[0].why != why ? 1 : 0;
		groups[g].why = why;
		if (groups[g].n++ < 3) {
			size_t len = strlen(groups[g].names);

			snprintf(groups[g].names + len,
				 sizeof(groups[g].names) - len, "%s%s",
				 len ? ", " : "",
				 s->demangled ? s->demangled : s->name);
		}
	}
	if (!dropped)
		return 0;
	if (!kept) {
		snprintf(err, errlen, "-u '%s': %s %s; probe its caller instead",
			 spec, groups[0].names, groups[0].why);
		return -ENOTSUP;
	}
	for (int g = 0; g < 2; g++)
		if (groups[g].n)
			fprintf(stderr,
				"ftf-bpf: -u '%s': skipping %zu function%s (%s%s): %s %s\n",
				spec, groups[g].n, groups[g].n > 1 ? "s" : "",
				groups[g].names, groups[g].n > 3 ? ", ..." : "",
				groups[g].n > 1 ? "each" : "it", groups[g].why);
	/* The dropped ones sit at the end now. */
	for (size_t i = kept; i < sl->n; i++)
		free_sym(&sl->v[i]);
	sl->n = kept;
	return 0;
}

static int probes_resolve(struct probes *p, const struct cli_opts *o, int pid,
			  const char *main_binary, char *err, size_t errlen)
{
	size_t total = 0, k = 0;

	memset(p, 0, sizeof(*p));
	if (!o->nuprobes)
		return 0;
	p->lists = calloc((size_t)o->nuprobes, sizeof(*p->lists));
	if (!p->lists)
		return -ENOMEM;
	for (int i = 0; i < o->nuprobes; i++) {
		int r;

		p->nlists = i + 1;
		if (ftfb_is_usdt_spec(o->uprobes[i]))
			continue; /* usdt_set.c */
		r = ftfb_probespec_resolve(o->uprobes[i], pid, main_binary,
					   &p->lists[i], err, errlen);
		if (!r)
			r = drop_unprobeable(&p->lists[i], o->uprobes[i], err,
					     errlen);
		if (r)
			return r;
		total += p->lists[i].n;
	}
	p->funcs = calloc(total ? total : 1, sizeof(*p->funcs));
	p->categories = calloc(total ? total : 1, sizeof(*p->categories));
	if (!p->funcs || !p->categories)
		return -ENOMEM;
	for (int i = 0; i < p->nlists; i++) {
		for (size_t j = 0; j < p->lists[i].n; j++, k++) {
			struct ftfb_sym *s = &p->lists[i].v[j];
			char cat[256];

			short_binary_name(s->binary, cat, sizeof(cat));
			p->categories[k] = strdup(cat);
			if (!p->categories[k])
				return -ENOMEM;
			p->funcs[k].name = s->demangled ? s->demangled : s->name;
			p->funcs[k].category = p->categories[k];
		}
	}
	p->nfuncs = k;
	return 0;
}

/* Attaches every resolved function, one call per (spec, binary) group. */
static int probes_attach(struct probes *p, struct ftfb_loader *l, int pid,
			 bool verbose, char *err, size_t errlen)
{
	uint64_t cookie = 0;
	uint64_t t0 = mono_ns();

	for (int i = 0; i < p->nlists; i++) {
		struct ftfb_symlist *sl = &p->lists[i];
		size_t j = 0;

		while (j < sl->n) {
			size_t n = 0;
			uint64_t *offs, *cookies;
			const char *bin = sl->v[j].binary;
			int r;

			while (j + n < sl->n && !strcmp(sl->v[j + n].binary, bin))
				n++;
			offs = calloc(n, sizeof(*offs));
			cookies = calloc(n, sizeof(*cookies));
			if (!offs || !cookies) {
				free(offs);
				free(cookies);
				return -ENOMEM;
			}
			for (size_t q = 0; q < n; q++) {
				offs[q] = sl->v[j + q].offset;
				cookies[q] = cookie + q;
			}
			r = ftfb_loader_attach_uprobes(l, bin, offs, cookies,
						       n, pid > 0 ? pid : -1,
						       err, errlen);
			free(offs);
			free(cookies);
			if (r)
				return r;
			cookie += n;
			j += n;
		}
	}
	/* every link is there: entries and returns start now */
	ftfb_loader_arm_uprobes(l, true);
	if (verbose && p->nfuncs)
		fprintf(stderr, "ftf-bpf: attached %zu uprobes in %.3f s\n",
			p->nfuncs, (double)(mono_ns() - t0) / 1e9);
	return 0;
}

/*
 * Checks the target before anything is loaded: -p must be a live user
 * process (a thread id becomes its process), -- CMD must be found on PATH
 * (its path is the main binary for -u FUNC). Sets *mb; 0, or -1 after one
 * error line.
 */
static int check_target(struct cli_opts *o, char *main_bin, size_t len,
			const char **mb)
{
	char err[512];

	*mb = NULL;
	if (o->pid) {
		int tgid;

		if (target_check_pid(o->pid, err, sizeof(err))) {
			die_line(err);
			return -1;
		}
		tgid = target_tgid(o->pid);
		if (tgid != o->pid) {
			if (!o->quiet)
				fprintf(stderr,
					"ftf-bpf: %d is a thread of process %d: tracing the process\n",
					o->pid, tgid);
			o->pid = tgid;
		}
	} else if (o->cmd) {
		if (target_resolve_cmd(o->cmd[0], main_bin, len, err,
				       sizeof(err))) {
			die_line(err);
			return -1;
		}
		*mb = main_bin;
	}
	return 0;
}

/* What the USDT probes are looked up with. */
static struct ftfb_usdt_set_opts usdt_opts(const struct cli_opts *o,
					   const char *mb)
{
	struct ftfb_usdt_set_opts uo = {
		.specs = (const char *const *)o->uprobes,
		.nspecs = o->nuprobes,
		.python = o->python,
		.strings = o->usdt_strings,
		.pid = o->pid,
		.main_binary = mb,
	};

	return uo;
}

/* Attaches every USDT probe (before the uprobes are armed: they are
 * armed together). */
static int usdt_attach(const struct ftfb_usdt_set *u, struct ftfb_loader *l,
		       int pid, char *err, size_t errlen)
{
	for (size_t i = 0; i < u->n; i++) {
		const struct ftfb_usdt_probe *p = &u->probes.v[i];
		int r = ftfb_loader_attach_usdt(l, p->path, p->provider, p->name,
						ftfb_usdt_set_cookie(u, i), pid,
						err, errlen);

		if (r)
			return r;
	}
	return 0;
}

/* --list --syscalls[=LIST]: number and name of each call it matches. */
static int list_syscalls(const struct cli_opts *o)
{
	uint8_t wanted[FTFB_NR_SYSCALLS];
	char err[512];

	if (o->syscall_list &&
	    ftfb_syscall_list(o->syscall_list, wanted, err, sizeof(err))) {
		die_line(err);
		return 1;
	}
	printf("%-5s %s\n", "NR", "SYSTEM CALL");
	for (int nr = 0; nr < FTFB_NR_SYSCALLS; nr++)
		if (ftfb_syscall_names[nr] && (!o->syscall_list || wanted[nr]))
			printf("%-5d %s\n", nr, ftfb_syscall_names[nr]);
	return 0;
}

static int list_probes(struct cli_opts *o)
{
	char err[512], main_bin[PATH_MAX];
	const char *mb = NULL;
	int rc = 0;

	int nfuncs = 0;

	if (o->syscalls && list_syscalls(o))
		return 1;
	if (!o->nuprobes && !o->python)
		return 0;

	if (check_target(o, main_bin, sizeof(main_bin), &mb))
		return 1;
	for (int i = 0; i < o->nuprobes; i++)
		nfuncs += !ftfb_is_usdt_spec(o->uprobes[i]);
	if (nfuncs)
		printf("%-40s %-40s %12s %8s\n", "FUNCTION", "BINARY",
		       "OFFSET", "SIZE");
	for (int i = 0; i < o->nuprobes; i++) {
		struct ftfb_symlist sl = { 0 };

		if (ftfb_is_usdt_spec(o->uprobes[i]))
			continue;

		if (ftfb_probespec_resolve(o->uprobes[i], o->pid, mb, &sl, err,
					   sizeof(err))) {
			die_line(err);
			rc = 1;
			continue;
		}
		for (size_t j = 0; j < sl.n; j++)
			printf("%-40s %-40s %#12llx %8llu\n",
			       sl.v[j].demangled ? sl.v[j].demangled
						 : sl.v[j].name,
			       sl.v[j].binary,
			       (unsigned long long)sl.v[j].offset,
			       (unsigned long long)sl.v[j].size);
		ftfb_symlist_free(&sl);
	}
	{
		struct ftfb_usdt_set_opts uo = usdt_opts(o, mb);

		if (ftfb_usdt_set_list(stdout, &uo))
			rc = 1;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* The trace session                                                    */
/* ------------------------------------------------------------------ */

struct session {
	struct cli_opts *o;
	struct ftf_clock clock;
	struct ftfb_output out;
	struct ftf_writer w;
	struct ftfb_translator *tr;
	struct ftfb_loader *loader;
	struct probes probes;
	struct ftfb_usdt_set usdt; /* -u usdt:..., --python */
	struct ftfb_flight *flight; /* -F: the recorder, instead of s.tr's file */
	uint64_t *trigger_ns;       /* -F --trigger: per cookie */
	uint8_t sys_wanted[FTFB_NR_SYSCALLS]; /* --syscalls=LIST */
	struct ftfb_symbolizer *sym;	      /* --stacks */
	struct ftfb_stackprof_opts stack_opts;
	struct ftfb_stackprof *stacks;	      /* (-F: one per snapshot) */
	struct target_child child;
	bool have_child;
	bool writer_open;
	int out_err; /* first output error (a full disk, ...) */
	uint64_t out_seen_bytes; /* handed to the file at out_seen_ns */
	uint64_t out_seen_ns;
	char out_errmsg[512];
	uint64_t events;
	uint64_t drops[FTFB_EV_KIND_MAX];
	uint64_t fired[FTFB_EV_KIND_MAX];
	uint64_t start_ns;
	const char *stop_reason;
};

static int on_event(void *ctx, const void *data, size_t size)
{
	struct session *s = ctx;
	int r;

	/* No early return on a signal: libbpf has consumed this record
	 * already, so refusing it would lose it uncounted. The poll returns
	 * within about two timeouts anyway (ftfb_loader_poll), and the drain
	 * after the loop takes the rest. */
	s->events++;
	if (s->flight) {
		r = ftfb_flight_event(s->flight, data, size);
		if (r) {
			s->out_err = r;
			snprintf(s->out_errmsg, sizeof(s->out_errmsg),
				 "the flight recorder failed: %s", strerror(-r));
		}
		return r;
	}
	r = ftfb_translator_event(s->tr, data, size);
	if (r) {
		s->out_err = r;
		snprintf(s->out_errmsg, sizeof(s->out_errmsg),
			 "writing %s failed: %s", s->o->output,
			 ftf_writer_error(&s->w));
		return r;
	}
	return 0;
}

static int scan_cb(void *ctx, const struct ftfb_task_info *ti)
{
	struct session *s = ctx;

	if (s->flight)
		return ftfb_flight_add_task(s->flight, ti);
	return ftfb_translator_add_task(s->tr, ti);
}

/* The calls per function, top 10 by count and by total time. */
static void print_func_stats(const struct session *s)
{
	const struct ftfb_translator *t = s->tr;
	size_t idx[10], n;

	if (!s->probes.nfuncs)
		return;
	for (int by_time = 0; by_time < 2; by_time++) {
		n = ftfb_translator_top(t, by_time, idx, 10);
		if (!n)
			continue;
		fprintf(stderr, "  top functions by %s:\n",
			by_time ? "total time" : "calls");
		for (size_t i = 0; i < n; i++) {
			const struct ftfb_func_stats *fs = &t->fstats[idx[i]];

			fprintf(stderr, "    %10llu calls %12.3f ms  %s:%s\n",
				(unsigned long long)fs->calls,
				(double)fs->total_ns / 1e6,
				s->probes.funcs[idx[i]].category,
				s->probes.funcs[idx[i]].name);
		}
	}
}

/* The system calls, top 10 by count and by total time. */
static void print_syscall_stats(const struct session *s)
{
	const struct ftfb_translator *t = s->tr;
	size_t idx[10], n;
	char buf[32];

	if (!s->o->syscalls)
		return;
	for (int by_time = 0; by_time < 2; by_time++) {
		n = ftfb_translator_top_syscalls(t, by_time, idx, 10);
		if (!n)
			continue;
		fprintf(stderr, "  top system calls by %s:\n",
			by_time ? "total time" : "calls");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "    %10llu calls %12.3f ms  %s\n",
				(unsigned long long)t->sys_stats[idx[i]].calls,
				(double)t->sys_stats[idx[i]].total_ns / 1e6,
				ftfb_syscall_name((uint32_t)idx[i], buf,
						  sizeof(buf)));
	}
}

/* --stacks: samples taken and lost, the top functions on and off CPU. */
static void print_stack_stats(const struct session *s)
{
	const struct ftfb_stackprof_stats *st;
	struct ftfb_prog_stats on, off;
	const char *names[10];
	uint64_t w[10];
	size_t n;

	if (!s->stacks)
		return;
	st = ftfb_stackprof_stats(s->stacks);
	fprintf(stderr,
		"  stacks: %llu on-CPU samples (%llu lost), %llu off-CPU stacks for %.3f s (%llu lost); %llu Perfetto packets, %.1f bytes per sample\n",
		(unsigned long long)st->samples[0],
		(unsigned long long)s->drops[FTFB_EV_STACK_ON],
		(unsigned long long)st->samples[1], (double)st->weight[1] / 1e9,
		(unsigned long long)s->drops[FTFB_EV_STACK_OFF],
		(unsigned long long)st->packets,
		st->samples[0] + st->samples[1] ?
			(double)st->bytes / (double)(st->samples[0] + st->samples[1]) : 0.0);
	if (st->samples[FTFB_STACK_WAKER] || s->drops[FTFB_EV_STACK_WAKER])
		fprintf(stderr, "  stacks: %llu waker stacks (%llu lost)\n",
			(unsigned long long)st->samples[FTFB_STACK_WAKER],
			(unsigned long long)s->drops[FTFB_EV_STACK_WAKER]);
	if (st->unknown_stacks)
		fprintf(stderr,
			"  stacks: %llu samples name a stack whose frames were lost (written without them)\n",
			(unsigned long long)st->unknown_stacks);
	if (!ftfb_loader_stack_stats(s->loader, &on, &off) && on.run_cnt)
		fprintf(stderr,
			"  stacks BPF run time (kernel.bpf_stats_enabled): %.0f ns per on-CPU sample, %.0f ns per context switch\n",
			(double)on.run_time_ns / (double)on.run_cnt,
			off.run_cnt ? (double)off.run_time_ns / (double)off.run_cnt : 0.0);
	for (int k = 0; k < 2; k++) {
		n = ftfb_stackprof_top(s->stacks, k, names, w, 10);
		if (!n)
			continue;
		fprintf(stderr, "  top %s functions (innermost user frame):\n",
			k ? "off-CPU" : "on-CPU");
		for (size_t i = 0; i < n; i++)
			if (k)
				fprintf(stderr, "    %12.3f ms  %s\n",
					(double)w[i] / 1e6, names[i]);
			else
				fprintf(stderr, "    %10llu samples  %s\n",
					(unsigned long long)w[i], names[i]);
	}
}

static uint64_t sum(const uint64_t *v)
{
	uint64_t t = 0;

	for (int i = 0; i < FTFB_EV_KIND_MAX; i++)
		t += v[i];
	return t;
}

static void record_drops(struct session *s)
{
	if (s->flight) {
		if (ftfb_loader_counters(s->loader, s->drops, s->fired) == 0)
			ftfb_flight_set_drops(s->flight, s->drops);
		return;
	}
	if (ftfb_loader_counters(s->loader, s->drops, s->fired) == 0 &&
	    !s->out_err) {
		int r = ftfb_translator_drops(s->tr, mono_ns(), s->drops);

		if (r && !s->out_err) {
			s->out_err = r;
			snprintf(s->out_errmsg, sizeof(s->out_errmsg),
				 "writing %s failed: %s", s->o->output,
				 ftf_writer_error(&s->w));
		}
	}
}

static void status_line(struct session *s, uint64_t now, uint64_t *last_events,
			uint64_t *last_ns)
{
	double el = (double)(now - s->start_ns) / 1e9;
	double dt = (double)(now - *last_ns) / 1e9;
	double rate = dt > 0 ? (double)(s->events - *last_events) / dt : 0;
	double mb = s->flight ? (double)ftfb_flight_held_bytes(s->flight) / 1e6
		  : (double)(ftfb_output_file_bytes(&s->out) +
			     (s->out.gzip ? 0 : s->w.pos)) / 1e6;

	fprintf(stderr,
		"\r\033[Kftf-bpf: %6.1fs  %9.0f events/s  %llu dropped  %.1f MB%s",
		el, rate, (unsigned long long)sum(s->drops), mb,
		s->flight ? " held" : "");
	fflush(stderr);
	*last_events = s->events;
	*last_ns = now;
}

static const char *kind_name(int k)
{
	switch (k) {
	case FTFB_EV_SWITCH: return "context switches";
	case FTFB_EV_WAKEUP: return "wakeups";
	case FTFB_EV_WAKEUP_NEW: return "new-task wakeups";
	case FTFB_EV_FORK: return "forks";
	case FTFB_EV_EXEC: return "execs";
	case FTFB_EV_EXIT: return "exits";
	case FTFB_EV_RENAME: return "renames";
	case FTFB_EV_UENTRY: return "function entries";
	case FTFB_EV_URET: return "function returns";
	case FTFB_EV_TASKNAME: return "task names from the kernel";
	case FTFB_EV_SENTER: return "system call entries";
	case FTFB_EV_SEXIT: return "system call exits";
	case FTFB_EV_USDT: return "USDT hits";
	case FTFB_EV_STACK_ON: return "on-CPU stack samples";
	case FTFB_EV_STACK_OFF: return "off-CPU stacks";
	case FTFB_EV_BLOCK_IO: return "block requests";
	case FTFB_EV_IRQ: return "interrupts";
	case FTFB_EV_RSS: return "memory counter changes";
	case FTFB_EV_FAULT: return "blocking page faults";
	case FTFB_EV_STACK_WAKER: return "waker stacks";
	default: return "other";
	}
}

/* -p / -- without -f probe the process itself only: a server that forks
 * its workers gives no slice at all, which says nothing of why. */
static void hint_children(const struct session *s, const uint64_t *by_kind)
{
	const struct cli_opts *o = s->o;

	if (o->all || o->follow_children || (!o->nuprobes && !o->python))
		return;
	if (!by_kind[FTFB_EV_FORK] || by_kind[FTFB_EV_UENTRY] ||
	    by_kind[FTFB_EV_USDT])
		return;
	fprintf(stderr,
		"  no probe fired, while %llu tasks were forked (processes or threads): -f probes the traced process's children too\n",
		(unsigned long long)by_kind[FTFB_EV_FORK]);
}

static void summary(struct session *s, uint64_t end_ns)
{
	/* the flight recorder has no translator of its own (s->tr is NULL) */
	const uint64_t *by_kind = s->flight ? ftfb_flight_by_kind(s->flight)
					    : s->tr->st.by_kind;
	const struct ftfb_translator_stats *st;
	struct stat sb;
	long long bytes = -1;

	if (stat(s->o->output, &sb) == 0)
		bytes = (long long)sb.st_size;
	fprintf(stderr, "ftf-bpf: stopped (%s) after %.2f s\n", s->stop_reason,
		(double)(end_ns - s->start_ns) / 1e9);
	fprintf(stderr, "  events:");
	for (int k = 1; k < FTFB_EV_KIND_MAX; k++)
		if (by_kind[k])
			fprintf(stderr, " %llu %s,",
				(unsigned long long)by_kind[k], kind_name(k));
	fprintf(stderr, " %llu in all\n", (unsigned long long)s->events);
	if (sum(s->drops)) {
		fprintf(stderr, "  LOST: %llu events (ring buffer full:",
			(unsigned long long)sum(s->drops));
		for (int k = 1; k < FTFB_EV_KIND_MAX; k++)
			if (s->drops[k])
				fprintf(stderr, " %llu %s",
					(unsigned long long)s->drops[k],
					kind_name(k));
		fprintf(stderr,
			"); the trace holds a \"dropped events\" counter; try a larger --buffer-size\n");
	} else if (!s->out_err) {
		fprintf(stderr, "  lost: 0 events\n");
	}
	if (s->out_err)
		fprintf(stderr,
			"  NOT RECORDED: everything after the output error (the ring buffer was not drained)\n");
	hint_children(s, by_kind);
	if (s->flight) {
		ftfb_flight_summary(s->flight, stderr);
		return;
	}
	st = &s->tr->st;
	if (st->depth_capped || st->unmatched_returns ||
	    st->slices_closed_early || st->skipped)
		fprintf(stderr,
			"  slices: %llu calls past the depth cap (not written), %llu returns without a recorded call, %llu calls closed without a return (unfinished), %llu events skipped\n",
			(unsigned long long)st->depth_capped,
			(unsigned long long)st->unmatched_returns,
			(unsigned long long)st->slices_closed_early,
			(unsigned long long)st->skipped);
	if (st->switches_repaired)
		fprintf(stderr,
			"  scheduling: %llu switches from a task other than the one the CPU's last switch put there (the kernel reported no switch-out): that task was ended at the switch\n",
			(unsigned long long)st->switches_repaired);
	if (s->usdt.n)
		fprintf(stderr,
			"  USDT: %llu instants, %llu slices (%llu crossing another slice, on async tracks; %llu ends without a recorded start, %llu starts past the %d open slices not written)\n",
			(unsigned long long)st->usdt_instants,
			(unsigned long long)st->usdt_slices,
			(unsigned long long)st->usdt_async,
			(unsigned long long)st->usdt_unmatched,
			(unsigned long long)st->usdt_capped, FTFB_USLICE_MAX);
	print_func_stats(s);
	print_syscall_stats(s);
	print_stack_stats(s);
	if (s->out.gzip && bytes > 0)
		fprintf(stderr,
			"  wrote %s (%lld bytes: gzip of %llu bytes, %.1fx)\n",
			s->o->output, bytes,
			(unsigned long long)ftfb_output_record_bytes(&s->out),
			(double)ftfb_output_record_bytes(&s->out) /
				(double)bytes);
	else
		fprintf(stderr, "  wrote %s (%lld bytes)\n", s->o->output,
			bytes);
	fprintf(stderr,
		"  open it in Perfetto: https://ui.perfetto.dev -> Open trace file -> %s\n",
		s->o->output);
}

/* Records reach the file when the writer's buffer is full or a second
 * old at the next event: on an idle trace the last ones would wait. Hand
 * over a buffer that has waited a second (a gzip member, or a write) so a
 * kill loses at most about a second of them. */
static void flush_waiting_output(struct session *s, uint64_t now)
{
	uint64_t handed = ftfb_output_record_bytes(&s->out);
	int r;

	if (s->flight || !s->writer_open || s->out_err)
		return;
	if (handed != s->out_seen_bytes || !s->out_seen_ns) {
		s->out_seen_bytes = handed;
		s->out_seen_ns = now;
		return;
	}
	if (now - s->out_seen_ns < 1000000000ull || s->w.pos == 0)
		return;
	r = ftf_force_switch_buffers(&s->w);
	if (r) {
		s->out_err = r;
		snprintf(s->out_errmsg, sizeof(s->out_errmsg),
			 "writing %s failed: %s", s->o->output,
			 ftf_writer_error(&s->w));
	}
	s->out_seen_ns = now;
}

/* Marks the traced function at sym's binary and offset as a trigger; 1
 * if there is one. */
static size_t mark_trigger(struct session *s, const struct ftfb_sym *sym,
			   uint64_t min_ns)
{
	size_t k = 0;

	for (int i = 0; i < s->probes.nlists; i++)
		for (size_t j = 0; j < s->probes.lists[i].n; j++, k++) {
			const struct ftfb_sym *p = &s->probes.lists[i].v[j];

			if (p->offset == sym->offset &&
			    !strcmp(p->binary, sym->binary)) {
				s->trigger_ns[k] = min_ns;
				return 1;
			}
		}
	return 0;
}

static void print_clock(const struct ftf_clock *c)
{
	if (c->source == FTF_CLOCK_TSC)
		fprintf(stderr, "ftf-bpf: clock: TSC at %.6f GHz\n",
			(double)c->ticks_per_second / 1e9);
	else
		fprintf(stderr, "ftf-bpf: clock: CLOCK_MONOTONIC ns%s%s%s\n",
			c->fallback_reason[0] ? " (TSC not used: " : "",
			c->fallback_reason, c->fallback_reason[0] ? ")" : "");
}

/* The trace file: created under a temporary name (put in place, an
 * existing one kept as .old, once the trace starts), the writer's header
 * written. 0, or -1 with one line in err. */
static int open_file_output(struct session *s, char *err, size_t errlen)
{
	struct ftf_writer_options wo;

	if (ftfb_output_open(&s->out, s->o->output, s->o->compress, err,
			     errlen))
		return -1;
	memset(&wo, 0, sizeof(wo));
	wo.provider_name = "ftf-bpf";
	wo.num_temp_strs = -1;
	wo.clock = &s->clock;
	if (ftf_writer_init(&s->w, ftfb_output_dest(&s->out), &wo)) {
		snprintf(err, errlen, "cannot write %s: %s", s->o->output,
			 ftf_writer_error(&s->w));
		ftf_writer_close(&s->w);
		ftfb_output_discard(&s->out);
		return -1;
	}
	s->writer_open = true;
	return 0;
}

/* -F writes its snapshots next to -o's name, later: the folder must take
 * files now, not when the first snapshot is due. */
static int check_flight_output(const struct cli_opts *o, char *err,
			       size_t errlen)
{
	char dir[PATH_MAX], first[PATH_MAX];
	const char *slash = strrchr(o->output, '/');

	snprintf(dir, sizeof(dir), "%.*s",
		 slash ? (int)(slash - o->output) : 1,
		 slash ? o->output : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	ftfb_flight_snapshot_path(o->output, 1, first, sizeof(first));
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen,
			 "cannot write snapshots like %.300s: folder %.300s: %s",
			 first, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* -F --trigger: which traced functions (cookies) trigger, after how
 * long. A trigger names functions that -u traces: the same binary and
 * offset. 0, or -1 with one line in err. */
static int resolve_triggers(struct session *s, const char *mb, char *err,
			    size_t errlen)
{
	const struct cli_opts *o = s->o;

	if (!o->ntriggers)
		return 0;
	s->trigger_ns = malloc((s->probes.nfuncs ? s->probes.nfuncs : 1) *
			       sizeof(*s->trigger_ns));
	if (!s->trigger_ns) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t k = 0; k < s->probes.nfuncs; k++)
		s->trigger_ns[k] = FTFB_FLIGHT_NO_TRIGGER;
	for (int i = 0; i < o->ntriggers; i++) {
		struct ftfb_symlist sl = { 0 };
		size_t hits = 0;

		if (ftfb_is_usdt_spec(o->triggers[i].spec)) {
			snprintf(err, errlen,
				 "--trigger '%s': a trigger is a call of a -u function that lasts too long, not a USDT probe",
				 o->triggers[i].spec);
			return -1;
		}
		if (ftfb_probespec_resolve(o->triggers[i].spec, o->pid, mb,
					   &sl, err, errlen)) {
			char why[512];

			snprintf(why, sizeof(why), "%.500s", err);
			snprintf(err, errlen, "--trigger: %s", why);
			return -1;
		}
		for (size_t j = 0; j < sl.n; j++)
			hits += mark_trigger(s, &sl.v[j], o->triggers[i].min_ns);
		ftfb_symlist_free(&sl);
		if (!hits) {
			snprintf(err, errlen,
				 "--trigger '%s' matches no function traced with -u: add -u '%s' (or a -u spec that matches it)",
				 o->triggers[i].spec, o->triggers[i].spec);
			return -1;
		}
	}
	return 0;
}

/* The trace stopped (-d, a signal) with the command still running: it
 * is not left behind, reparented to init. As perf record does, it gets
 * SIGTERM and is waited for (a few seconds). False if it still runs. */
static bool stop_command(struct session *s)
{
	if (target_child_exited(&s->child))
		return true;
	if (!s->o->quiet)
		fprintf(stderr, "ftf-bpf: stopping '%s' (pid %d) with SIGTERM\n",
			s->o->cmd[0], s->child.pid);
	if (target_stop(&s->child, STOP_COMMAND_WAIT_MS))
		return true;
	fprintf(stderr,
		"ftf-bpf: '%s' (pid %d) still runs %d s after SIGTERM: left running (kill -KILL %d)\n",
		s->o->cmd[0], s->child.pid, STOP_COMMAND_WAIT_MS / 1000,
		s->child.pid);
	return false;
}

/* -F: one snapshot per SIGUSR1 since the last look, then the due ones. */
static void flight_tick(struct session *s, uint64_t now)
{
	static sig_atomic_t seen;

	while (seen != snapshot_signals) {
		seen++;
		ftfb_flight_request(s->flight, "SIGUSR1");
		ftfb_flight_tick(s->flight, now);
	}
	ftfb_flight_tick(s->flight, now);
}

/* --syscalls with -p/-- records the target's own calls, with -f also
 * those of the processes it forks (as -u does); -a every process. */
static uint32_t syscall_only_tgid(const struct session *s)
{
	if (s->o->all || s->o->follow_children)
		return 0;
	return (uint32_t)(s->o->pid ? s->o->pid : s->child.pid);
}

static int open_flight(struct session *s, const struct ftfb_translator_opts *to,
		       char *err, size_t errlen)
{
	struct ftfb_flight_opts fo;

	memset(&fo, 0, sizeof(fo));
	fo.window_ns = s->o->flight_ns;
	fo.max_bytes = s->o->flight_bytes;
	fo.output = s->o->output;
	fo.compress = s->o->compress;
	fo.max_snapshots = s->o->max_snapshots;
	fo.post_ns = s->o->post_ns;
	fo.trigger_ns = s->trigger_ns;
	fo.tr = *to;
	fo.stacks = s->o->stacks ? &s->stack_opts : NULL;
	fo.clock = &s->clock;
	fo.start_ns = mono_ns();
	fo.quiet = s->o->quiet;
	fo.verbose = s->o->verbose;
	return ftfb_flight_open(&s->flight, &fo, err, errlen);
}

/* --events=LIST: each source asked for (waker goes with the stacks). */
static int attach_event_sources(struct ftfb_loader *l, unsigned events,
				char *err, size_t errlen)
{
	if ((events & CLI_EV_IO) && ftfb_loader_attach_blockio(l, err, errlen))
		return -1;
	if ((events & CLI_EV_IRQ) && ftfb_loader_attach_irq(l, err, errlen))
		return -1;
	if ((events & CLI_EV_MEM) && ftfb_loader_attach_mem(l, err, errlen))
		return -1;
	return 0;
}

/* --stacks: the Perfetto packets of the samples, into the trace (with
 * -F, into each snapshot: the recorder makes them). */
static int open_stacks(struct session *s)
{
	int err = ftfb_symbolizer_new(&s->sym);

	if (err)
		return err;
	s->stack_opts.w = &s->w;
	s->stack_opts.symbolize = ftfb_symbolize;
	s->stack_opts.symbolize_ctx = s->sym;
	s->stack_opts.freq_hz = s->o->freq_hz;
	s->stack_opts.forget = ftfb_symbolizer_forget;
	if (s->o->flight_ns)
		return 0;
	return ftfb_stackprof_new(&s->stacks, &s->stack_opts);
}

static int run_trace(struct cli_opts *o)
{
	struct session s;
	struct ftfb_loader_opts lo;
	struct ftfb_translator_opts to;
	char err[1024], main_bin[PATH_MAX];
	const char *mb = NULL;
	uint64_t deadline = 0, last_status = 0, last_events = 0, last_drops = 0;
	bool tty, exit_code_err = false, usr1_said = false;
	int r, rc = 0;
	struct sigaction sa;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.stop_reason = "Ctrl-C";

	if (check_privileges(err, sizeof(err)) ||
	    check_kernel(err, sizeof(err)) || check_freq(o, err, sizeof(err))) {
		die_line(err);
		return 1;
	}
	if (check_target(o, main_bin, sizeof(main_bin), &mb))
		return 1;
	/* Resolve probes before touching the output or the kernel, so a spec
	 * that matches nothing costs nothing. */
	{
		struct ftfb_usdt_set_opts uo = usdt_opts(o, mb);

		r = ftfb_usdt_set_build(&s.usdt, &uo, err, sizeof(err));
	}
	if (r || probes_resolve(&s.probes, o, o->pid, mb, err, sizeof(err)) ||
	    (o->syscall_list && ftfb_syscall_list(o->syscall_list, s.sys_wanted,
						  err, sizeof(err)))) {
		die_line(err);
		probes_free(&s.probes);
		ftfb_usdt_set_free(&s.usdt);
		return 1;
	}

	ftf_clock_init(&s.clock, o->clock_mono ? FTF_CLOCK_MONO : FTF_CLOCK_TSC);
	if (o->verbose)
		print_clock(&s.clock);
	if (o->flight_ns ? check_flight_output(o, err, sizeof(err))
			 : open_file_output(&s, err, sizeof(err))) {
		die_line(err);
		probes_free(&s.probes);
		ftfb_usdt_set_free(&s.usdt);
		return 1;
	}
	if (o->flight_ns && resolve_triggers(&s, mb, err, sizeof(err))) {
		die_line(err);
		probes_free(&s.probes);
		ftfb_usdt_set_free(&s.usdt);
		free(s.trigger_ns);
		return 1;
	}

	if (o->cmd && target_spawn(&s.child, o->cmd, err, sizeof(err)) == 0)
		s.have_child = true;
	else if (o->cmd) {
		die_line(err);
		rc = 1;
		goto out;
	}

	memset(&lo, 0, sizeof(lo));
	lo.filter_tgids = !o->all;
	lo.ring_bytes = o->ring_bytes;
	lo.nr_rings = o->nr_rings;
	lo.sched = !o->no_sched;
	lo.uprobe_nargs = o->nargs;
	lo.verbose = o->verbose;
	lo.exclude_self = true;
	lo.waker_stacks = (o->events & CLI_EV_WAKER) != 0;
	lo.background_detach = true;
	if (o->verbose)
		fprintf(stderr, "ftf-bpf: loading BPF programs\n");
	r = ftfb_loader_open(&s.loader, &lo, err, sizeof(err));
	if (r) {
		die_line(err);
		rc = 1;
		goto out;
	}
	if (o->pid && (r = ftfb_loader_trace_tgid(s.loader, (uint32_t)o->pid))) {
		snprintf(err, sizeof(err), "cannot filter on pid %d: %s",
			 o->pid, strerror(-r));
		die_line(err);
		rc = 1;
		goto out;
	}
	if (s.have_child &&
	    (r = ftfb_loader_trace_tgid(s.loader, (uint32_t)s.child.pid))) {
		snprintf(err, sizeof(err), "cannot filter on pid %d: %s",
			 s.child.pid, strerror(-r));
		die_line(err);
		rc = 1;
		goto out;
	}
	/* -p/--: the link's pid filter keeps every other process from
	 * taking the probe, but also the target's children; with -f there
	 * is none and the BPF programs keep the traced tgids (the map
	 * follows fork in the kernel, before the child runs). */
	if (usdt_attach(&s.usdt, s.loader,
			o->follow_children ? -1
			: o->pid	   ? o->pid
			: (s.have_child ? s.child.pid : -1),
			err, sizeof(err)) ||
	    probes_attach(&s.probes, s.loader,
			  o->follow_children ? -1
			  : o->pid	     ? o->pid
			  : (s.have_child ? s.child.pid : -1),
			  o->verbose, err, sizeof(err)) ||
	    (o->syscalls &&
	     ftfb_loader_attach_syscalls(s.loader,
					 o->syscall_list ? s.sys_wanted : NULL,
					 syscall_only_tgid(&s), err,
					 sizeof(err))) ||
	    (o->stacks && ftfb_loader_attach_stacks(s.loader, o->freq_hz, err,
						    sizeof(err))) ||
	    attach_event_sources(s.loader, o->events, err, sizeof(err))) {
		die_line(err);
		rc = 1;
		goto out;
	}

	if (o->stacks && open_stacks(&s)) {
		die_line("out of memory");
		rc = 1;
		goto out;
	}
	memset(&to, 0, sizeof(to));
	to.stacks = s.stacks;
	to.w = &s.w;
	to.clock_mono = o->clock_mono;
	to.lookup = ftfb_procfs_lookup;
	to.lookup_ctx = NULL;
	to.self_tid = (uint32_t)getpid();
	to.funcs = s.probes.funcs;
	to.nfuncs = s.probes.nfuncs;
	to.usdt = s.usdt.descs;
	to.nusdt = s.usdt.n;
	if (o->flight_ns) {
		if (open_flight(&s, &to, err, sizeof(err))) {
			die_line(err);
			rc = 1;
			goto out;
		}
	} else if (!(s.tr = calloc(1, sizeof(*s.tr)))) {
		die_line("out of memory");
		rc = 1;
		goto out;
	} else if (ftfb_translator_init(s.tr, &to)) {
		snprintf(err, sizeof(err), "cannot write %s: %s", o->output,
			 ftf_writer_error(&s.w));
		die_line(err);
		rc = 1;
		goto out;
	}
	/* Name what is already alive. Attached first, scanned second: a task
	 * born in between is both scanned and seen forking. */
	if (o->all)
		r = ftfb_procfs_scan(scan_cb, &s);
	else
		r = ftfb_procfs_scan_pid((uint32_t)(o->pid ? o->pid
							   : s.child.pid),
					 scan_cb, &s);
	if (r && !o->all && o->pid) {
		snprintf(err, sizeof(err), "pid %d exited before tracing began",
			 o->pid);
		die_line(err);
		rc = 1;
		goto out;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* without -F a SIGUSR1 is said and ignored (its default kills) */
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	s.start_ns = mono_ns();
	if (o->duration_ns)
		deadline = s.start_ns + o->duration_ns;
	if (s.have_child &&
	    target_release(&s.child, o->cmd[0], err, sizeof(err))) {
		die_line(err);
		rc = 1;
		s.start_ns = 0; /* not started: no summary, no trace */
		goto out;
	}
	/* Started: only now does the trace replace what was at -o. */
	if (s.writer_open && ftfb_output_commit(&s.out, err, sizeof(err))) {
		die_line(err);
		rc = 1;
		goto out;
	}
	if (!o->quiet) {
		char what[PATH_MAX + 32];

		if (o->all)
			snprintf(what, sizeof(what), "all processes");
		else if (o->pid)
			snprintf(what, sizeof(what), "pid %d", o->pid);
		else
			snprintf(what, sizeof(what), "'%s' (pid %d)", o->cmd[0],
				 s.child.pid);
		if (s.flight) {
			char first[PATH_MAX];

			ftfb_flight_snapshot_path(o->output, 1, first,
						  sizeof(first));
			fprintf(stderr,
				"ftf-bpf: tracing %s, keeping the last %.3f s in memory; snapshots (%s, ...) on SIGUSR1 (kill -USR1 %d)%s and at the stop; Ctrl-C to stop\n",
				what, (double)o->flight_ns / 1e9, first,
				(int)getpid(),
				o->ntriggers ? ", at every --trigger" : "");
		} else {
			fprintf(stderr,
				"ftf-bpf: tracing %s into %s; Ctrl-C to stop\n",
				what, o->output);
		}
	}
	tty = !o->quiet && (o->force_status || isatty(STDERR_FILENO));
	last_status = s.start_ns;

	for (;;) {
		uint64_t now;

		r = ftfb_loader_poll(s.loader, POLL_MS, on_event, &s);
		if (s.out_err) {
			s.stop_reason = "output error";
			break;
		}
		if (r < 0 && r != -EINTR) {
			snprintf(err, sizeof(err),
				 "reading the BPF ring buffer failed: %s",
				 strerror(-r));
			die_line(err);
			rc = 1;
			s.stop_reason = "ring buffer error";
			break;
		}
		if (stop_signal) {
			s.stop_reason = stop_signal == SIGINT ? "Ctrl-C"
				      : stop_signal == SIGTERM ? "SIGTERM"
							      : "SIGHUP";
			break;
		}
		now = mono_ns();
		if (deadline && now >= deadline) {
			s.stop_reason = "duration reached";
			break;
		}
		if (s.have_child && target_child_exited(&s.child)) {
			s.stop_reason = "command exited";
			break;
		}
		if (o->pid && target_pid_gone(o->pid)) {
			s.stop_reason = "traced process exited";
			break;
		}
		if (s.flight)
			flight_tick(&s, now);
		else if (snapshot_signals && !usr1_said) {
			usr1_said = true;
			fprintf(stderr,
				"ftf-bpf: SIGUSR1 ignored: snapshots are for the flight recorder (-F DUR)\n");
		}
		flush_waiting_output(&s, now);
		if (now - last_status >= STATUS_INTERVAL_NS) {
			record_drops(&s);
			if (tty)
				status_line(&s, now, &last_events,
					    &last_status);
			else
				last_status = now;
			last_drops = sum(s.drops);
		}
	}
	(void)last_drops;
	/* Whatever is still in the rings belongs to the trace. */
	if (!s.out_err) {
		r = ftfb_loader_drain(s.loader, on_event, &s);
		if (r < 0 && !s.out_err) {
			snprintf(err, sizeof(err),
				 "reading the last events from the BPF buffers failed: %s; the trace may miss events from the end",
				 strerror(-r));
			die_line(err);
			rc = 1;
		}
	}
	record_drops(&s);
	if (tty)
		fprintf(stderr, "\r\033[K");
	if (s.flight) {
		if (ftfb_flight_finish(s.flight, mono_ns(), s.stop_reason))
			rc = 1;
	} else if (!s.out_err && ftfb_translator_finish(s.tr, mono_ns())) {
		s.out_err = -EIO;
		snprintf(s.out_errmsg, sizeof(s.out_errmsg),
			 "writing %s failed: %s", o->output,
			 ftf_writer_error(&s.w));
	}
	if (s.have_child && !stop_command(&s))
		rc = 1;
	if (s.have_child && s.child.exited && WIFEXITED(s.child.status) &&
	    WEXITSTATUS(s.child.status) != 0 && !o->quiet)
		fprintf(stderr, "ftf-bpf: '%s' exited with status %d\n",
			o->cmd[0], WEXITSTATUS(s.child.status));
	else if (s.have_child && s.child.exited &&
		 WIFSIGNALED(s.child.status) && !o->quiet)
		fprintf(stderr, "ftf-bpf: '%s' was killed by signal %d (%s)\n",
			o->cmd[0], WTERMSIG(s.child.status),
			strsignal(WTERMSIG(s.child.status)));
	(void)exit_code_err;

out:
	/* The links are closed last (ftfb_loader_close below): recording
	 * stopped at the drain, and the kernel's release of a link can take
	 * minutes on a busy machine, which neither the trace nor the
	 * summary waits for. */
	if (s.loader)
		ftfb_loader_stop_recording(s.loader);
	if (s.have_child && !s.child.exited && s.child.go_fd > 0)
		target_abort(&s.child);
	if (s.writer_open) {
		r = ftf_writer_close(&s.w);
		if (r && !s.out_err) {
			s.out_err = r;
			snprintf(s.out_errmsg, sizeof(s.out_errmsg),
				 "writing %s failed: %s", o->output,
				 ftf_writer_error(&s.w));
		}
		ftfb_output_discard(&s.out); /* a start that failed */
	}
	if (s.out_err) {
		fprintf(stderr,
			"ftf-bpf: %s; the trace holds the whole records written before the error\n",
			s.out_errmsg);
		rc = 1;
	}
	if ((s.tr || s.flight) && s.start_ns && !o->quiet)
		summary(&s, mono_ns());
	if (s.loader)
		ftfb_loader_close(s.loader);
	if (s.tr)
		ftfb_translator_free(s.tr);
	free(s.tr);
	ftfb_stackprof_free(s.stacks);
	ftfb_symbolizer_free(s.sym);
	ftfb_flight_close(s.flight);
	free(s.trigger_ns);
	probes_free(&s.probes);
	ftfb_usdt_set_free(&s.usdt);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli_opts o;
	char err[512];

	if (cli_parse(argc, argv, &o, err, sizeof(err))) {
		die_line(err);
		return 2;
	}
	switch (o.action) {
	case CLI_HELP:
		cli_usage(stdout, "ftf-bpf");
		return 0;
	case CLI_VERSION:
		printf("ftf-bpf %s\n", FTFB_VERSION);
		return 0;
	case CLI_LIST:
		return list_probes(&o);
	case CLI_TRACE:
		break;
	}
	return run_trace(&o);
}
