// SPDX-License-Identifier: MIT
/*
 * merge.c - ftf-merge's core.
 *
 * Why a concatenation and not a k-way merge by time: FTF readers sort
 * records by time themselves (the format does not ask writers for time
 * order), and the spec keeps the string table, the thread table and the
 * initialization data per provider: a reader switches to a provider's
 * tables at each provider section record. So each input is copied whole,
 * in order, inside provider sections of its own (its provider ids renamed
 * to ids no other input uses), and its string and thread refs stay valid
 * as written: they are per-stream indexes, and each stream keeps its own
 * table in its own section. A k-way merge would interleave records of
 * several inputs in one section: every ref would have to be re-interned
 * into a shared table (32767 strings, 255 threads: evictions, re-sent
 * definitions) and every input's tables kept live at once. Readers that
 * keep one table for the whole file (libftf's) also read the copy right,
 * since each input defines every index before it uses it.
 *
 * What is rewritten: timestamps (events, their end times, scheduling and
 * log records, large blob events), mapped into the first input's tick
 * domain (merge_time.c); initialization records, which all declare that
 * domain (after every provider record too, as Perfetto reads a rate per
 * provider); provider ids; a kernel object record without a name for a
 * koid that an input named gets that name. One input at a time is read
 * as a stream (ftf_stream): memory does not grow with the traces.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftf/destination.h"
#include "ftf/stream.h"
#include "ftf/writer.h"
#include "merge.h"
#include "merge_files.h"
#include "merge_names.h"
#include "merge_time.h"

#define MAX_PROVIDERS 256   /* per input */
#define PROBE_RECORDS 10000 /* records searched for the first init */
#define MAX_RECORD_WORDS 4095
#define KOBJ_PROCESS 1 /* the spec's object types (reader.h) */
#define KOBJ_THREAD 2

struct merge {
	const struct merge_opts *o;
	struct merge_stats *st;
	char *err;
	size_t errlen;
	struct ftf_writer w;
	union {
		struct ftf_dest_file file;
		struct ftf_dest_gzip gz;
	} d;
	struct ftf_clock clock;
	struct merge_out_file out_file;
	struct merge_spool *spools; /* per input: where to read it */
	struct merge_domain out;
	struct merge_names names;
	uint8_t *scratch;
	size_t scratch_cap;
	uint32_t next_provider;
	/* the current input */
	const char *path;
	struct merge_map map;
	struct {
		uint32_t in, out;
	} prov[MAX_PROVIDERS];
	int nprov;
	bool provider_seen;
};

static int fail(struct merge *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct merge *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, m->errlen, fmt, ap);
	va_end(ap);
	return code;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool is_magic(const struct ftf_record *rec)
{
	return rec->header == FTF_MAGIC_WORD;
}

/* ---- before writing: each input's tick domain ---- */

static int probe(struct merge *m, int i, struct merge_domain *d)
{
	const char *path = m->o->in[i].path;
	struct ftf_stream s;
	struct ftf_record rec;
	int ret = ftf_stream_open(&s, merge_spool_path(&m->spools[i], path));
	int n = 0;

	if (ret)
		return fail(m, ret, "cannot read %s: %s", path, strerror(-ret));
	memset(d, 0, sizeof(*d));
	d->tps = 1000000000ull; /* the spec's default: 1 tick = 1 ns */
	ret = ftf_stream_next(&s, &rec);
	if (ret <= 0 || !is_magic(&rec)) {
		ftf_stream_close(&s);
		return fail(m, -EINVAL,
			    "%s is not an FTF trace (it does not start with "
			    "the FTF magic record)",
			    path);
	}
	while (n++ < PROBE_RECORDS && (ret = ftf_stream_next(&s, &rec)) > 0) {
		if (rec.type == FTF_REC_INIT && !rec.unknown) {
			d->tps = rec.u.init.ticks_per_second;
			d->has_base = rec.u.init.has_base;
			d->base_ticks = rec.u.init.base_ticks;
			d->base_time = (int64_t)rec.u.init.base_time;
			break;
		}
		if (rec.type == FTF_REC_EVENT || rec.type == FTF_REC_SCHED ||
		    rec.type == FTF_REC_LOG)
			break; /* timestamps before any init: 1 ns ticks */
	}
	if (ret < 0) {
		ret = fail(m, ret, "%s: %s", path, ftf_reader_error(&s.r));
		ftf_stream_close(&s);
		return ret;
	}
	ftf_stream_close(&s);
	/* no clock ticks faster; and it keeps the 128-bit mapping of any
	 * 64-bit time (merge_time.c) from overflowing */
	if (d->tps > MERGE_MAX_TPS)
		return fail(m, -ERANGE,
			    "%s declares %llu ticks per second, more than any "
			    "clock (at most 1e12): it cannot be placed in time",
			    path, (unsigned long long)d->tps);
	return 0;
}

