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
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "elfsym.h"
#include "grow_array.h"
#include "mapped_log.h"
#include "maps_memo.h"
#include "mmap_watch.h"
#include "unwind_maps_priv.h"
#include "uw_index.h"

#define MAX_REREADS 16 /* of one image's maps, for addresses outside them */
#define MAX_WANTED 256 /* requests answered per service call */

/* (the rows' room, and beside it their page indexes': as much as
 * tables of max_rows rows in all take) */
int ftfb_uw_prepare(struct bpf_map *rows, const struct bpf_map *tables,
		    uint32_t max_rows)
{
	return bpf_map__set_max_entries(
		rows,
		max_rows + FTFB_UW_IDX_ROOM(max_rows,
					    bpf_map__max_entries(tables)));
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

/* Fault injection for the tests: the maps of a process whose name is
 * FTFB_FAULT_NO_REREAD's are never read again once its entry is written
 * (as when it exits before the loader gets to them:
 * test_dlopen_exits.py). */
static bool no_rereads(uint32_t tgid)
{
	const char *name = getenv("FTFB_FAULT_NO_REREAD");
	char path[64], comm[32] = "";
	FILE *f;

	if (!name)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, name);
}

static void close_fds(struct ftfb_uw_loader *u)
{
	int fds[] = {u->rows_fd,   u->tables_fd, u->procs_fd,
		     u->wanted_fd, u->stats_fd,	 u->files_fd};

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

	u->files_fd = m->files ? fcntl(bpf_map__fd(m->files), F_DUPFD_CLOEXEC, 0)
			       : -1;

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
	ftfb_uwl_watch_mmaps(u);
	*out = u;
	return 0;
}

/* ftfb_uw_stats's counters: the uint64_t fields before skipped */
#define STATS_WORDS (offsetof(struct ftfb_uw_stats, skipped) / sizeof(uint64_t))

/* The thread's stats, made readable (every counter is a uint64_t). */
void ftfb_uwl_publish_stats(struct ftfb_uw_loader *u)
{
	const uint64_t *from = (const uint64_t *)&u->st;
	uint64_t *to = (uint64_t *)&u->pub;

	_Static_assert(STATS_WORDS * sizeof(uint64_t) ==
			       offsetof(struct ftfb_uw_stats, skipped),
		       "ftfb_uw_stats holds uint64_t counters only");
	for (size_t i = 0; i < STATS_WORDS; i++)
		__atomic_store_n(&to[i], from[i], __ATOMIC_RELAXED);
}

/* The thread that answers the walker's requests every SERVE_MS, apart
 * from the run loop (which may be busy for a while writing samples and
 * reading symbols: a new process would wait that long for its tables). */
#define SERVE_MS 5
/* How long the stop waits for the thread to see it: a table build that
 * does not look at the flag may run for minutes (crafted CFI), an open
 * may never return; the trace is not held for it. */
#define STOP_WAIT_MS 1000

/* Sets thread tid's nice to u's, if both are known. */
static void apply_nice(struct ftfb_uw_loader *u)
{
	int tid = __atomic_load_n(&u->tid, __ATOMIC_SEQ_CST);

	if (tid && __atomic_load_n(&u->nice_set, __ATOMIC_SEQ_CST))
		setpriority(PRIO_PROCESS, (id_t)tid, u->nice);
}

void ftfb_uw_set_nice(struct ftfb_uw_loader *u, int nice)
{
	u->nice = nice;
	__atomic_store_n(&u->nice_set, true, __ATOMIC_SEQ_CST);
	apply_nice(u);
}

