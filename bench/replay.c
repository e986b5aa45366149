// SPDX-License-Identifier: MIT
/*
 * bench-replay: how many raw events per second one core turns into FTF
 * records (the translator and libftf's writer, what ftf-bpf's consumer
 * does per event), measured by replaying a synthetic stream of a busy
 * many-core machine (replay_gen.c) into memory and into a file.
 *
 * Usage: bench-replay [--events N] [--cpus C] [--tasks T] [--procs P]
 *                     [--mix sched|mixed] [--rings N] [--rounds R]
 *                     [--file PATH] [--keep]
 *
 * Each round gives every destination a fresh translator and writer, the
 * tasks added first as the /proc scan does, then the events one by one
 * (ftfb_translator_event), then finish and close, all timed in the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID: other work on the machine
 * takes wall time, not this). The memory destination hands the writer
 * the same 1 MiB buffer again and again (the bytes are written, then
 * dropped: no growth); the file destination is libftf's, to PATH.
 *
 * --rings N: N threads, each with its own translator and writer, given
 * the events the BPF side puts in its ring (switches and wakeups by cpu %
 * N, the rest to ring 0): how the work of N consumer threads would share
 * out (a model: ftf-bpf itself reads its rings on one thread).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/writer.h"
#include "replay_gen.h"
#include "translate.h"

#define MAX_RINGS 64
#define MAX_ROUNDS 99
#define MEM_BUF (1u << 20)

struct opts {
	struct replay_params p;
	unsigned rings, rounds;
	const char *file;
	int keep;
	int mono;
};

/* A memory destination that reuses one buffer (see the top comment). */
struct reuse_dest {
	struct ftf_destination base;
	uint8_t *buf;
	uint64_t bytes;
};

static int reuse_next(struct ftf_destination *d, size_t used, size_t need,
		      uint8_t **buf, size_t *len)
{
	struct reuse_dest *r = (struct reuse_dest *)d;

	if (need > MEM_BUF)
		return -ENOBUFS;
	r->bytes += used;
	*buf = r->buf;
	*len = MEM_BUF;
	return 0;
}

static int reuse_close(struct ftf_destination *d, size_t used)
{
	((struct reuse_dest *)d)->bytes += used;
	return 0;
}

/* One consumer thread's work and result. */
struct worker {
	const struct opts *o;
	const struct replay_stream *s;
	const uint32_t *idx; /* the events of its ring */
	size_t n;
	int to_file;
	char path[4096];
	const struct ftfb_func *funcs;
	struct ftf_clock clock;
	/* results */
	double cpu_s, wall_s;
	uint64_t bytes, records;
	int err;
	char errmsg[4500];
};

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A TSC-like clock of a fixed odd rate, so the ns -> ticks mapping runs
 * as it does on a real machine whatever this one's clock source is. */
static void bench_clock(struct ftf_clock *c, int mono)
{
	memset(c, 0, sizeof(*c));
	c->source = mono ? FTF_CLOCK_MONO : FTF_CLOCK_TSC;
	c->ticks_per_second = mono ? 1000000000ull : 2445678901ull;
	c->ref_ticks = 123456789;
	c->ref_mono_ns = 999000000;
	c->ref_realtime_ns = 1760000000000000000ll;
}

static int add_tasks(struct ftfb_translator *t, const struct replay_params *p)
{
	for (unsigned i = 0; i < p->tasks; i++) {
		struct ftfb_task_info ti;
		int err;

		memset(&ti, 0, sizeof(ti));
		ti.tid = replay_tid(p, i);
		ti.tgid = replay_tgid(p, i);
		snprintf(ti.comm, sizeof(ti.comm), "worker-%u", i % 97);
		snprintf(ti.process_name, sizeof(ti.process_name), "server-%u",
			 i % p->procs);
		err = ftfb_translator_add_task(t, &ti);
		if (err)
			return err;
	}
	return 0;
}

static void fail(struct worker *w, int err, const char *what,
		 const struct ftf_writer *fw)
{
	w->err = err ? err : -EIO;
	snprintf(w->errmsg, sizeof(w->errmsg), "%s: %s", what,
		 fw ? ftf_writer_error(fw) : strerror(-w->err));
}

