// SPDX-License-Identifier: MIT
/*
 * loader_stacks.c - --stacks: the stack object, its on-CPU samplers (a
 * cpu-clock perf event per cpu), its off-CPU and waker programs, the user
 * stack walker's tables (unwind_maps.h) and CPython's processes.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bpf_loader_priv.h"
#include "load_twins.h"
#include "monotime.h"
#include "stacks.skel.h"
#include "unwind_maps.h"

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
			ftfb_ld_set_err(
				errmsg, errlen,
				"opening the cpu-clock perf event of cpu %d "
				"failed: %s%s",
				cpu, ftfb_ld_errstr(err),
				err == -EINVAL
					? " (--freq above "
					  "kernel.perf_event_max_sample_rate?)"
				: err == -EACCES || err == -EPERM
					? ftfb_ld_load_hint(err)
					: "");
			return err;
		}
		err = ftfb_ld_keep_link(
			l, bpf_program__attach_perf_event(
				   l->stk->progs.ftfb_cpu_sample, fd));
		if (err) {
			close(fd);
			ftfb_ld_set_err(errmsg, errlen,
					"attaching the stack sampler to cpu %d "
					"failed: %s",
					cpu, ftfb_ld_errstr(err));
			return err;
		}
		attached++;
	}
	if (!attached) {
		ftfb_ld_set_err(errmsg, errlen, "no online cpu to sample");
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

/* System-wide (-a): every process running now, but this one and kernel
 * threads (no executable), asked for as the walker would at its first
 * sample: in the first seconds of a trace each would otherwise stop
 * "not loaded yet" while hundreds of processes queue up (92% of the
 * first 2 s beside a build). */
static void want_running(struct ftfb_loader *l)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[64], exe[8];
	char *end;

	while (d && (de = readdir(d))) {
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid || pid > UINT32_MAX ||
		    pid == (unsigned long)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/exe", pid);
		if (readlink(path, exe, sizeof(exe)) < 0)
			continue;
		ftfb_uw_want_process(l->uw, (uint32_t)pid);
	}
	if (d)
		closedir(d);
}

/* The table thread, started at its creator's priority (the start's: it
 * waits for the first tables, which a build beside would otherwise
 * delay), then at opts.tables_nice once the start stops waiting: the
 * session's thread may start at a reader's priority, which a build
 * would take from the readers (reader_priority.h). */
static void lower_table_thread(struct ftfb_loader *l)
{
	if (l->opts.tables_nice_set)
		ftfb_uw_set_nice(l->uw, l->opts.tables_nice);
}

/* The tables of the user stack walker: the loader of them, the
 * processes traced so far loaded at once, their tables built before the
 * first sample (the others' when the walker first asks), and the
 * programs that drop a process's table at exec and exit. */
#define UW_PREBUILD_BUDGET_NS 3000000000ull
/* system-wide, the start is not held longer than this for them (the
 * cache's tables load in it; a cold cache's builds go on after) */
#define UW_PREBUILD_ALL_BUDGET_NS 500000000ull