static void log_map(const struct merge *m, const struct merge_input *in,
		    const struct merge_map *map)
{
	FILE *f = m->o->log;

	if (!f)
		return;
	if (map == NULL) {
		fprintf(f,
			"ftf-merge: %s: the output's tick domain (%.6f MHz)\n",
			in->path, (double)m->out.tps / 1e6);
		return;
	}
	switch (map->kind) {
	case MERGE_SAME:
		fprintf(f,
			"ftf-merge: %s: the same clock (rates %+.3f ppm apart, "
			"bases %.1f us): ticks kept\n",
			in->path, map->rate_ppm, map->bases_us);
		break;
	case MERGE_REBASE:
		fprintf(f,
			"ftf-merge: %s: another clock (%.6f MHz): mapped "
			"through its base time\n",
			in->path, (double)map->in_tps / 1e6);
		break;
	default:
		fprintf(f,
			"ftf-merge: %s: placed by --offset %.6f s (%.6f MHz)\n",
			in->path, (double)in->offset_ns / 1e9,
			(double)map->in_tps / 1e6);
		break;
	}
}

/* ---- writing ---- */

static int put(struct merge *m, const void *p, size_t n)
{
	int r = ftf_write_bytes(&m->w, p, n);

	if (r)
		return fail(m, r, "writing %s failed: %s", m->o->output,
			    ftf_writer_error(&m->w));
	m->st->records++;
	m->st->bytes_out += n;
	return 0;
}

static int write_init(struct merge *m)
{
	uint8_t b[32];

	put64(b, 1 | ((m->out.has_base ? 4ull : 2ull) << 4));
	put64(b + 8, m->out.tps);
	put64(b + 16, m->out.base_ticks);
	put64(b + 24, (uint64_t)m->out.base_time);
	return put(m, b, m->out.has_base ? 32 : 16);
}

static uint32_t out_provider(struct merge *m, uint32_t in)
{
	for (int i = 0; i < m->nprov; i++)
		if (m->prov[i].in == in)
			return m->prov[i].out;
	if (m->nprov == MAX_PROVIDERS)
		return m->prov[MAX_PROVIDERS - 1].out;
	m->prov[m->nprov].in = in;
	m->prov[m->nprov].out = m->next_provider++;
	return m->prov[m->nprov++].out;
}

/* A provider of the input's file name, for an input whose records do not
 * start with a provider info record (they would fall into the previous
 * input's section). */
static int write_own_provider(struct merge *m)
{
	const char *name = base_name(m->path);
	size_t len = strlen(name) > 255 ? 255 : strlen(name);
	size_t words = 1 + (len + 7) / 8;
	uint64_t id = out_provider(m, UINT32_MAX);
	uint8_t b[8 + 256 + 8] = {0};
	int r;

	put64(b, 0 | (words << 4) | (1ull << 16) | (id << 20) |
			 ((uint64_t)len << 52));
	memcpy(b + 8, name, len);
	r = put(m, b, words * 8);
	if (r)
		return r;
	put64(b, 0 | (1ull << 4) | (2ull << 16) | (id << 20));
	r = put(m, b, 8);
	return r ? r : write_init(m);
}