/* The events, timed; then finish and close (also timed). */
static void replay(struct worker *w, struct ftfb_translator *t,
		   struct ftf_writer *fw)
{
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID), t0 = now_s(CLOCK_MONOTONIC);
	uint64_t last = 0;
	int err = 0;

	for (size_t i = 0; i < w->n && !err; i++) {
		const struct replay_ev *e = &w->s->ev[w->idx[i]];

		err = ftfb_translator_event(t, w->s->bytes + e->off, e->size);
	}
	if (w->n)
		last = ((const struct ftfb_hdr *)(w->s->bytes +
						  w->s->ev[w->idx[w->n - 1]].off))
			       ->ts;
	if (!err)
		err = ftfb_translator_finish(t, last + 1);
	w->records = ftfb_translator_stats(t)->records;
	if (err)
		fail(w, err, "translating", fw);
	if (ftfb_translator_stats(t)->skipped && !w->err)
		fail(w, -EPROTO, "the translator skipped events", NULL);
	ftfb_translator_destroy(t);
	err = ftf_writer_close(fw);
	if (err && !w->err)
		fail(w, err, "closing", fw);
	w->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_s = now_s(CLOCK_MONOTONIC) - t0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ftf_writer_options wo = {.provider_name = "ftf-bpf",
					.num_temp_strs = -1,
					.clock = &w->clock};
	struct ftfb_translator_opts to;
	struct reuse_dest mem = {.base = {reuse_next, reuse_close, NULL}};
	struct ftf_dest_file file;
	struct ftfb_translator *t = NULL;
	struct ftf_writer fw;
	int err;

	bench_clock(&w->clock, w->o->mono);
	if (w->to_file) {
		err = ftf_dest_file_open(&file, w->path, 1 << 20);
		if (err) {
			fail(w, err, w->path, NULL);
			return NULL;
		}
	} else if (!(mem.buf = aligned_alloc(64, MEM_BUF))) {
		fail(w, -ENOMEM, "memory", NULL);
		return NULL;
	}
	if (ftf_writer_init(&fw, w->to_file ? &file.base : &mem.base, &wo)) {
		fail(w, -EIO, "writer", &fw);
		free(mem.buf);
		return NULL;
	}
	memset(&to, 0, sizeof(to));
	to.w = &fw;
	to.clock_mono = w->o->mono;
	to.funcs = w->funcs;
	to.nfuncs = w->o->p.funcs;
	to.expected_tasks = w->o->p.tasks;
	if ((err = ftfb_translator_new(&t, &to)) ||
	    (err = add_tasks(t, &w->o->p))) {
		fail(w, err, "translator", &fw);
		ftfb_translator_destroy(t);
		ftf_writer_close(&fw);
		free(mem.buf);
		return NULL;
	}
	replay(w, t, &fw);
	w->bytes = w->to_file ? file.bytes_written : mem.bytes;
	free(mem.buf);
	return NULL;
}

/* The ring of each event, as the BPF side picks it (ftfb_ring_of). */
static unsigned ring_of(const struct replay_stream *s, size_t i, unsigned n)
{
	const struct ftfb_hdr *h = (const void *)(s->bytes + s->ev[i].off);

	if (n > 1 && (h->kind == FTFB_EV_SWITCH || h->kind == FTFB_EV_WAKEUP ||
		      h->kind == FTFB_EV_WAKEUP_NEW))
		return s->ev[i].cpu % n;
	return 0;
}

/* idx[r][..]: the events of ring r in order; n[r] of them. */
static int split_rings(const struct replay_stream *s, unsigned rings,
		       uint32_t **idx, size_t *n)
{
	for (unsigned r = 0; r < rings; r++) {
		idx[r] = malloc(s->n * sizeof(**idx));
		n[r] = 0;
		if (!idx[r])
			return -ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		unsigned r = ring_of(s, i, rings);

		idx[r][n[r]++] = (uint32_t)i;
	}
	return 0;
}

struct result {
	double per_core; /* events per CPU second, all threads together */
	double total;    /* events per wall second of the slowest thread */
	double bytes;    /* bytes per event */
};

