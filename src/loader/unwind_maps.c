// SPDX-License-Identifier: MIT
/*
 * unwind_maps.c - the BPF stack walker's tables, loaded per process (see
 * unwind_maps.h).
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "elfsym.h"
#include "go_topframe.h"
#include "grow_array.h"
#include "idtab.h"
#include "proc_file.h"
#include "unwind_maps.h"
#include "unwind_skips.h"
#include "unwind_table.h"

#define MAX_REREADS 16 /* of one image's maps, for addresses outside them */
#define MAX_WANTED 256 /* requests answered per service call */

/* A binary whose table is loaded (or could not be). */
struct binary {
	uint32_t table; /* index in uw_tables, or FTFB_UW_TABLE_NONE etc. */
	uint64_t base;	/* the virtual address of its rows' pc 0 */
	struct ftfb_uw_seg segs[FTFB_UW_MAX_SEGS];
	size_t nsegs;
	uint64_t go_mstart; /* no CFI: 1 + runtime.mstart's file offset */
};

/* A binary to build, and a process waiting for it. */
struct pending {
	uint64_t dev, ino;
	char *path;	     /* as /proc/PID/maps names it */
	uint32_t tgid;	     /* the first process that mapped it */
	uint64_t start, end; /* there */
};

struct ftfb_uw_loader {
	int rows_fd, tables_fd, procs_fd, wanted_fd, stats_fd;
	struct ftfb_uw_row *rows; /* mmap of uw_rows */
	uint32_t max_rows, next_row, max_tables, next_table;
	struct ftfb_idtab by_file; /* hash of (dev, ino) -> binary + 1 */
	struct binary *bins;
	size_t nbins, bins_cap;
	struct binary vdso;
	bool vdso_tried;
	struct ftfb_idtab rereads; /* tgid -> rereads + 1 of its image */
	struct pending *pend;	   /* binaries mapped, not built yet */
	size_t npend, pend_cap;
	uint32_t *waiting; /* processes whose entries name them */
	size_t nwaiting, waiting_cap;
	struct ftfb_uw_stats st; /* the thread's own */
	/* st as of the thread's last step, for the stats readers: copied
	 * and read field by field, atomically, never under a lock the
	 * thread holds while it opens a file or builds a table (either can
	 * take minutes, or forever: a FIFO over a mapped library) */
	struct ftfb_uw_stats pub;
	int ncpus;
	pthread_t thread;
	bool running;
	/* a stop the thread did not see in time: it may still be in a
	 * build, so what it uses is never freed (the process exits) */
	bool abandoned;
	bool settled; /* the thread answered the requests and built all */
	unsigned slow_build_s; /* FTFB_FAULT_SLOW_UW_BUILD_S (tests) */
	uint32_t row_budget;   /* a build's rows (unwind_skips.h) */
	/* the first binaries over budget, each written before nskips
	 * counts it (released: the stats readers read them meanwhile) */
	struct ftfb_uw_skip skips[FTFB_UW_SKIPS_SHOWN];
	uint32_t nskips;
	/* set by ftfb_uw_stop, read by the thread between steps and by the
	 * table builder (the flag its cancel argument takes) */
	volatile bool stop;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ftfb_uw_prepare(struct bpf_map *rows, uint32_t max_rows)
{
	return bpf_map__set_max_entries(rows, max_rows);
}

/*
 * Fault injection for the tests: FTFB_FAULT_SLOW_UW_BUILD_S=N makes
 * every table build take N seconds more, deaf to the stop as a build of
 * crafted CFI by a builder that does not look at the flag would be (issue
 * 32: minutes). The fault suite checks with it that a stop never waits
 * for a build.
 */
static unsigned injected_build_s(void)
{
	const char *s = getenv("FTFB_FAULT_SLOW_UW_BUILD_S");

	return s ? (unsigned)strtoul(s, NULL, 10) : 0;
}

static void injected_delay(const struct ftfb_uw_loader *u)
{
	unsigned left = u->slow_build_s;

	while (left)
		left = sleep(left);
}

static void close_fds(struct ftfb_uw_loader *u)
{
	int fds[] = {u->rows_fd, u->tables_fd, u->procs_fd, u->wanted_fd,
		     u->stats_fd};

	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Copies of the maps' fds: a thread that outlives the BPF object (the
 * stop's bound passed, see ftfb_uw_stop) writes to these, never to a
 * number the object's close may have given to another file. */
static int dup_fds(struct ftfb_uw_loader *u, const struct ftfb_uw_bpf_maps *m)
{
	const struct bpf_map *maps[] = {m->rows, m->tables, m->procs, m->wanted,
					m->stats};
	int *fds[] = {&u->rows_fd, &u->tables_fd, &u->procs_fd, &u->wanted_fd,
		      &u->stats_fd};
	int err = 0;

	for (size_t i = 0; i < sizeof(fds) / sizeof(*fds); i++) {
		*fds[i] = fcntl(bpf_map__fd(maps[i]), F_DUPFD_CLOEXEC, 0);
		if (*fds[i] < 0 && !err)
			err = -errno;
	}
	return err;
}

int ftfb_uw_loader_new(struct ftfb_uw_loader **out,
		       const struct ftfb_uw_bpf_maps *m, char *err,
		       size_t errlen)
{
	struct ftfb_uw_loader *u = calloc(1, sizeof(*u));
	size_t len;
	int e;

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->max_rows = bpf_map__max_entries(m->rows);
	u->max_tables = bpf_map__max_entries(m->tables);
	u->ncpus = libbpf_num_possible_cpus();
	len = (size_t)u->max_rows * sizeof(*u->rows);
	e = dup_fds(u, m);
	if (e) {
		ftfb_seterr(err, errlen,
			    "copying the unwind maps' fds failed: %s",
			    strerror(-e));
		close_fds(u);
		free(u);
		return e;
	}
	u->rows = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       u->rows_fd, 0);
	if (u->rows == MAP_FAILED || u->ncpus <= 0) {
		e = u->ncpus <= 0 ? u->ncpus : -errno;
		ftfb_seterr(
			err, errlen,
			"mapping the unwind table array (%zu bytes) failed: %s",
			len, strerror(-e));
		close_fds(u);
		free(u);
		return e;
	}
	u->st.max_rows = u->max_rows;
	u->pub = u->st;
	u->slow_build_s = injected_build_s();
	u->row_budget = ftfb_uw_row_budget();
	*out = u;
	return 0;
}

/* ftfb_uw_stats's counters: the uint64_t fields before skipped */
#define STATS_WORDS (offsetof(struct ftfb_uw_stats, skipped) / sizeof(uint64_t))

/* The thread's stats, made readable (every counter is a uint64_t). */
static void publish_stats(struct ftfb_uw_loader *u)
{
	const uint64_t *from = (const uint64_t *)&u->st;
	uint64_t *to = (uint64_t *)&u->pub;

	_Static_assert(STATS_WORDS * sizeof(uint64_t) ==
			       offsetof(struct ftfb_uw_stats, skipped),
		       "ftfb_uw_stats holds uint64_t counters only");
	for (size_t i = 0; i < STATS_WORDS; i++)
		__atomic_store_n(&to[i], from[i], __ATOMIC_RELAXED);
}

static bool stopping(const struct ftfb_uw_loader *u)
{
	return __atomic_load_n(&u->stop, __ATOMIC_ACQUIRE);
}

/* the table builder's cancel test: a stop ends a build under way */
static bool build_cancelled(void *u)
{
	return stopping(u);
}

/* The thread that answers the walker's requests every SERVE_MS, apart
 * from the run loop (which may be busy for a while writing samples and
 * reading symbols: a new process would wait that long for its tables). */
#define SERVE_MS 5
/* How long the stop waits for the thread to see it: a table build that
 * does not look at the flag may run for minutes (crafted CFI), an open
 * may never return; the trace is not held for it. */
#define STOP_WAIT_MS 1000

static void *serve(void *arg)
{
	struct ftfb_uw_loader *u = arg;
	struct timespec nap = {0, SERVE_MS * 1000000L};

	while (!stopping(u)) {
		ftfb_uw_service(u);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int ftfb_uw_start(struct ftfb_uw_loader *u)
{
	sigset_t all, was;
	int err;

	/* born with every signal blocked: a stop signal reaches the run
	 * loop's thread, whose sleeps and reads it interrupts, never this
	 * one (it would wait, unseen, behind a build) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	err = pthread_create(&u->thread, NULL, serve, u);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	u->running = !err;
	return -err;
}

bool ftfb_uw_wait_settled(struct ftfb_uw_loader *u, uint64_t budget_ns)
{
	struct timespec nap = {0, SERVE_MS * 1000000L};
	uint64_t end = mono_ns() + budget_ns;

	while (!__atomic_load_n(&u->settled, __ATOMIC_ACQUIRE) &&
	       mono_ns() < end)
		if (nanosleep(&nap, NULL) && errno == EINTR)
			break; /* a signal: the caller looks at it */
	return __atomic_load_n(&u->settled, __ATOMIC_ACQUIRE);
}

void ftfb_uw_stop(struct ftfb_uw_loader *u)
{
	struct timespec until;

	if (!u || !u->running)
		return;
	__atomic_store_n(&u->stop, true, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += STOP_WAIT_MS / 1000;
	until.tv_nsec += (STOP_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	if (pthread_timedjoin_np(u->thread, NULL, &until)) {
		/* left to end by itself, or with the process */
		u->abandoned = true;
		pthread_detach(u->thread);
	}
	u->running = false;
}

void ftfb_uw_loader_free(struct ftfb_uw_loader *u)
{
	if (!u)
		return;
	ftfb_uw_stop(u);
	if (u->abandoned)
		return; /* the thread may still use all of it */
	munmap(u->rows, (size_t)u->max_rows * sizeof(*u->rows));
	close_fds(u);
	ftfb_idtab_free(&u->by_file);
	ftfb_idtab_free(&u->rereads);
	for (size_t i = 0; i < u->npend; i++)
		free(u->pend[i].path);
	free(u->pend);
	free(u->waiting);
	free(u->bins);
	free(u);
}

/* ---- tables of binaries --------------------------------------------- */

/* Copies t's rows into the shared array and gives them a table index;
 * b->table stays NONE when there is no room. */
static void install_table(struct ftfb_uw_loader *u,
			  const struct ftfb_uw_table_built *t, struct binary *b)
{
	struct ftfb_uw_table ent;
	uint32_t id = u->next_table;

	b->table = FTFB_UW_TABLE_NONE;
	b->base = t->base;
	memcpy(b->segs, t->segs, sizeof(b->segs));
	b->nsegs = t->nsegs;
	if (t->n > u->max_rows - u->next_row || id >= u->max_tables) {
		u->st.table_space_full++;
		return;
	}
	memcpy(u->rows + u->next_row, t->rows, t->n * sizeof(*t->rows));
	ent.first = u->next_row;
	ent.n = (uint32_t)t->n;
	if (bpf_map_update_elem(u->tables_fd, &id, &ent, BPF_ANY))
		return;
	u->next_row += (uint32_t)t->n;
	u->next_table++;
	b->table = id;
	u->st.binaries++;
	u->st.rows = u->next_row;
}

static uint64_t file_key(uint64_t dev, uint64_t ino)
{
	return ftfb_mix64(dev ^ ftfb_mix64(ino));
}

/* The binary of file (dev, ino) if its table was built, else NULL. */
static struct binary *binary_built(struct ftfb_uw_loader *u, uint64_t dev,
				   uint64_t ino)
{
	uint32_t i = ftfb_idtab_get(&u->by_file, file_key(dev, ino));

	return i ? &u->bins[i - 1] : NULL;
}

/* A binary with no CFI walked by frame pointer: if it is Go's, 1 + the
 * file offset of runtime.mstart, where its threads' stacks end (fd: the
 * file as the process maps it, see build_binary). */
static uint64_t go_mstart(int fd, const char *path)
{
	uint64_t off;

	if (fd < 0 || lseek(fd, 0, SEEK_SET))
		return 0;
	return ftfb_go_mstart_offset(fd, path, &off) ? 0 : off + 1;
}

/* A build over its budget of rows or time (o): the binary's stacks stop
 * at it, saying so, and the summary names it (the first few). */
static void refused(struct ftfb_uw_loader *u, struct binary *b,
		    const char *path, int rc,
		    const struct ftfb_uw_build_opts *o, bool no_room)
{
	uint64_t limit = rc == -E2BIG ? o->max_rows : FTFB_UW_MAX_BUILD_NS;

	b->table = FTFB_UW_TABLE_OVER_BUDGET;
	u->st.over_budget++;
	if (rc == -E2BIG && no_room)
		u->st.table_space_full++;
	if (u->nskips >= FTFB_UW_SKIPS_SHOWN)
		return;
	ftfb_uw_skip_fill(&u->skips[u->nskips], path, rc, limit, no_room);
	__atomic_store_n(&u->nskips, u->nskips + 1, __ATOMIC_RELEASE);
}

/* Builds the table of the file p names (dev, ino), once: opened as
 * the process that mapped it maps it (proc_file.h), never by a path its
 * user may have replaced. */
static struct binary *build_binary(struct ftfb_uw_loader *u,
				   const struct pending *p)
{
	struct ftfb_maps_line l = {
		.start = p->start,
		.end = p->end,
		.dev = p->dev,
		.ino = p->ino,
		.name = p->path,
	};
	uint64_t dev = p->dev, ino = p->ino;
	struct binary *b = binary_built(u, dev, ino);
	/* no more rows than are left: a table that could not be
	 * installed is not built */
	uint32_t room = u->max_rows - u->next_row;
	struct ftfb_uw_build_opts opts = {
		.cancelled = build_cancelled,
		.arg = u,
		.max_rows = room < u->row_budget ? (room ? room : 1)
						 : u->row_budget,
	};
	struct ftfb_uw_table_built t;
	uint64_t t0 = mono_ns();
	char err[256];
	int fd, rc = -ENOENT;

	if (b)
		return b;
	if (ftfb_grow_array((void **)&u->bins, &u->bins_cap, u->nbins + 1,
			    sizeof(*u->bins)) ||
	    ftfb_idtab_put(&u->by_file, file_key(dev, ino),
			   (uint32_t)u->nbins + 1))
		return NULL;
	b = &u->bins[u->nbins++];
	memset(b, 0, sizeof(*b));
	b->table = FTFB_UW_TABLE_NONE;
	injected_delay(u);
	fd = ftfb_proc_file_open(p->tgid, &l);
	if (fd >= 0)
		rc = ftfb_uw_table_from_fd(fd, p->path, &opts, &t, err,
					   sizeof(err));
	if (rc == -E2BIG || rc == -ETIMEDOUT) {
		refused(u, b, p->path, rc, &opts, room < u->row_budget);
	} else if (rc) {
		u->st.no_cfi_files++;
		b->go_mstart = go_mstart(fd, p->path);
	} else {
		install_table(u, &t, b);
		ftfb_uw_table_free(&t);
	}
	if (fd >= 0)
		close(fd);
	u->st.build_ns += mono_ns() - t0;
	return b;
}

/* Queues the build of (dev, ino) and notes that tgid waits for it:
 * false when out of memory. */
static bool queue_build(struct ftfb_uw_loader *u, const char *path,
			uint64_t dev, uint64_t ino, uint32_t tgid,
			uint64_t start, uint64_t end)
{
	bool queued = false, noted = false;

	for (size_t i = 0; i < u->npend && !queued; i++)
		queued = u->pend[i].dev == dev && u->pend[i].ino == ino;
	for (size_t i = 0; i < u->nwaiting && !noted; i++)
		noted = u->waiting[i] == tgid;
	noted |= !tgid; /* a build ahead of need: nobody waits */
	if (!noted) {
		if (ftfb_grow_array((void **)&u->waiting, &u->waiting_cap,
				    u->nwaiting + 1, sizeof(*u->waiting)))
			return false;
		u->waiting[u->nwaiting++] = tgid;
	}
	if (queued)
		return true;
	if (ftfb_grow_array((void **)&u->pend, &u->pend_cap, u->npend + 1,
			    sizeof(*u->pend)))
		return false;
	u->pend[u->npend].dev = dev;
	u->pend[u->npend].ino = ino;
	u->pend[u->npend].tgid = tgid;
	u->pend[u->npend].start = start;
	u->pend[u->npend].end = end;
	if (!(u->pend[u->npend].path = strdup(path)))
		return false;
	u->npend++;
	return true;
}

static struct binary *vdso_binary(struct ftfb_uw_loader *u)
{
	struct ftfb_uw_table_built t;
	char err[256];

	if (u->vdso_tried)
		return &u->vdso;
	u->vdso_tried = true;
	u->vdso.table = FTFB_UW_TABLE_NONE;
	if (!ftfb_uw_table_from_vdso(&t, err, sizeof(err))) {
		install_table(u, &t, &u->vdso);
		ftfb_uw_table_free(&t);
	}
	return &u->vdso;
}

/* ---- processes ------------------------------------------------------- */

/* One executable mapping of /proc/PID/maps into m: false to skip it
 * (not executable, [vsyscall]). */
static bool map_of_line(struct ftfb_uw_loader *u, uint32_t tgid, char *line,
			struct ftfb_uw_map *m)
{
	uint64_t start, end, pgoff;
	unsigned maj, min;
	unsigned long long ino;
	char perms[8];
	uint64_t bias;
	int at = 0;

	bias = 0;
	const char *name;
	struct binary *b = NULL;
	struct ftfb_uw_table_built segs = {0};

	if (sscanf(line,
		   "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %llu %n",
		   &start, &end, perms, &pgoff, &maj, &min, &ino, &at) < 7 ||
	    perms[2] != 'x')
		return false;
	line[strcspn(line, "\n")] = '\0';
	name = line + at;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->table = FTFB_UW_TABLE_FP; /* anonymous: JIT code */
	if (!strcmp(name, "[vsyscall]"))
		return false;
	if (!strcmp(name, "[uprobes]")) {
		m->table = FTFB_UW_TABLE_UPROBES;
		return true;
	}
	if (!strcmp(name, "[vdso]")) {
		b = vdso_binary(u);
	} else if (name[0] == '/') {
		uint64_t dv = ((uint64_t)maj << 32) | min;

		b = binary_built(u, dv, ino);
		if (!b) { /* stop there ("not loaded yet") until it is */
			m->table =
				queue_build(u, name, dv, ino, tgid, start, end)
					? FTFB_UW_TABLE_PENDING
					: FTFB_UW_TABLE_NONE;
			return true;
		}
	}
	if (!b)
		return name[0] != '/';
	m->table = b->table;
	if (b->go_mstart > pgoff && b->go_mstart - 1 - pgoff < end - start)
		m->go_top = (uint32_t)(b->go_mstart - pgoff);
	memcpy(segs.segs, b->segs, sizeof(segs.segs));
	segs.nsegs = b->nsegs;
	if (b->table != FTFB_UW_TABLE_NONE &&
	    b->table != FTFB_UW_TABLE_OVER_BUDGET &&
	    ftfb_uw_table_bias(&segs, start, pgoff, &bias))
		m->table = FTFB_UW_TABLE_NONE; /* not a code segment */
	m->bias = bias + b->base;	       /* rows are at vaddr - base */
	return true;
}

int ftfb_uw_prebuild_libc(struct ftfb_uw_loader *u)
{
	char line[4400];
	FILE *f = fopen("/proc/self/maps", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		unsigned maj, min;
		unsigned long long ino;
		char perms[8];
		int at = 0;

		if (sscanf(line,
			   "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %x:%x %llu %n",
			   &start, &end, perms, &pgoff, &maj, &min, &ino,
			   &at) < 7 ||
		    perms[2] != 'x' || !strstr(line + at, "/libc.so"))
			continue;
		line[strcspn(line, "\n")] = '\0';
		err = queue_build(u, line + at, ((uint64_t)maj << 32) | min,
				  ino, 0, start, end)
			      ? 0
			      : -ENOMEM;
	}
	fclose(f);
	return err;
}

/* Loads (or reloads) the entry of process tgid; 0 or -errno (the
 * process is gone: -ENOENT). */
static int load_process(struct ftfb_uw_loader *u, uint32_t tgid)
{
	struct ftfb_uw_proc *p = calloc(1, sizeof(*p));
	char path[64], line[4400];
	FILE *f;
	int err = 0;

	if (!p)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f) {
		free(p);
		return -errno;
	}
	while (fgets(line, sizeof(line), f) && p->n < FTFB_UW_MAX_MAPS)
		if (map_of_line(u, tgid, line, &p->m[p->n]))
			p->n++;
	fclose(f);
	/* an exec'd or exited process is not given a table it has no
	 * more: the walker drops its entry in the kernel at exec and
	 * exit, before which it is still right */
	if (bpf_map_update_elem(u->procs_fd, &tgid, p, BPF_ANY))
		err = -errno;
	else
		u->st.processes++;
	free(p);
	return err;
}

/* Answers one request: a process the walker has no entry for (new, or
 * exec'd: its count of rereads starts again) or an address outside its
 * mappings (reread a bounded number of times). */
/* The binary queued for pc of tgid goes first: true if there is one
 * (the walker stopped at a binary whose table is on its way). */
static bool hurry(struct ftfb_uw_loader *u, uint32_t tgid, uint64_t pc)
{
	for (size_t i = 0; i < u->npend; i++) {
		struct pending p = u->pend[i];

		if (p.tgid != tgid || pc < p.start || pc >= p.end)
			continue;
		memmove(u->pend + 1, u->pend, i * sizeof(*u->pend));
		u->pend[0] = p;
		return true;
	}
	return false;
}

static void answer(struct ftfb_uw_loader *u, uint32_t tgid, uint64_t pc)
{
	struct ftfb_uw_proc *have;
	bool loaded;
	uint32_t n;

	if (pc && hurry(u, tgid, pc))
		return;
	have = malloc(sizeof(*have));
	loaded = have && !bpf_map_lookup_elem(u->procs_fd, &tgid, have);
	n = loaded ? ftfb_idtab_get(&u->rereads, tgid) : 0;
	free(have);
	if (n > MAX_REREADS)
		return;
	ftfb_idtab_put(&u->rereads, tgid, n + 1);
	load_process(u, tgid);
}

/* Answers the requests waiting in uw_wanted. */
static void answer_wanted(struct ftfb_uw_loader *u)
{
	uint32_t keys[MAX_WANTED], key, n = 0;
	uint64_t pc;
	void *prev = NULL;

	while (n < MAX_WANTED && !stopping(u) &&
	       !bpf_map_get_next_key(u->wanted_fd, prev, &key)) {
		keys[n] = key;
		prev = &keys[n++];
	}
	for (uint32_t i = 0; i < n && !stopping(u); i++) {
		if (bpf_map_lookup_elem(u->wanted_fd, &keys[i], &pc))
			pc = 0;
		bpf_map_delete_elem(u->wanted_fd, &keys[i]);
		answer(u, keys[i], pc);
	}
}

/* Builds the oldest binary waited for, then rewrites the entries of the
 * processes that waited (they may wait for others still). */
static void build_one(struct ftfb_uw_loader *u)
{
	struct pending p = u->pend[0];
	uint32_t *w = u->waiting;
	size_t nw = u->nwaiting;

	memmove(u->pend, u->pend + 1, --u->npend * sizeof(*u->pend));
	build_binary(u, &p);
	free(p.path);
	u->waiting = NULL;
	u->nwaiting = u->waiting_cap = 0;
	for (size_t i = 0; i < nw && !stopping(u); i++)
		load_process(u, w[i]); /* (notes them again) */
	free(w);
}

/* Requests first (a new process gets the tables built so far at once),
 * then the builds they need, one binary at a time with the requests
 * looked at again in between: a process mapping 30 libraries is walked
 * through those that are ready, the others stop "not loaded yet". */
void ftfb_uw_service(struct ftfb_uw_loader *u)
{
	answer_wanted(u);
	publish_stats(u);
	while (u->npend && !stopping(u)) {
		build_one(u);
		answer_wanted(u);
		publish_stats(u);
	}
	if (!u->npend)
		__atomic_store_n(&u->settled, true, __ATOMIC_RELEASE);
}

int ftfb_uw_want_process(struct ftfb_uw_loader *u, uint32_t tgid)
{
	uint64_t pc = 0; /* (no address: the process itself) */

	return bpf_map_update_elem(u->wanted_fd, &tgid, &pc, BPF_ANY) ? -errno
								      : 0;
}

void ftfb_uw_get_stats(struct ftfb_uw_loader *u, struct ftfb_uw_stats *st)
{
	const uint64_t *from = (const uint64_t *)&u->pub;
	uint64_t *to = (uint64_t *)st;
	uint64_t *v = calloc((size_t)u->ncpus, sizeof(*v));
	uint32_t nskips = __atomic_load_n(&u->nskips, __ATOMIC_ACQUIRE);

	for (size_t i = 0; i < STATS_WORDS; i++)
		to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
	st->left_busy = u->abandoned;
	memset(st->skipped, 0, sizeof(st->skipped));
	memcpy(st->skipped, u->skips, nskips * sizeof(*u->skips));
	for (uint32_t k = 0; v && k < FTFB_UW_NSTATS; k++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(u->stats_fd, &k, v))
			continue;
		for (int c = 0; c < u->ncpus; c++)
			sum += v[c];
		if (k < FTFB_UW_NREASONS)
			st->ended[k] = sum;
		else if (k == FTFB_UW_STAT_STACKS)
			st->stacks = sum;
	}
	free(v);
}

void ftfb_uw_print_summary(const struct ftfb_uw_stats *st, FILE *f)
{
	static const char *const why[FTFB_UW_NREASONS] = {
		"complete",
		"tables not loaded yet",
		"address in no mapping",
		"no CFI",
		"unsupported CFI rule",
		"stack not readable",
		"depth limit",
		"bad frame",
		"signal frame",
		"CFI over budget",
	};
	bool first = true;

	if (!st->stacks)
		return;
	fprintf(f,
		"  user stacks: %llu walked:", (unsigned long long)st->stacks);
	for (int i = 0; i < FTFB_UW_NREASONS; i++) {
		if (!st->ended[i])
			continue;
		fprintf(f, "%s %llu %s (%.1f%%)", first ? "" : ",",
			(unsigned long long)st->ended[i],
			i ? why[i] : "complete",
			100.0 * (double)st->ended[i] / (double)st->stacks);
		first = false;
	}
	fprintf(f,
		"\n  unwind tables: %llu binaries, %llu of %llu rows, %llu "
		"process entries written; %.0f ms building",
		(unsigned long long)st->binaries, (unsigned long long)st->rows,
		(unsigned long long)st->max_rows,
		(unsigned long long)st->processes, (double)st->build_ns / 1e6);
	if (st->no_cfi_files)
		fprintf(f, "; %llu files without usable CFI",
			(unsigned long long)st->no_cfi_files);
	if (st->table_space_full)
		fprintf(f, "; %llu binaries left out (table space full)",
			(unsigned long long)st->table_space_full);
	if (st->left_busy)
		fprintf(f, "; the stop did not wait for a build under way");
	fputc('\n', f);
	ftfb_uw_print_skips(st->skipped, st->over_budget, f);
}