static uint8_t *scratch(struct merge *m, size_t n)
{
	if (n > m->scratch_cap) {
		uint8_t *p = realloc(m->scratch, n);

		if (!p)
			return NULL;
		m->scratch = p;
		m->scratch_cap = n;
	}
	return m->scratch;
}

static int copy_metadata(struct merge *m, const struct ftf_record *rec,
			 const uint8_t *raw, size_t n)
{
	unsigned type = rec->u.meta.meta_type;
	uint8_t *b;
	uint64_t h;
	int r;

	if (rec->unknown || type < FTF_META_PROVIDER_INFO ||
	    type > FTF_META_PROVIDER_EVENT)
		return put(m, raw, n);
	b = scratch(m, n);
	if (!b)
		return fail(m, -ENOMEM, "out of memory");
	memcpy(b, raw, n);
	h = get64(b) & ~(0xffffffffull << 20);
	h |= (uint64_t)out_provider(m, rec->u.meta.provider_id) << 20;
	put64(b, h);
	r = put(m, b, n);
	if (r || type == FTF_META_PROVIDER_EVENT)
		return r;
	m->provider_seen = true;
	return write_init(m); /* the new provider's rate */
}

static size_t inline_words(unsigned ref)
{
	return ref & 0x8000 ? ((ref & 0x7fff) + 7) / 8 : 0;
}

/* The word index of a timestamp to map, or 0 if the record has none;
 * *end_word also for a duration complete's end time. */
static size_t ts_word(const struct ftf_record *rec, const uint8_t *raw,
		      size_t *end_word)
{
	*end_word = 0;
	if (rec->unknown)
		return 0;
	switch (rec->type) {
	case FTF_REC_EVENT:
		if (rec->u.event.event_type == FTF_EVENT_DURATION_COMPLETE)
			*end_word = rec->size_words - 1;
		return 1;
	case FTF_REC_SCHED:
	case FTF_REC_LOG:
		return 1;
	case FTF_REC_LARGE: {
		uint64_t fh = get64(raw + 8);

		if (rec->u.large.format != 0)
			return 0;
		return 2 + inline_words(fh & 0xffff) +
		       inline_words((fh >> 16) & 0xffff);
	}
	default:
		return 0;
	}
}

static int copy_timed(struct merge *m, const uint8_t *raw, size_t n, size_t tw,
		      size_t ew)
{
	uint8_t *b;

	if (m->map.kind == MERGE_SAME)
		return put(m, raw, n);
	b = scratch(m, n);
	if (!b)
		return fail(m, -ENOMEM,
			    "out of memory for a record of %zu bytes", n);
	memcpy(b, raw, n);
	put64(b + tw * 8, merge_map_ts(&m->map, get64(b + tw * 8)));
	if (ew)
		put64(b + ew * 8, merge_map_ts(&m->map, get64(b + ew * 8)));
	return put(m, b, n);
}

/* A process or thread record: remember its name, or give it one. */
static int copy_kobj(struct merge *m, const struct ftf_record *rec,
		     const uint8_t *raw, size_t n)
{
	const struct merge_name *known;
	size_t name_words;
	uint64_t h = get64(raw);
	uint8_t *b;

	if (rec->unknown)
		return put(m, raw, n);
	/* only processes and threads are named across inputs (type 0 is
	 * the names table's empty slot) */
	if (rec->u.kobj.obj_type != KOBJ_PROCESS &&
	    rec->u.kobj.obj_type != KOBJ_THREAD)
		return put(m, raw, n);
	if (rec->u.kobj.name.len) {
		if (merge_names_set(&m->names, rec->u.kobj.obj_type,
				    rec->u.kobj.koid, rec->u.kobj.name.ptr,
				    rec->u.kobj.name.len))
			return fail(m, -ENOMEM, "out of memory");
		return put(m, raw, n);
	}
	known = merge_names_get(&m->names, rec->u.kobj.obj_type,
				rec->u.kobj.koid);
	name_words = known ? (known->len + 7) / 8 : 0;
	if (!known || ((h >> 24) & 0xffff) != 0 || known->len > 0x7fff ||
	    rec->size_words + name_words > MAX_RECORD_WORDS)
		return put(m, raw, n);
	b = scratch(m, n + name_words * 8);
	if (!b)
		return fail(m, -ENOMEM, "out of memory");
	h &= ~((0xfffull << 4) | (0xffffull << 24));
	h |= (uint64_t)(rec->size_words + name_words) << 4;
	h |= (uint64_t)(0x8000 | known->len) << 24;
	put64(b, h);
	memcpy(b + 8, raw + 8, 8); /* koid */
	memset(b + 16, 0, name_words * 8);
	memcpy(b + 16, known->text, known->len);
	memcpy(b + 16 + name_words * 8, raw + 16, n - 16); /* args */
	return put(m, b, n + name_words * 8);
}