/* One round of one destination: the rings' threads, joined. */
static int run_config(const struct opts *o, const struct replay_stream *s,
		      uint32_t **idx, size_t *n, const struct ftfb_func *funcs,
		      int to_file, struct result *res)
{
	struct worker w[MAX_RINGS];
	pthread_t th[MAX_RINGS];
	double cpu = 0, wall = 0, bytes = 0;

	for (unsigned r = 0; r < o->rings; r++) {
		memset(&w[r], 0, sizeof(w[r]));
		w[r].o = o;
		w[r].s = s;
		w[r].idx = idx[r];
		w[r].n = n[r];
		w[r].to_file = to_file;
		w[r].funcs = funcs;
		snprintf(w[r].path, sizeof(w[r].path),
			 o->rings > 1 ? "%.4000s.%u" : "%.4000s", o->file, r);
		if (pthread_create(&th[r], NULL, work, &w[r]))
			return -EAGAIN;
	}
	for (unsigned r = 0; r < o->rings; r++)
		pthread_join(th[r], NULL);
	for (unsigned r = 0; r < o->rings; r++) {
		if (w[r].err) {
			fprintf(stderr, "bench-replay: %s\n", w[r].errmsg);
			return w[r].err;
		}
		cpu += w[r].cpu_s;
		bytes += (double)w[r].bytes;
		if (w[r].wall_s > wall)
			wall = w[r].wall_s;
	}
	res->per_core = (double)s->n / cpu;
	res->total = (double)s->n / wall;
	res->bytes = bytes / (double)s->n;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_row(const char *name, unsigned rings, struct result *r,
		      unsigned n)
{
	double pc[MAX_ROUNDS], tot[MAX_ROUNDS], lo, hi, m;

	for (unsigned i = 0; i < n; i++) {
		pc[i] = r[i].per_core;
		tot[i] = r[i].total;
	}
	m = median(pc, n);
	lo = pc[0];
	hi = pc[n - 1];
	printf("%-8s %5u %9.1fM (%5.1f..%5.1f) %10.1f %12.1fM %10.1f\n", name,
	       rings, m / 1e6, lo / 1e6, hi / 1e6, 1e9 / m,
	       median(tot, n) / 1e6, r[0].bytes);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench-replay [--events N] [--cpus C] [--tasks T] "
		"[--procs P] [--funcs F]\n"
		"                    [--mix sched|mixed] [--rings N] "
		"[--rounds R] [--file PATH] [--keep] [--mono]\n"
		"Replays a synthetic raw event stream of a busy machine through "
		"the translator\nand libftf's writer, into memory and into "
		"PATH (default /tmp/bench-replay.fxt,\nremoved unless --keep); "
		"prints events per CPU second and ns per event.\n");
}

static int set_mix(struct replay_params *p, const char *mix)
{
	if (!strcmp(mix, "sched")) { /* a scheduler-bound server */
		p->pct_switch = 60;
		p->pct_wakeup = 40;
		p->pct_syscall = 0;
	} else if (!strcmp(mix, "mixed")) { /* -a --syscalls -u ... */
		p->pct_switch = 30;
		p->pct_wakeup = 20;
		p->pct_syscall = 25;
	} else {
		return -1;
	}
	return 0;
}

