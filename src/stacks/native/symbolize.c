// SPDX-License-Identifier: MIT
/*
 * symbolize.c - addresses to function names (see symbolize.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files_cancel.h"
#include "buildid.h"
#include "debug_file.h"
#include "elfsym.h"
#include "maps_memo.h"
#include "proc_file.h"
#include "perfmap.h"
#include "perfmap_open.h"
#include "symbolize.h"
#include "unwind_table.h"
#include "vdso_file.h"

#define MAX_REREADS 8 /* of one process's maps, for addresses outside them */
/* Looks at a process's perf map for an address it did not name: a JIT
 * keeps adding code while traced, so a fixed few looks would be spent on
 * its first stubs; the map is read again only when it changed, and
 * JIT_BUDGET bounds the bytes read in all. */
#define JIT_REREADS 1000
/* bytes of perf maps read for one pid in all (a map is read again only
 * when its size or mtime changed) */
#define JIT_BUDGET (4 * FTFB_PERFMAP_MAX)

struct ksym {
	uint64_t addr;
	const char *name;
};

/* The functions of one mapped file, by device and inode. */
struct elffile {
	uint64_t dev, ino;
	struct ftfb_symlist syms; /* sorted by file offset */
	uint8_t build_id[FTFB_BUILD_ID_MAX];
	int build_id_len; /* <= 0: none */
};

struct mapping {
	uint64_t start, end, pgoff, dev, ino;
	char *path;
	struct elffile *file; /* NULL until a frame needs it */
	bool file_tried;
};

struct process {
	uint32_t tgid;
	bool loaded; /* maps read since the last forget */
	struct mapping *maps;
	size_t nmaps;
	int rereads;
	struct ftfb_perfmap jit; /* /tmp/perf-PID.map, when it has one */
	int jit_reads;
	bool jit_loaded, jit_told;
	off_t jit_size; /* of the map last read, and its mtime */
	struct timespec jit_mtime;
	uint64_t jit_bytes; /* read in all, for this pid */
};

struct ftfb_symbolizer {
	struct ksym *ksyms;
	size_t nksyms;
	char *knames;
	bool kernel_read;
	struct process *procs;
	size_t nprocs;
	struct elffile **files;
	size_t nfiles;
};

int ftfb_symbolizer_new(struct ftfb_symbolizer **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void free_maps(struct process *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	p->maps = NULL;
	p->nmaps = 0;
}

void ftfb_symbolizer_free(struct ftfb_symbolizer *sy)
{
	if (!sy)
		return;
	for (size_t i = 0; i < sy->nprocs; i++) {
		free_maps(&sy->procs[i]);
		ftfb_perfmap_free(&sy->procs[i].jit);
	}
	free(sy->procs);
	for (size_t i = 0; i < sy->nfiles; i++) {
		ftfb_symlist_free(&sy->files[i]->syms);
		free(sy->files[i]);
	}
	free(sy->files);
	free(sy->ksyms);
	free(sy->knames);
	free(sy);
}

/* ---- kernel --------------------------------------------------------- */

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of /proc/kallsyms, sorted. Names are kept in one
 * buffer (offsets while it grows, pointers at the end). */
static void read_kallsyms(struct ftfb_symbolizer *sy)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	size_t cap = 0, ncap = 0, nlen = 0;
	char line[512];

	sy->kernel_read = true;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];
		uint64_t addr;
		size_t len;

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) !=
			    3 ||
		    !addr || !strchr("tTwW", type))
			continue;
		len = strlen(name) + 1;
		if (sy->nksyms == cap) {
			void *n = realloc(sy->ksyms,
					  (cap = cap ? 2 * cap : 65536) *
						  sizeof(*sy->ksyms));
			if (!n)
				break;
			sy->ksyms = n;
		}
		if (nlen + len > ncap) {
			void *n = realloc(sy->knames,
					  ncap = ncap ? 2 * ncap : 1 << 22);

			if (!n)
				break;
			sy->knames = n;
		}
		memcpy(sy->knames + nlen, name, len);
		sy->ksyms[sy->nksyms].addr = addr;
		sy->ksyms[sy->nksyms].name = (const char *)(uintptr_t)nlen;
		sy->nksyms++;
		nlen += len;
	}
	fclose(f);
	for (size_t i = 0; i < sy->nksyms; i++)
		sy->ksyms[i].name = sy->knames + (uintptr_t)sy->ksyms[i].name;
	qsort(sy->ksyms, sy->nksyms, sizeof(*sy->ksyms), ksym_cmp);
}

