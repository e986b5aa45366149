// SPDX-License-Identifier: MIT
/*
 * bench-replay: how many raw events per second one core turns into FTF
 * records (the translator and libftf's writer, what ftf-bpf's consumer
 * does per event), measured by replaying a synthetic stream of a busy
 * many-core machine (replay_gen.c) into memory and into a file.
 *
 * Usage: bench-replay [--events N] [--cpus C] [--tasks T] [--procs P]
 *                     [--mix sched|mixed] [--rings N] [--rounds R]
 *                     [--file PATH] [--keep] [--gzip-threads K]
 *                     [--dest memory|file|file-1|gzip|gzip-1]
 *
 * Each round gives every destination a fresh translator and writer, the
 * tasks added first as the /proc scan does, then the events one by one
 * (ftfb_translator_event), then finish and close, all timed in the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID: other work on the machine
 * takes wall time, not this). The memory destination hands the writer
 * the same 1 MiB buffer again and again (the bytes are written, then
 * dropped: no growth); "file" and "gzip" are written to PATH as ftf-bpf
 * writes -o X.fxt and -o X.fxt.gz (src/output_pool.h: by threads of
 * their own), "file-1" and "gzip-1" by libftf's destinations on the
 * consumer's thread.
 *
 * --rings N: as ftf-bpf --rings N reads them: ring 0's events (the BPF
 * side puts switches and wakeups in ring cpu % N, the rest in ring 0)
 * through the translator on this thread, rings 1..N-1 each through a
 * shard (src/translate/ring_shard.h) on a thread of its own, whose records this
 * thread collects into the one writer every 65,536 of its events (a loop
 * turn's worth) and at the end. "per core" is events per second of the
 * CPU time of all the process's threads (the gzip row's compressors
 * too); "total" is events per second of wall time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/writer.h"
#include "output_pool.h"
#include "ring_shard.h"
#include "replay_gen.h"
#include "translate.h"

#define MAX_RINGS 64
#define MAX_ROUNDS 99
#define MEM_BUF (1u << 20)

struct opts {
	struct replay_params p;
	unsigned rings, rounds;
	unsigned gzip_threads; /* the gzip row's compressors; 0: ftf-bpf's */
	int only_dest;	       /* --dest: one destination (-1: all) */
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

/* Where the records go: a reused memory buffer; a file and a gzipped
 * file written (and compressed) by threads of their own, as ftf-bpf
 * writes them (src/output_pool.h); the same two on the consumer's thread
 * (libftf's ftf_dest_file and ftf_dest_gzip, as ftf-bpf did before:
 * "file-1", "gzip-1"). */
enum dest { DEST_MEM, DEST_FILE, DEST_FILE_HERE, DEST_GZIP, DEST_GZIP_HERE,
	    NDEST };
static const char *const dest_names[NDEST] = {"memory", "file", "file-1",
					      "gzip", "gzip-1"};

/* A shard's thread (--rings N, rings 1..N-1): its ring's events through
 * its shard, then its last records handed over. */
struct shard_worker {
	struct ftfb_shard shard;
	const struct replay_stream *s;
	const uint32_t *idx;
	size_t n;
	pthread_t th;
	bool started;
	bool done; /* atomic */
	double cpu_s;
	int err;
};

/* The loop's thread (ring 0): the translator and the writer, the shards'
 * records collected as ftf-bpf's loop does at each turn. */
struct worker {
	const struct opts *o;
	const struct replay_stream *s;
	uint32_t **idx; /* the events of each ring */
	size_t *n;
	enum dest dest;
	const struct ftfb_func *funcs;
	struct ftf_clock clock;
	struct ftfb_relay relay;
	struct shard_worker shards[MAX_RINGS];
	/* results: CPU time of all threads, of the shards' alone, and of
	 * this thread's collecting */
	double cpu_s, wall_s, shards_cpu_s, collect_s;
	double proc_cpu_s; /* every thread's, the compressors' too */
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

static void *shard_work(void *arg)
{
	struct shard_worker *lw = arg;
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);