static void *serve(void *arg)
{
	struct ftfb_uw_loader *u = arg;
	struct timespec nap = {0, SERVE_MS * 1000000L};

	__atomic_store_n(&u->tid, (int)gettid(), __ATOMIC_SEQ_CST);
	apply_nice(u);
	while (!ftfb_uwl_stopping(u)) {
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
	uint64_t end = ftfb_uwl_mono_ns() + budget_ns;

	while (!__atomic_load_n(&u->settled, __ATOMIC_ACQUIRE) &&
	       ftfb_uwl_mono_ns() < end)
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
	ftfb_uw_cache_close(u->cache);
	ftfb_mmap_watch_free(u->mmaps);
	ftfb_mapped_watching(false);
	ftfb_idtab_free(&u->by_file);
	ftfb_idtab_free(&u->rereads);
	for (size_t i = 0; i < u->npend; i++) {
		free(u->pend[i].path);
		free(u->pend[i].waiters);
	}
	free(u->pend);
	free(u->bins);
	free(u);
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
		b = ftfb_uwl_vdso_binary(u);
	} else if (name[0] == '/') {
		uint64_t dv = ((uint64_t)maj << 32) | min;

		b = ftfb_uwl_binary_built(u, dv, ino);
		/* not built, or being built (a request answered from
		 * inside its build): stop there ("not loaded yet") until
		 * it is */
		if (!b || b->table == FTFB_UW_TABLE_PENDING) {
			m->table = ftfb_uwl_queue_build(u, name, dv, ino, tgid,
							start, end)
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
		err = ftfb_uwl_queue_build(u, line + at,
					   ((uint64_t)maj << 32) | min, ino, 0,
					   start, end)
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
	struct ftfb_memo_read memo;
	char path[64], line[4400];
	FILE *f;
	int err = 0;

	if (!p)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	ftfb_memo_read_begin(&memo, tgid);
	f = fopen(path, "re");
	if (!f) {
		free(p);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (p->n < FTFB_UW_MAX_MAPS &&
		    map_of_line(u, tgid, line, &p->m[p->n]))
			p->n++;
		/* (for the symbolizer, when the process is gone) */
		ftfb_memo_read_line(&memo, line);
	}
	fclose(f);
	ftfb_memo_read_end(&memo);
	if (ftfb_idtab_get(&u->rereads, tgid) > MAX_REREADS)
		p->flags = FTFB_UW_PROC_FINAL; /* (answer reads it no more) */
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
	if (n > MAX_REREADS || (loaded && no_rereads(tgid)))
		return;
	ftfb_idtab_put(&u->rereads, tgid, n + 1);
	load_process(u, tgid);
}

void ftfb_uwl_mapped_since(struct ftfb_uw_loader *u, uint32_t tgid)
{
	/* (its entry FINAL: the walker would stop at the new library's
	 * addresses, "address in no mapping", and send no copy to walk
	 * with the mapping the kernel recorded; ar, dlopening its plugin
	 * for each archive, spent its 16 rereads) */
	if (ftfb_idtab_get(&u->rereads, tgid) <= MAX_REREADS)
		return;
	ftfb_idtab_put(&u->rereads, tgid, 1);
	load_process(u, tgid);
}

/* Answers the requests waiting in uw_wanted. */
void ftfb_uwl_answer_wanted(struct ftfb_uw_loader *u)
{
	uint32_t keys[MAX_WANTED], key, n = 0;
	uint64_t pc;
	void *prev = NULL;

	while (n < MAX_WANTED && !ftfb_uwl_stopping(u) &&
	       !bpf_map_get_next_key(u->wanted_fd, prev, &key)) {
		keys[n] = key;
		prev = &keys[n++];
	}
	for (uint32_t i = 0; i < n && !ftfb_uwl_stopping(u); i++) {
		if (bpf_map_lookup_elem(u->wanted_fd, &keys[i], &pc))
			pc = 0;
		bpf_map_delete_elem(u->wanted_fd, &keys[i]);
		answer(u, keys[i], pc);
	}
}

/* How long builds go on before the processes that waited for them get
 * their entries rewritten: each rewrite reads the process's maps and
 * writes an 8 KiB entry, and rewriting every waiter after every binary
 * (hundreds of processes under -a, each new one waiting) took longer
 * than the builds themselves. */
#define BATCH_NS 20000000ull

/* Moves p's waiters, not yet in seen, to *w; false when out of memory
 * (those left out are rewritten when the next binary they wait for is
 * built, or asked for again). */
static bool take_waiters(struct pending *p, struct ftfb_idtab *seen,
			 uint32_t **w, size_t *nw, size_t *cap)
{
	for (size_t i = 0; i < p->nwaiters; i++) {
		if (ftfb_idtab_get(seen, p->waiters[i]))
			continue;
		if (ftfb_grow_array((void **)w, cap, *nw + 1, sizeof(**w)) ||
		    ftfb_idtab_put(seen, p->waiters[i], 1))
			return false;
		(*w)[(*nw)++] = p->waiters[i];
	}
	return true;
}

/* Loads the binaries waited for from the cache, then builds the oldest
 * ones the cache did not have, for up to BATCH_NS in all, then
 * rewrites the entries of the processes that waited for them (once
 * each; they may wait for others still). */
static void build_some(struct ftfb_uw_loader *u)
{
	uint64_t until = ftfb_uwl_mono_ns() + BATCH_NS;
	struct ftfb_idtab seen = {0};
	uint32_t *w = NULL;
	size_t nw = 0, cap = 0;

	do {
		size_t i = 0;
		struct pending p;

		while (i < u->npend && u->pend[i].cache_tried)
			i++;
		if (i < u->npend) { /* the cache first (see load_cached) */
			u->pend[i].cache_tried = true;
			if (!ftfb_uwl_load_cached(u, &u->pend[i]))
				continue;
		} else {
			i = 0;
		}
		p = u->pend[i];
		memmove(u->pend + i, u->pend + i + 1,
			(--u->npend - i) * sizeof(*u->pend));
		/* (loaded from the cache: returns at once) */
		ftfb_uwl_build_binary(u, &p);
		take_waiters(&p, &seen, &w, &nw, &cap);
		free(p.path);
		free(p.waiters);
	} while (u->npend && !ftfb_uwl_stopping(u) &&
		 ftfb_uwl_mono_ns() < until);
	for (size_t i = 0; i < nw && !ftfb_uwl_stopping(u); i++)
		load_process(u, w[i]); /* (notes them again) */
	ftfb_idtab_free(&seen);
	free(w);
}

/* Requests first (a new process gets the tables built so far at once),
 * then the builds they need, one binary at a time with the requests
 * looked at again in between: a process mapping 30 libraries is walked
 * through those that are ready, the others stop "not loaded yet". */
void ftfb_uw_service(struct ftfb_uw_loader *u)
{
	ftfb_uwl_answer_wanted(u);
	ftfb_uwl_take_mmaps(u);
	ftfb_uwl_publish_stats(u);
	while (u->npend && !ftfb_uwl_stopping(u)) {
		build_some(u);
		ftfb_uwl_answer_wanted(u);
		ftfb_uwl_take_mmaps(u);
		ftfb_uwl_publish_stats(u);
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
	st->cache_msg[0] = '\0';
	if (__atomic_load_n(&u->cache_msg_set, __ATOMIC_ACQUIRE))
		memcpy(st->cache_msg, u->cache_msg, sizeof(st->cache_msg));
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
		else if (k == FTFB_UW_STAT_KSTACK_FOUND)
			st->kstacks_found = sum;
		else if (k == FTFB_UW_STAT_KSTACK_UNWOUND)
			st->kstacks_unwound = sum;
		else if (k == FTFB_UW_STAT_USTACK_FOUND)
			st->ustacks_found = sum;
		else if (k == FTFB_UW_STAT_USTACK_WALKED)
			st->ustacks_walked = sum;
		else if (k == FTFB_UW_STAT_TAIL_FOUND)
			st->tails_found = sum;
		else if (k == FTFB_UW_STAT_TAIL_REFUSED)
			st->tails_refused = sum;
	}
	free(v);
}