static int start_unwinder(struct ftfb_loader *l, char *errmsg, size_t errlen)
{
	struct stacks_bpf *s = l->stk;
	struct ftfb_uw_bpf_maps m = {
		.rows = s->maps.uw_rows,
		.tables = s->maps.uw_tables,
		.procs = s->maps.uw_procs,
		.wanted = s->maps.uw_wanted,
		.stats = s->maps.uw_stats,
		.files = s->maps.uw_files,
	};
	struct bpf_program *progs[] = {s->progs.ftfb_uw_exec,
				       s->progs.ftfb_uw_fork,
				       s->progs.ftfb_uw_exit,
				       s->progs.ftfb_uw_prepare_exec};
	__u32 key, *prev = NULL;
	int err = ftfb_uw_loader_new(&l->uw, &m, errmsg, errlen);

	if (!err) /* (its build starts with the thread, below) */
		ftfb_uw_use_cache(l->uw, NULL);
	if (!err)
		ftfb_uw_prebuild_libc(l->uw);
	for (size_t i = 0; !err && i < sizeof(progs) / sizeof(*progs); i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		err = ftfb_ld_keep_link(l, bpf_program__attach(progs[i]));
		if (err)
			ftfb_ld_set_err(errmsg, errlen,
					"attaching %s failed: %s",
					bpf_program__section_name(progs[i]),
					ftfb_ld_errstr(err));
	}
	while (!err && l->opts.filter_tgids &&
	       !bpf_map_get_next_key(bpf_map__fd(s->maps.traced_tgids), prev,
				     &key)) {
		if (!runs_this_program(key)) /* (a command not exec'd yet) */
			ftfb_uw_want_process(l->uw, key);
		prev = &key;
	}
	if (!err && !l->opts.filter_tgids)
		want_running(l);
	if (!err && (err = ftfb_uw_start(l->uw)))
		ftfb_ld_set_err(errmsg, errlen,
				"starting the unwind table thread failed: %s",
				ftfb_ld_errstr(err));
	/* their binaries' tables before the samplers attach (a process
	 * mapping many large libraries: the first 3 seconds' worth), built
	 * by the thread: a stop signal ends the wait */
	if (!err) {
		uint64_t t0 = ftfb_mono_ns();
		bool settled = ftfb_uw_wait_settled(
			l->uw, l->opts.filter_tgids
				       ? UW_PREBUILD_BUDGET_NS
				       : UW_PREBUILD_ALL_BUDGET_NS);

		if (l->opts.verbose)
			fprintf(stderr,
				"ftf-bpf: waited %.0f ms for the running "
				"processes' unwind tables (%s)\n",
				(double)(ftfb_mono_ns() - t0) / 1e6,
				settled ? "all ready"
					: "the budget's end: the rest are "
					  "built while tracing");
	}
	if (!err)
		lower_table_thread(l);
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

/* Whether the kernel has the sched_prepare_exec tracepoint (Linux
 * 6.10): from its release, not its BTF (libbpf_find_vmlinux_btf_id
 * parses all of it again, some 70 ms of the start). */
static bool has_prepare_exec(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 10);
}

/* The stack object's programs verified in parallel (load_twins.h): s
 * loads the on-CPU sampler and the walker's table programs, its twin
 * the off-CPU (and waker) ones. */
static int start_twins(struct ftfb_loader *l, struct stacks_bpf *s,
		       struct stacks_bpf *off)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, off->obj)
	{
		bool theirs = p == off->progs.ftfb_offcpu_switch ||
			      (p == off->progs.ftfb_waker_stack &&
			       l->opts.waker_stacks);

		bpf_program__set_autoload(p, theirs);
	}
	bpf_program__set_autoload(s->progs.ftfb_offcpu_switch, false);
	bpf_program__set_autoload(s->progs.ftfb_waker_stack, false);
	/* (before Linux 6.10: an image is refreshed at its exit only) */
	if (!has_prepare_exec())
		bpf_program__set_autoload(s->progs.ftfb_uw_prepare_exec, false);
	return ftfb_ld_twins_start(&l->stk_twins, s->skeleton, off->skeleton);
}

/* The stack object and its twin opened with their settings (kept in l,
 * closed with it), their loads started. */
static int begin_stacks(struct ftfb_loader *l)
{
	struct stacks_bpf *s;
	int err;

	l->stk_loading = s = stacks_bpf__open();
	if (s)
		l->stk_off = stacks_bpf__open();
	if (!s || !l->stk_off)
		return -errno;
	SET_COMMON_RODATA(l, s);
	s->rodata->py_enabled = l->opts.python_stacks;
	/* (a bench's switch: on-CPU walks as before bpf/utail.bpf.h) */
	s->rodata->utail_off = getenv("FTFB_NO_UTAIL") != NULL;
	/* (a check's switch: every kernel stack at a block unwound) */
	s->rodata->kcache_off = getenv("FTFB_NO_KCACHE") != NULL;
	err = ftfb_ld_share_maps(l, s->obj);
	if (!err)
		err = ftfb_uw_prepare(s->maps.uw_rows, s->maps.uw_tables,
				      l->opts.filter_tgids
					      ? FTFB_UW_ROWS_DEFAULT
					      : FTFB_UW_ROWS_SYSTEM);
	return err ? err : start_twins(l, s, l->stk_off);
}