static int copy_record(struct merge *m, const struct ftf_record *rec,
		       const uint8_t *raw)
{
	size_t n = rec->size_words * 8, tw, ew;
	bool provider_info = rec->type == FTF_REC_METADATA && !rec->unknown &&
			     rec->u.meta.meta_type == FTF_META_PROVIDER_INFO;
	int r;

	if (is_magic(rec))
		return 0; /* the output has one, first */
	if (!m->provider_seen && !provider_info) {
		r = write_own_provider(m);
		if (r)
			return r;
		m->provider_seen = true;
	}
	if (rec->type == FTF_REC_METADATA)
		return copy_metadata(m, rec, raw, n);
	if (rec->type == FTF_REC_INIT && !rec->unknown)
		return write_init(m);
	if (rec->type == FTF_REC_KERNEL_OBJECT)
		return copy_kobj(m, rec, raw, n);
	tw = ts_word(rec, raw, &ew);
	if (tw && tw < rec->size_words)
		return copy_timed(m, raw, n, tw, ew);
	return put(m, raw, n);
}

static int copy_input(struct merge *m, int i)
{
	const struct merge_input *in = &m->o->in[i];
	struct ftf_stream s;
	struct ftf_record rec;
	int ret = ftf_stream_open(&s, merge_spool_path(&m->spools[i],
							in->path));

	if (ret)
		return fail(m, ret, "cannot read %s: %s", in->path,
			    strerror(-ret));
	m->path = in->path;
	m->nprov = 0;
	m->provider_seen = false;
	while ((ret = ftf_stream_next(&s, &rec)) > 0) {
		ret = copy_record(m, &rec, ftf_stream_record_data(&s, &rec));
		if (ret)
			break;
	}
	if (ret < 0 && !m->err[0])
		fail(m, ret, "%s: %s", in->path, ftf_reader_error(&s.r));
	m->st->bytes_in += ftf_stream_bytes(&s);
	if (!ret && *ftf_stream_note(&s) && m->o->log)
		fprintf(m->o->log, "ftf-merge: note: %s: %s\n", in->path,
			ftf_stream_note(&s));
	ftf_stream_close(&s);
	return ret;
}

/* ---- the run ---- */

static int check_not_an_input(struct merge *m)
{
	struct stat out, in;

	if (stat(m->o->output, &out))
		return 0;
	for (int i = 0; i < m->o->n; i++)
		if (!stat(m->o->in[i].path, &in) && in.st_dev == out.st_dev &&
		    in.st_ino == out.st_ino)
			return fail(m, -EINVAL,
				    "the output %s is the input %s: choose "
				    "another -o",
				    m->o->output, m->o->in[i].path);
	return 0;
}