static void kernel_frame(struct ftfb_symbolizer *sy, uint64_t ip,
			 struct ftfb_frame_sym *out)
{
	size_t lo = 0, hi;

	if (!sy->kernel_read)
		read_kallsyms(sy);
	out->path = "[kernel.kallsyms]";
	out->rel_pc = ip;
	hi = sy->nksyms;
	while (lo < hi) { /* the last symbol at or below ip */
		size_t mid = lo + (hi - lo) / 2;

		if (sy->ksyms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		out->function = sy->ksyms[lo - 1].name;
}

/* ---- user ----------------------------------------------------------- */

/* A mapping of the memo's as p's, its path taken. */
static struct mapping from_memo(const struct ftfb_memo_map *m)
{
	return (struct mapping){
		.start = m->start,
		.end = m->end,
		.pgoff = m->pgoff,
		.dev = m->dev,
		.ino = m->ino,
		.path = m->path,
	};
}

/* The mappings the unwind loader read of the image being translated
 * (maps_memo.h) as p's (0), when it read a later image too or, with
 * !only_if_later, at all; or -ENOENT. */
static int maps_of_memo(struct process *p, bool only_if_later)
{
	struct ftfb_memo_map *v;
	size_t n;

	if ((only_if_later && !ftfb_maps_memo_later(p->tgid)) ||
	    ftfb_maps_memo_get(p->tgid, &v, &n))
		return -ENOENT;
	free_maps(p);
	if (!(p->maps = calloc(n ? n : 1, sizeof(*p->maps)))) {
		ftfb_memo_maps_free(v, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		p->maps[i] = from_memo(&v[i]);
	p->nmaps = n;
	free(v);
	return 0;
}

/* The memo's mappings of p's image that p's own do not hold (listed
 * as the image ended, after p read them: maps_memo_put_ended) added to
 * them; 0, or -ENOENT when there were none. */
static int add_memo_maps(struct process *p)
{
	struct ftfb_memo_map *v;
	struct mapping *more;
	size_t n, added = 0;

	if (ftfb_maps_memo_get(p->tgid, &v, &n))
		return -ENOENT;
	more = realloc(p->maps, (p->nmaps + n + 1) * sizeof(*p->maps));
	if (more)
		p->maps = more;
	for (size_t i = 0; i < n; i++) {
		bool held = !more;

		for (size_t j = 0; j < p->nmaps && !held; j++)
			held = v[i].start < p->maps[j].end &&
			       p->maps[j].start < v[i].end;
		if (held) {
			free(v[i].path);
			continue;
		}
		p->maps[p->nmaps++] = from_memo(&v[i]);
		added++;
	}
	free(v);
	return added ? 0 : -ENOENT;
}

/* A process gone (err: why its maps did not open): those the unwind
 * loader read while it lived, or, when it had maps read, those of the
 * memo's it lacks; err, or 0. */
static int maps_of_gone(struct process *p, int err)
{
	if (err != -ENOENT && err != -ESRCH)
		return err;
	if (p->nmaps)
		return add_memo_maps(p) ? err : 0;
	return maps_of_memo(p, false) ? err : 0;
}

/* Whether p's maps, read from /proc, are of a later image than the one
 * the memo says the translator is in: the process exec'd another
 * program before the loader read it again (a shell's child, read at its
 * first sample: by then an `as`). */
static bool maps_of_a_later_image(const struct process *p)
{
	const struct mapping *low = NULL;

	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].path[0] == '/' &&
		    (!low || p->maps[i].start < low->start))
			low = &p->maps[i];
	return low && ftfb_maps_memo_other_program(p->tgid, low->start,
						   low->dev, low->ino);
}

/* The process's executable mappings, again (0), or -errno and the ones
 * it had. */
static int read_maps(struct process *p)
{
	char path[64], line[4096];
	size_t cap = 0;
	FILE *f;

	/* exec'd since the sample's image: /proc shows the later one */
	if (!maps_of_memo(p, true))
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/maps", p->tgid);
	/* a process gone keeps the maps it had (a flight-recorder snapshot
	 * is written after the command exited, from maps read before) */
	f = fopen(path, "re");
	if (!f)
		return maps_of_gone(p, -errno);
	free_maps(p);
	while (fgets(line, sizeof(line), f)) {
		struct ftfb_maps_line l;
		struct mapping *m;

		if (!ftfb_maps_line_parse(line, &l) || l.perms[2] != 'x' ||
		    (l.name[0] != '/' && strcmp(l.name, "[vdso]") &&
		     strcmp(l.name, "[uprobes]")))
			continue;
		if (p->nmaps == cap) {
			void *n = realloc(p->maps, (cap = cap ? 2 * cap : 32) *
							   sizeof(*p->maps));
			if (!n)
				break;
			p->maps = n;
		}
		m = &p->maps[p->nmaps];
		memset(m, 0, sizeof(*m));
		m->start = l.start;
		m->end = l.end;
		m->pgoff = l.pgoff;
		m->dev = l.dev;
		m->ino = l.ino;
		if (!(m->path = strdup(l.name)))
			break;
		p->nmaps++;
	}
	fclose(f);
	if (maps_of_a_later_image(p) && !maps_of_memo(p, false))
		return 0;
	/* (a zombie's maps are empty) */
	return p->nmaps ? 0 : maps_of_gone(p, -ESRCH);
}

static struct process *process_of(struct ftfb_symbolizer *sy, uint32_t tgid)
{
	struct process *p;

	for (size_t i = 0; i < sy->nprocs; i++) {
		p = &sy->procs[i];
		if (p->tgid != tgid)
			continue;
		if (!p->loaded) {
			p->loaded = true;
			p->rereads = 0;
			read_maps(p);
		}
		return p;
	}
	p = realloc(sy->procs, (sy->nprocs + 1) * sizeof(*p));
	if (!p)
		return NULL;
	sy->procs = p;
	p = &sy->procs[sy->nprocs++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->loaded = true;
	read_maps(p);
	return p;
}

static struct mapping *mapping_of(struct process *p, uint64_t ip)
{
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < p->nmaps; i++)
			if (ip >= p->maps[i].start && ip < p->maps[i].end)
				return &p->maps[i];
		if (pass == 2 || p->rereads >= MAX_REREADS)
			break;
		p->rereads++;
		/* mapped since (dlopen): read the maps again, a few times;
		 * and unmapped since (dlclose): the memo's, which has what
		 * the kernel recorded at each mmap (maps_memo_put_mapped) */
		if (pass == 0)
			read_maps(p);
		else if (add_memo_maps(p))
			break;
	}
	return NULL;
}

/* True once the stop's bound on reading processes' files has passed
 * (files_cancel.h): the read is not begun, and counted. */
static bool past_the_stop(void)
{
	if (!ftfb_files_cancelled())
		return false;
	ftfb_files_note_skipped();
	return true;
}

/* The functions of fd (named path in the process) and of its debug
 * file, if it has one (debug_file.h), and its build id, into f. */
static void read_functions(struct elffile *f, int fd, const char *path)
{
	char err[256];
	int dbg;

	f->build_id_len =
		ftfb_elf_build_id_fd(fd, f->build_id, sizeof(f->build_id));
	dbg = ftfb_debug_file_open(fd, path, f->build_id, f->build_id_len);
	/* (names made safe there: elfsym.h) */
	ftfb_elf_functions_debug_fd(fd, dbg, path, &f->syms, err, sizeof(err));
	if (dbg >= 0)
		close(dbg);
}

/* The functions of m's file, read once per device and inode. */
static struct elffile *file_of(struct ftfb_symbolizer *sy, uint32_t tgid,
			       struct mapping *m)
{
	struct ftfb_maps_line l = {
		.start = m->start,
		.end = m->end,
		.pgoff = m->pgoff,
		.dev = m->dev,
		.ino = m->ino,
		.name = m->path,
	};
	struct elffile *f, **nf;
	int fd;