void ftfb_ld_preload_stacks(struct ftfb_loader *l)
{
	l->stk_err = begin_stacks(l);
}

void ftfb_ld_abandon_stacks(struct ftfb_loader *l)
{
	if (l->stk_twins)
		ftfb_ld_twins_wait(l->stk_twins);
	l->stk_twins = NULL;
	stacks_bpf__destroy(l->stk_loading);
	l->stk_loading = NULL;
}

/* The loads begun (now, if not at the loader's open) and ended. */
static int load_stacks(struct ftfb_loader *l)
{
	int err;

	if (!l->stk_loading && !l->stk_err)
		l->stk_err = begin_stacks(l);
	err = l->stk_err;
	if (l->stk_twins) {
		int e = ftfb_ld_twins_wait(l->stk_twins);

		l->stk_twins = NULL;
		if (!err)
			err = e;
	}
	return err;
}

int ftfb_loader_attach_stacks(struct ftfb_loader *l, unsigned freq_hz,
			      char *errmsg, size_t errlen)
{
	struct stacks_bpf *s, *off;
	uint64_t t0;
	int err;

	if (l->stk)
		return 0;
	t0 = ftfb_mono_ns();
	err = load_stacks(l);
	if (l->opts.verbose)
		fprintf(stderr,
			"ftf-bpf: waited %.0f ms for the stack programs' "
			"verification\n",
			(double)(ftfb_mono_ns() - t0) / 1e6);
	if (err) {
		ftfb_ld_set_err(errmsg, errlen,
				"loading the stack programs failed: %s%s",
				ftfb_ld_errstr(err), ftfb_ld_load_hint(err));
		ftfb_ld_abandon_stacks(l);
		stacks_bpf__destroy(l->stk_off);
		l->stk_off = NULL;
		return err;
	}
	l->stk = s = l->stk_loading;
	l->stk_loading = NULL;
	off = l->stk_off;
	/* with --no-sched: the lifecycle programs still name the threads
	 * (fork, exec, rename) and end processes (exit) */
	err = ftfb_ld_start_flushers(l, errmsg, errlen);
	if (!err)
		err = start_unwinder(l, errmsg, errlen);
	if (!err)
		err = attach_cpu_samplers(l, freq_hz, errmsg, errlen);
	if (!err) {
		err = ftfb_ld_keep_link(
			l, bpf_program__attach(off->progs.ftfb_offcpu_switch));
		if (err)
			ftfb_ld_set_err(errmsg, errlen,
					"attaching %s failed: %s",
					bpf_program__section_name(
						off->progs.ftfb_offcpu_switch),
					ftfb_ld_errstr(err));
	}
	if (!err && l->opts.waker_stacks) {
		err = ftfb_ld_keep_link(
			l, bpf_program__attach(off->progs.ftfb_waker_stack));
		if (err)
			ftfb_ld_set_err(errmsg, errlen,
					"attaching %s failed: %s",
					bpf_program__section_name(
						off->progs.ftfb_waker_stack),
					ftfb_ld_errstr(err));
	}
	if (!err) /* both kinds start together */
		__atomic_store_n(&s->bss->armed, 1, __ATOMIC_RELEASE);
	return err;
}

int ftfb_loader_stack_stats(struct ftfb_loader *l, struct ftfb_prog_stats *on,
			    struct ftfb_prog_stats *off)
{
	int err;

	memset(on, 0, sizeof(*on));
	memset(off, 0, sizeof(*off));
	if (!l->stk)
		return 0;
	if ((err = ftfb_ld_prog_stats(l->stk->progs.ftfb_cpu_sample, on)) ||
	    (err = ftfb_ld_prog_stats(l->stk_off->progs.ftfb_offcpu_switch,
				      off)))
		return err;
	return 0;
}