static long num_arg(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < lo || v > hi) {
		fprintf(stderr,
			"bench-replay: '%s' is not a number in %ld..%ld\n", s,
			lo, hi);
		exit(2);
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"events", 1, 0, 'n'}, {"cpus", 1, 0, 'c'},  {"tasks", 1, 0, 't'},
		{"procs", 1, 0, 'p'},  {"funcs", 1, 0, 'f'}, {"mix", 1, 0, 'm'},
		{"rings", 1, 0, 'r'},  {"rounds", 1, 0, 'R'}, {"file", 1, 0, 'o'},
		{"keep", 0, 0, 'k'},   {"mono", 0, 0, 'M'},  {"help", 0, 0, 'h'},
		{0, 0, 0, 0}};
	int c;

	*o = (struct opts){.p = {.events = 2000000, .cpus = 192, .tasks = 4096,
				 .procs = 256, .funcs = 16, .ns_per_event = 25,
				 .seed = 42},
			   .rings = 1, .rounds = 5,
			   .file = "/tmp/bench-replay.fxt"};
	set_mix(&o->p, "mixed");
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o->p.events = num_arg(optarg, 1, 50000000); break;
		case 'c': o->p.cpus = num_arg(optarg, 1, 4096); break;
		case 't': o->p.tasks = num_arg(optarg, 1, 1000000); break;
		case 'p': o->p.procs = num_arg(optarg, 1, 1000000); break;
		case 'f': o->p.funcs = num_arg(optarg, 1, 4096); break;
		case 'r': o->rings = num_arg(optarg, 1, MAX_RINGS); break;
		case 'R': o->rounds = num_arg(optarg, 1, MAX_ROUNDS); break;
		case 'o': o->file = optarg; break;
		case 'k': o->keep = 1; break;
		case 'M': o->mono = 1; break;
		case 'm':
			if (set_mix(&o->p, optarg) == 0)
				break;
			fprintf(stderr, "bench-replay: --mix is sched or mixed, "
					"not '%s'\n", optarg);
			exit(2);
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc || o->p.procs > o->p.tasks) {
		fprintf(stderr, "bench-replay: %s\n",
			optind < argc ? "unexpected argument (see --help)"
				      : "--procs is at most --tasks");
		exit(2);
	}
}

static struct ftfb_func *make_funcs(unsigned n)
{
	struct ftfb_func *f = calloc(n, sizeof(*f));
	static char names[4096][16];

	for (unsigned i = 0; f && i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "fn%u", i);
		f[i].name = names[i];
		f[i].category = "bench";
	}
	return f;
}

static void print_stream(const struct opts *o, const struct replay_stream *s)
{
	const size_t *k = s->by_kind;

	printf("stream: %zu events on %u cpus, %u threads in %u processes: "
	       "%zu switches, %zu wakeups, %zu system call entries + exits, "
	       "%zu uprobe entries + returns (%.1f MB)\n",
	       s->n, o->p.cpus, o->p.tasks, o->p.procs, k[FTFB_EV_SWITCH],
	       k[FTFB_EV_WAKEUP], k[FTFB_EV_SENTER] + k[FTFB_EV_SEXIT],
	       k[FTFB_EV_UENTRY] + k[FTFB_EV_URET], (double)s->used / 1e6);
	printf("clock: %s; %u rounds, interleaved; CPU time of the consumer "
	       "thread(s)\n\n",
	       o->mono ? "CLOCK_MONOTONIC ns" : "TSC-like ticks (2.45 GHz)",
	       o->rounds);
	printf("%-8s %5s %24s %10s %13s %10s\n", "dest", "rings",
	       "events/s per core (range)", "ns/event", "total ev/s",
	       "bytes/ev");
}

int main(int argc, char **argv)
{
	struct result mem[MAX_ROUNDS], file[MAX_ROUNDS];
	uint32_t *idx[MAX_RINGS] = {0};
	size_t n[MAX_RINGS];
	struct replay_stream s;
	struct ftfb_func *funcs;
	struct opts o;
	int err = 0;

	parse(argc, argv, &o);
	funcs = make_funcs(o.p.funcs);
	if (!funcs || replay_generate(&s, &o.p) ||
	    split_rings(&s, o.rings, idx, n)) {
		fprintf(stderr, "bench-replay: out of memory\n");
		return 1;
	}
	print_stream(&o, &s);
	for (unsigned r = 0; r < o.rounds && !err; r++) {
		err = run_config(&o, &s, idx, n, funcs, 0, &mem[r]);
		if (!err)
			err = run_config(&o, &s, idx, n, funcs, 1, &file[r]);
	}
	if (!err) {
		print_row("memory", o.rings, mem, o.rounds);
		print_row("file", o.rings, file, o.rounds);
	}
	for (unsigned r = 0; r < o.rings; r++) {
		char p[4112];

		snprintf(p, sizeof(p), o.rings > 1 ? "%.4000s.%u" : "%.4000s", o.file, r);
		if (!o.keep)
			unlink(p);
		free(idx[r]);
	}
	replay_free(&s);
	free(funcs);
	return err ? 1 : 0;
}