	if (m->file_tried)
		return m->file;
	m->file_tried = true;
	for (size_t i = 0; i < sy->nfiles; i++)
		if (sy->files[i]->dev == m->dev && sy->files[i]->ino == m->ino)
			return m->file = sy->files[i];
	if (past_the_stop())
		return NULL;
	if (!(f = calloc(1, sizeof(*f))))
		return NULL;
	f->dev = m->dev;
	f->ino = m->ino;
	/* the file the process maps, or none: never what its path names
	 * now (proc_file.h); unreadable, frames keep mapping + offset */
	fd = strcmp(m->path, "[vdso]") ? ftfb_proc_file_open(tgid, &l)
				       : ftfb_vdso_file_open(m->end - m->start);
	/* gone (its maps from the memo, or exited since they were read):
	 * by its name, if that is still the very file (proc_file.h) */
	if (fd == -ENOENT && m->path[0] == '/' &&
	    (fd = ftfb_gone_file_open(&l)) == -ENOENT) {
		free(f); /* (not kept: a live process may map it) */
		return NULL;
	}
	if (fd >= 0) {
		read_functions(f, fd, m->path);
		close(fd);
	} else {
		f->build_id_len = -ENOENT;
	}
	nf = realloc(sy->files, (sy->nfiles + 1) * sizeof(*nf));
	if (!nf) {
		ftfb_symlist_free(&f->syms);
		free(f);
		return NULL;
	}
	sy->files = nf;
	sy->files[sy->nfiles++] = f;
	return m->file = f;
}

/* The function covering file offset off (its size, or the next one's
 * start when it has none). */
static const struct ftfb_sym *function_at(const struct ftfb_symlist *l,
					  uint64_t off)
{
	size_t lo = 0, hi = l->n;
	const struct ftfb_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &l->v[lo - 1];
	if (s->size ? off < s->offset + s->size
		    : (lo == l->n || off < l->v[lo].offset))
		return s;
	return NULL;
}

/* Once per process: why its perf map is not read. */
static void jit_refused(struct process *p, int err, const struct stat *st)
{
	if (p->jit_told)
		return;
	p->jit_told = true;
	fprintf(stderr, "ftf-bpf: process %u's perf map (/tmp/perf-PID.map): ",
		p->tgid);
	if (err == -EFBIG)
		fprintf(stderr, "%.1f MiB, over the %llu MiB cap",
			(double)st->st_size / (1 << 20),
			FTFB_PERFMAP_MAX >> 20);
	else if (err == -EPERM)
		fprintf(stderr, "owned by uid %u, not the process's user",
			(unsigned)st->st_uid);
	else if (err == -ENOSPC)
		fprintf(stderr, "%llu MiB read already",
			(unsigned long long)JIT_BUDGET >> 20);
	else
		fprintf(stderr, "%s",
			err == -ELOOP	  ? "a symbolic link"
			: err == -ENOEXEC ? "not a regular file"
					  : strerror(-err));
	fprintf(stderr, "; not read, its JIT frames are not named\n");
}

/* Reads p's perf map again if it changed since, within p's budget. */
static void jit_load(struct process *p)
{
	struct stat st;
	int fd = ftfb_perfmap_open(p->tgid, &st);

	if (fd < 0) {
		if (fd != -ENOENT)
			jit_refused(p, fd, &st);
		p->jit_reads = JIT_REREADS; /* none (we may read) */
		return;
	}
	if (p->jit_loaded && st.st_size == p->jit_size &&
	    st.st_mtim.tv_sec == p->jit_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == p->jit_mtime.tv_nsec) {
		close(fd); /* the same names */
		return;
	}
	if (p->jit_bytes + (uint64_t)st.st_size > JIT_BUDGET) {
		jit_refused(p, -ENOSPC, &st);
		p->jit_reads = JIT_REREADS;
		close(fd);
		return;
	}
	p->jit_bytes += (uint64_t)st.st_size;
	p->jit_loaded = true;
	p->jit_size = st.st_size;
	p->jit_mtime = st.st_mtim;
	/* (what is appended after the fstat waits for the next read) */
	ftfb_perfmap_load_fd(&p->jit, fd, (uint64_t)st.st_size);
	close(fd);
}

/* An address in no file: JIT code, named by the process's perf map
 * (read again, a few times, for code compiled since). */
static void jit_frame(struct process *p, uint64_t ip,
		      struct ftfb_frame_sym *out)
{
	out->function = ftfb_perfmap_find(&p->jit, ip);
	if (!out->function && p->jit_reads < JIT_REREADS && !past_the_stop()) {
		p->jit_reads++;
		jit_load(p);
		out->function = ftfb_perfmap_find(&p->jit, ip);
	}
	if (out->function)
		out->path = "[jit]";
}

void ftfb_symbolizer_forget(void *ctx, uint32_t tgid, uint64_t ts_ns)
{
	struct ftfb_symbolizer *sy = ctx;

	/* (the loader's reads of it from before are of the old image, or
	 * of a process whose pid may come back) */
	ftfb_maps_memo_bound(tgid, ts_ns);
	for (size_t i = 0; i < sy->nprocs; i++)
		if (sy->procs[i].tgid == tgid) {
			/* (exec'd or gone: another map, same budget) */
			free_maps(&sy->procs[i]);
			ftfb_perfmap_free(&sy->procs[i].jit);
			sy->procs[i].jit_reads = 0;
			sy->procs[i].jit_loaded = false;
			sy->procs[i].loaded = false;
		}
}

void ftfb_symbolize(void *ctx, uint32_t tgid, uint64_t ip, bool kernel,
		    bool leaf, struct ftfb_frame_sym *out)
{
	struct ftfb_symbolizer *sy = ctx;
	const struct ftfb_sym *fn;
	struct process *p;
	struct mapping *m;
	struct elffile *f;
	uint64_t off;

	memset(out, 0, sizeof(*out));
	if (kernel) {
		kernel_frame(sy, ip, out);
		return;
	}
	/* where the user stack walker stopped, and why */
	if ((out->function = ftfb_uw_stop_name(ip)))
		return;
	if (!(p = process_of(sy, tgid)))
		return;
	if (!(m = mapping_of(p, ip))) {
		jit_frame(p, ip, out);
		return;
	}
	out->path = m->path;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	out->rel_pc = ip - m->start + m->pgoff;
	if (!strcmp(m->path, "[uprobes]")) {
		/* the kernel's page of probed instructions' copies and the
		 * uretprobe trampoline: no file, named for what it is */
		out->function = "[uprobes]";
		return;
	}
	f = file_of(sy, tgid, m);
	if (f && f->build_id_len > 0) {
		out->build_id = f->build_id;
		out->build_id_len = (size_t)f->build_id_len;
	}
	/* a return address may be just past its function (a call that
	 * does not return ends it): look up the call instruction */
	off = out->rel_pc - (leaf || !out->rel_pc ? 0 : 1);
	if (f && (fn = function_at(&f->syms, off)))
		out->function = fn->demangled ? fn->demangled : fn->name;
}