	for (size_t i = 0; i < lw->n && !lw->err; i++) {
		const struct replay_ev *e = &lw->s->ev[lw->idx[i]];

		lw->err = ftfb_shard_event(&lw->shard, lw->s->bytes + e->off,
					  e->size);
	}
	if (!lw->err)
		lw->err = ftfb_shard_flush(&lw->shard);
	lw->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	__atomic_store_n(&lw->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static int start_shards(struct worker *w, struct ftfb_translator *t)
{
	int err = ftfb_relay_init(&w->relay, 0);

	for (unsigned r = 1; r < w->o->rings && !err; r++) {
		struct shard_worker *lw = &w->shards[r];

		err = ftfb_shard_init(&lw->shard, t, &w->relay);
		lw->s = w->s;
		lw->idx = w->idx[r];
		lw->n = w->n[r];
		if (!err && pthread_create(&lw->th, NULL, shard_work, lw))
			err = -EAGAIN;
		lw->started = !err;
	}
	return err;
}

/* (collected every COLLECT_EVERY events: a loop turn's worth on a busy
 * machine) */
#define COLLECT_EVERY 65536

/* ftfb_shard_collect, its CPU time counted */
static int collect(struct worker *w, struct ftfb_translator *t)
{
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	int err = ftfb_shard_collect(&w->relay, t);

	w->collect_s += now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	return err;
}

static bool shards_done(const struct worker *w)
{
	for (unsigned r = 1; r < w->o->rings; r++)
		if (w->shards[r].started &&
		    !__atomic_load_n(&w->shards[r].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Waits for the shards while collecting; their CPU time and errors. */
static int end_shards(struct worker *w, struct ftfb_translator *t)
{
	int err = 0, e;

	while (!shards_done(w))
		if ((e = collect(w, t)) && !err)
			err = e;
	for (unsigned r = 1; r < w->o->rings; r++) {
		struct shard_worker *lw = &w->shards[r];

		if (!lw->started)
			continue;
		pthread_join(lw->th, NULL);
		w->cpu_s += lw->cpu_s;
		w->shards_cpu_s += lw->cpu_s;
		if (lw->err && !err)
			err = lw->err;
	}
	if ((e = collect(w, t)) && !err)
		err = e;
	for (unsigned r = 1; r < w->o->rings; r++)
		ftfb_shard_free(&w->shards[r].shard);
	ftfb_relay_free(&w->relay);
	return err;
}

/* Ring 0's events (and the shards' records), timed; then finish and
 * close (also timed). */
static void replay(struct worker *w, struct ftfb_translator *t,
		   struct ftf_writer *fw)
{
	double c0 = now_s(CLOCK_THREAD_CPUTIME_ID), t0 = now_s(CLOCK_MONOTONIC);
	double p0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	const uint32_t *idx = w->idx[0];
	size_t n = w->n[0];
	uint64_t last = 0;
	int err = start_shards(w, t);

	for (size_t i = 0; i < n && !err; i++) {
		const struct replay_ev *e = &w->s->ev[idx[i]];

		err = ftfb_translator_event(t, w->s->bytes + e->off, e->size);
		if (!err && w->o->rings > 1 && i % COLLECT_EVERY == 0)
			err = collect(w, t);
	}
	if (w->o->rings > 1) {
		int e = end_shards(w, t);

		err = err ? err : e;
	}
	if (w->s->n) /* (the stream is in time order) */
		last = ((const struct ftfb_hdr *)(w->s->bytes +
						  w->s->ev[w->s->n - 1].off))
			       ->ts;
	if (!err)
		err = ftfb_translator_finish(t, last + 1);
	w->records = ftfb_translator_stats(t)->records;
	for (unsigned r = 1; r < w->o->rings; r++)
		w->records += w->shards[r].shard.st.records;
	if (err)
		fail(w, err, "translating", fw);
	if (ftfb_translator_stats(t)->skipped && !w->err)
		fail(w, -EPROTO, "the translator skipped events", NULL);
	ftfb_translator_destroy(t);
	err = ftf_writer_close(fw);
	if (err && !w->err)
		fail(w, err, "closing", fw);
	w->cpu_s += now_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_s = now_s(CLOCK_MONOTONIC) - t0;
	w->proc_cpu_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - p0;
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
	struct ftf_dest_gzip gz1;
	struct ftfb_output_pool *gz = NULL; /* file, gzip */
	struct ftf_destination *dest = &mem.base;
	struct ftfb_translator *t = NULL;
	struct ftf_writer fw;
	int err;

	bench_clock(&w->clock, w->o->mono);
	if (w->dest == DEST_FILE_HERE) {
		err = ftf_dest_file_open(&file, w->o->file, 1 << 20);
		if (err) {
			fail(w, err, w->o->file, NULL);
			return NULL;
		}
		dest = &file.base;
	} else if (w->dest == DEST_FILE || w->dest == DEST_GZIP) {
		struct ftfb_output_pool_opts po = {
			.gzip = w->dest == DEST_GZIP, .level = -1,
			.threads = w->dest == DEST_GZIP ? w->o->gzip_threads : 0};
		int fd = open(w->o->file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		char why[256];

		if (fd < 0 ||
		    ftfb_output_pool_new(&gz, fd, &po, why, sizeof(why))) {
			if (fd >= 0)
				close(fd);
			fail(w, -EIO, w->o->file, NULL);
			return NULL;
		}
		dest = ftfb_output_pool_dest(gz);
	} else if (w->dest == DEST_GZIP_HERE) {
		err = ftf_dest_gzip_open(&gz1, w->o->file, 0, -1);
		if (err) {
			fail(w, err, w->o->file, NULL);
			return NULL;
		}
		dest = &gz1.base;
	} else if (!(mem.buf = aligned_alloc(64, MEM_BUF))) {
		fail(w, -ENOMEM, "memory", NULL);
		return NULL;
	}
	if (ftf_writer_init(&fw, dest, &wo)) {
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
	w->bytes = w->dest == DEST_FILE_HERE ? file.bytes_written
		   : gz			       ? ftfb_output_pool_bytes_in(gz)
		   : w->dest == DEST_GZIP_HERE ? gz1.bytes_in
					       : mem.bytes;
	ftfb_output_pool_free(gz);
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
	double shard_ns;	   /* shards' CPU ns per event of their rings */
	double collect_ns; /* ring 0's thread: collecting, per shard event */
	double per_core; /* events per CPU second, all threads together */
	double total;    /* events per wall second of the slowest thread */
	double bytes;    /* bytes per event */
};

/* One round of one destination: ring 0 on this thread, the others on
 * shards' threads; CPU time summed over all. */
static int run_config(const struct opts *o, const struct replay_stream *s,
		      uint32_t **idx, size_t *n, const struct ftfb_func *funcs,
		      enum dest dest, struct result *res)
{
	struct worker *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->o = o;
	w->s = s;
	w->idx = idx;
	w->n = n;
	w->dest = dest;
	w->funcs = funcs;
	work(w);
	err = w->err;
	if (err) {
		fprintf(stderr, "bench-replay: %s\n", w->errmsg);
	} else {
		size_t in_shards = s->n - n[0];

		res->per_core = (double)s->n / w->proc_cpu_s;
		res->shard_ns = in_shards ? w->shards_cpu_s * 1e9 / (double)in_shards : 0;
		res->collect_ns = in_shards ? w->collect_s * 1e9 / (double)in_shards : 0;
		res->total = (double)s->n / w->wall_s;
		res->bytes = (double)w->bytes / (double)s->n;
	}
	free(w);
	return err;
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
	double pc[MAX_ROUNDS], tot[MAX_ROUNDS], shard[MAX_ROUNDS],
		coll[MAX_ROUNDS], lo, hi, m;

	for (unsigned i = 0; i < n; i++) {
		pc[i] = r[i].per_core;
		tot[i] = r[i].total;
		shard[i] = r[i].shard_ns;
		coll[i] = r[i].collect_ns;
	}
	m = median(pc, n);
	lo = pc[0];
	hi = pc[n - 1];
	printf("%-8s %5u %9.1fM (%5.1f..%5.1f) %10.1f %12.1fM %10.1f", name,
	       rings, m / 1e6, lo / 1e6, hi / 1e6, 1e9 / m,
	       median(tot, n) / 1e6, r[0].bytes);
	if (rings > 1)
		printf(" %11.1f %11.1f\n", median(shard, n), median(coll, n));
	else
		printf(" %11s %11s\n", "-", "-");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench-replay [--events N] [--cpus C] [--tasks T] "
		"[--procs P] [--funcs F]\n"
		"                    [--mix sched|mixed] [--rings N] "
		"[--rounds R] [--file PATH] [--keep] [--mono]\n"
		"                    [--gzip-threads K] [--dest memory|file|file-1|gzip|gzip-1]\n"
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

static int dest_arg(const char *s)
{
	for (int d = 0; d < NDEST; d++)
		if (!strcmp(s, dest_names[d]))
			return d;
	fprintf(stderr, "bench-replay: --dest is memory, file, file-1, gzip or gzip-1, not '%s'\n",
		s);
	exit(2);
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
		{"gzip-threads", 1, 0, 'g'}, {"dest", 1, 0, 'd'},
		{0, 0, 0, 0}};
	int c;

	*o = (struct opts){.p = {.events = 2000000, .cpus = 192, .tasks = 4096,
				 .procs = 256, .funcs = 16, .ns_per_event = 25,
				 .seed = 42},
			   .rings = 1, .rounds = 5, .only_dest = -1,
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
		case 'g': o->gzip_threads = num_arg(optarg, 1, 8); break;
		case 'd': o->only_dest = dest_arg(optarg); break;
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
	printf("clock: %s; %u rounds, interleaved; per core: CPU time of all "
	       "threads; with --rings N: a shard's CPU ns per event of its "
	       "ring, and ring 0's thread's CPU ns collecting, per shard "
	       "event\n\n",
	       o->mono ? "CLOCK_MONOTONIC ns" : "TSC-like ticks (2.45 GHz)",
	       o->rounds);
	printf("%-8s %5s %24s %10s %13s %10s %11s %11s\n", "dest", "rings",
	       "events/s per core (range)", "ns/event", "total ev/s",
	       "bytes/ev", "shard ns/ev", "collect ns");
}

int main(int argc, char **argv)
{
	struct result res[NDEST][MAX_ROUNDS];
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
	for (unsigned r = 0; r < o.rounds && !err; r++)
		for (int d = 0; d < NDEST && !err; d++)
			if (o.only_dest < 0 || o.only_dest == d)
				err = run_config(&o, &s, idx, n, funcs,
						 (enum dest)d, &res[d][r]);
	for (int d = 0; d < NDEST && !err; d++)
		if (o.only_dest < 0 || o.only_dest == d)
			print_row(dest_names[d], o.rings, res[d], o.rounds);
	if (!o.keep)
		unlink(o.file);
	for (unsigned r = 0; r < o.rings; r++)
		free(idx[r]);
	replay_free(&s);
	free(funcs);
	return err ? 1 : 0;
}