static int open_output(struct merge *m)
{
	struct ftf_writer_options wo = {.no_refresh_buf_at_intervals = true,
					.clock = &m->clock};
	size_t len = strlen(m->o->output);
	bool gz = len > 3 && !strcmp(m->o->output + len - 3, ".gz");
	struct ftf_destination *dest;
	int r, fd;

	ftf_clock_init(&m->clock, FTF_CLOCK_MONO); /* unused: no refresh */
	fd = merge_out_create(m->o->output, &m->out_file, m->err, m->errlen);
	if (fd < 0)
		return fd;
	r = gz ? ftf_dest_gzip_init_fd(&m->d.gz, fd, 1, 0, -1)
	       : ftf_dest_file_init_fd(&m->d.file, fd, 1, 0);
	if (r) {
		if (gz) /* a failed gzip init leaves the fd to the caller */
			close(fd);
		merge_out_discard(&m->out_file);
		return fail(m, r, "%s: %s", m->o->output,
			    gz ? m->d.gz.errmsg : m->d.file.errmsg);
	}
	dest = gz ? &m->d.gz.base : &m->d.file.base;
	r = ftf_writer_init_no_header(&m->w, dest, &wo);
	if (r) {
		fail(m, r, "cannot write %s: %s", m->o->output,
		     ftf_writer_error(&m->w));
		ftf_writer_close(&m->w);
		merge_out_discard(&m->out_file);
	}
	return r;
}

static int place_inputs(struct merge *m, struct merge_map *maps)
{
	struct merge_domain d;
	int r;

	for (int i = 0; i < m->o->n; i++) {
		const struct merge_input *in = &m->o->in[i];

		r = merge_spool_input(in->path, &m->spools[i], m->err,
				      m->errlen);
		if (!r)
			r = probe(m, i, i ? &d : &m->out);
		if (r)
			return r;
		if (i == 0 && !in->has_offset) {
			maps[0].kind = MERGE_SAME;
			continue;
		}
		if (merge_map_setup(&maps[i], &m->out, i ? &d : &m->out,
				    in->has_offset, in->offset_ns)) {
			if (!(i ? d.has_base : m->out.has_base))
				return fail(m, -EINVAL,
					    "%s has no base time in its "
					    "initialization record (only ticks "
					    "per second): give --offset DUR "
					    "before it to place it",
					    in->path);
			return fail(m, -EINVAL,
				    "%s cannot be placed against %s, which has "
				    "no base time in its initialization "
				    "record: give --offset DUR before %s",
				    in->path, m->o->in[0].path, in->path);
		}
	}
	return 0;
}

/* The output, opened: every input copied, then put in place (only the
 * temporary file is removed if anything failed). */
static int write_all(struct merge *m, struct merge_map *maps)
{
	static const uint8_t magic[8] = {0x10, 0x00, 0x04, 0x46,
					 0x78, 0x54, 0x16, 0x00};
	int r = put(m, magic, 8), cr;

	for (int i = 0; !r && i < m->o->n; i++) {
		m->map = maps[i];
		r = copy_input(m, i);
		maps[i].clamped = m->map.clamped;
		m->st->clamped += m->map.clamped;
	}
	cr = ftf_writer_close(&m->w);
	if (!r && cr)
		r = fail(m, cr, "writing %s failed: %s", m->o->output,
			 ftf_writer_error(&m->w));
	if (r)
		merge_out_discard(&m->out_file);
	else
		r = merge_out_commit(&m->out_file, m->o->output, m->err,
				     m->errlen);
	return r;
}

int merge_run(const struct merge_opts *o, struct merge_stats *st, char *err,
	      size_t errlen)
{
	struct merge m = {.o = o,
			  .st = st,
			  .err = err,
			  .errlen = errlen,
			  .next_provider = 1};
	struct merge_map *maps = calloc((size_t)o->n, sizeof(*maps));
	int r;

	memset(st, 0, sizeof(*st));
	err[0] = '\0';
	m.spools = calloc((size_t)o->n, sizeof(*m.spools));
	if (!maps || !m.spools) {
		free(maps);
		free(m.spools);
		return fail(&m, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < o->n; i++)
		m.spools[i].fd = -1;
	r = place_inputs(&m, maps);
	if (!r)
		r = check_not_an_input(&m);
	if (!r)
		r = open_output(&m);
	if (!r)
		r = write_all(&m, maps);
	for (int i = 0; !r && i < o->n; i++) /* said once it all worked */
		log_map(&m, &o->in[i],
			i || o->in[0].has_offset ? &maps[i] : NULL);
	for (int i = 0; i < o->n; i++)
		merge_spool_close(&m.spools[i]);
	merge_names_free(&m.names);
	free(m.scratch);
	free(m.spools);
	free(maps);
	return r;
}
