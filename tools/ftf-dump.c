// SPDX-License-Identifier: MIT
/*
 * ftf-dump - print, count or check the records of a Fuchsia Trace Format
 * file.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/reader.h"
#include "ftf/stream.h"
#include "record_text.h"

static const char usage[] =
	"Usage: ftf-dump [--summary | --check] FILE\n"
	"\n"
	"Reads a Fuchsia Trace Format (FXT) file with libftf's reader; a\n"
	"gzip-compressed one (.fxt.gz, recognised by its content) too. Traces\n"
	"larger than memory are read as a stream. A gzip file cut short (no\n"
	"gzip trailer) is read up to where it ends, with a note; it is whole if\n"
	"it ends on a record boundary.\n"
	"\n"
	"  (no option)  one line per record, in the text of Fuchsia's\n"
	"               trace-reader (Record::ToString), then a line\n"
	"               \"ftf-dump: FILE: B bytes, N records, E errors\"\n"
	"  --summary    counts of records by kind, total bytes, the ticks per\n"
	"               second and the first (lowest) and last (highest)\n"
	"               timestamp\n"
	"  --check      checks the trace is whole: magic record first, ends on\n"
	"               a record boundary, every string and thread ref defined\n"
	"               before use, duration begin/end balanced per thread,\n"
	"               every record of a type the format defines (an\n"
	"               undefined one is most often a damaged size), every\n"
	"               provider section of a declared provider; prints\n"
	"               \"ok records=N ...\" or the problems\n"
	"  -h, --help   this text\n"
	"\n"
	"Malformed records are reported on stderr as \"ERROR @POS: offset OFF:\n"
	"what\" (POS counted like Fuchsia's reader, OFF the record's offset).\n"
	"\n"
	"Exit status: 0 fine, 1 malformed input or failed check, 2 usage or\n"
	"file error.\n"
	"\n"
	"Examples:\n"
	"  ftf-dump trace.fxt | less\n"
	"  ftf-dump --summary trace.fxt\n"
	"  ftf-dump --check trace.fxt.gz\n"
	"  ftf-dump --check trace.fxt && echo whole\n";

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void report(const struct ftf_reader *r)
{
	fprintf(stderr, "ERROR @%zu: %s\n", r->err_pos, ftf_reader_error(r));
}

static int do_dump(const char *path, struct ftf_stream *st)
{
	struct ftf_reader *r = &st->r;
	struct ftf_record rec;
	int ret;

	for (;;) {
		ret = ftf_stream_next(st, &rec);
		if (ret == 0)
			break;
		if (ret < 0) {
			report(r);
			if (r->fatal)
				break;
			continue;
		}
		ftf_record_print(stdout, &rec);
		fputc('\n', stdout);
	}
	printf("ftf-dump: %s: %zu bytes, %zu records, %zu errors\n",
	       base_name(path), ftf_stream_bytes(st), r->records, r->errors);
	return r->errors ? 1 : 0;
}

static bool record_ts(const struct ftf_record *rec, uint64_t *ts)
{
	if (rec->unknown)
		return false;
	switch (rec->type) {
	case FTF_REC_EVENT:
		*ts = rec->u.event.ts;
		return true;
	case FTF_REC_SCHED:
		*ts = rec->u.sched.ts;
		return true;
	case FTF_REC_LOG:
		*ts = rec->u.log.ts;
		return true;
	case FTF_REC_LARGE:
		*ts = rec->u.large.ts;
		return rec->u.large.format == 0;
	default:
		return false;
	}
}

/* What --summary counts: records by type and subtype, timestamps' span. */
struct summary {
	size_t by_type[16], events[11], kobj[256], meta[5], sched[3];
	size_t unknown, nts;
	uint64_t first, last;
};

/* Reads the whole stream into s (errors reported as they come). */
static void count_records(struct ftf_stream *st, struct summary *s)
{
	struct ftf_reader *r = &st->r;
	struct ftf_record rec;
	uint64_t ts;
	int ret;

	memset(s, 0, sizeof(*s));
	s->first = UINT64_MAX;
	while ((ret = ftf_stream_next(st, &rec)) != 0) {
		if (ret < 0) {
			report(r);
			if (r->fatal)
				break;
			continue;
		}
		if (rec.unknown) {
			s->unknown++;
			continue;
		}
		s->by_type[rec.type]++;
		if (rec.type == FTF_REC_EVENT)
			s->events[rec.u.event.event_type]++;
		else if (rec.type == FTF_REC_KERNEL_OBJECT)
			s->kobj[rec.u.kobj.obj_type]++;
		else if (rec.type == FTF_REC_METADATA)
			s->meta[rec.u.meta.meta_type]++;
		else if (rec.type == FTF_REC_SCHED)
			s->sched[rec.u.sched.sched_type]++;
		if (record_ts(&rec, &ts)) {
			s->nts++;
			s->first = ts < s->first ? ts : s->first;
			s->last = ts > s->last ? ts : s->last;
		}
	}
}

/* The event and kernel object lines, by subtype. */
static void print_subtypes(const struct summary *s)
{
	static const char *const event_names[] = {
		"instant", "counter", "duration begin", "duration end",
		"duration complete", "async begin", "async instant",
		"async end", "flow begin", "flow step", "flow end",
	};

	printf("  event: %zu\n", s->by_type[FTF_REC_EVENT]);
	for (int i = 0; i < 11; i++)
		if (s->events[i])
			printf("    %s: %zu\n", event_names[i], s->events[i]);
	printf("  kernel object: %zu\n", s->by_type[FTF_REC_KERNEL_OBJECT]);
	for (int i = 0; i < 256; i++) {
		const char *n = ftf_obj_type_name(i);

		if (s->kobj[i] && n)
			printf("    %s: %zu\n", n, s->kobj[i]);
		else if (s->kobj[i])
			printf("    type %d: %zu\n", i, s->kobj[i]);
	}
}

static int do_summary(const char *path, struct ftf_stream *st)
{
	struct ftf_reader *r = &st->r;
	struct summary s;

	count_records(st, &s);
	printf("file: %s\n", path);
	printf("bytes: %zu\n", ftf_stream_bytes(st));
	if (st->gzip)
		printf("gzip: yes\n");
	printf("records: %zu\n", r->records);
	printf("  metadata: %zu (magic %zu, provider info %zu, provider section %zu, provider event %zu)\n",
	       s.by_type[FTF_REC_METADATA], s.meta[FTF_META_TRACE_INFO],
	       s.meta[FTF_META_PROVIDER_INFO], s.meta[FTF_META_PROVIDER_SECTION],
	       s.meta[FTF_META_PROVIDER_EVENT]);
	printf("  initialization: %zu\n", s.by_type[FTF_REC_INIT]);
	printf("  string: %zu\n", s.by_type[FTF_REC_STRING]);
	printf("  thread: %zu\n", s.by_type[FTF_REC_THREAD]);
	print_subtypes(&s);
	printf("  context switch: %zu\n", s.sched[FTF_SCHED_CONTEXT_SWITCH]);
	if (s.sched[FTF_SCHED_LEGACY_SWITCH])
		printf("  legacy context switch: %zu\n",
		       s.sched[FTF_SCHED_LEGACY_SWITCH]);
	printf("  thread wakeup: %zu\n", s.sched[FTF_SCHED_WAKEUP]);
	printf("  log: %zu\n", s.by_type[FTF_REC_LOG]);
	printf("  blob: %zu\n", s.by_type[FTF_REC_BLOB]);
	printf("  large blob: %zu\n", s.by_type[FTF_REC_LARGE]);
	printf("  userspace object: %zu\n", s.by_type[FTF_REC_USERSPACE_OBJECT]);
	printf("  unknown (skipped): %zu\n", s.unknown);
	printf("ticks_per_second: %" PRIu64 "%s\n",
	       r->ticks_per_second ? r->ticks_per_second : (uint64_t)1000000000,
	       r->ticks_per_second ? "" : " (no initialization record)");
	if (s.nts) {
		printf("first_ts: %" PRIu64 "\n", s.first);
		printf("last_ts: %" PRIu64 "\n", s.last);
	} else {
		printf("first_ts: -\nlast_ts: -\n");
	}
	printf("errors: %zu\n", r->errors);
	return r->errors ? 1 : 0;
}

/* Open duration begins per thread, in a small open-addressing table. */
struct depth {
	struct ftf_pt pt;
	uint64_t depth;
	uint64_t first_ts; /* ts of the outermost open begin */
	bool used;
};

struct depth_table {
	struct depth *e;
	size_t cap, n;
};

static size_t pt_hash(struct ftf_pt pt)
{
	uint64_t h = pt.pid * 0x9E3779B97F4A7C15ull ^ pt.tid;

	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	return (size_t)(h ^ (h >> 29));
}

static struct depth *depth_get(struct depth_table *t, struct ftf_pt pt)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap) {
		struct depth_table nt = { .cap = t->cap ? t->cap * 2 : 256 };

		nt.e = calloc(nt.cap, sizeof(*nt.e));
		if (!nt.e)
			return NULL;
		for (size_t j = 0; j < t->cap; j++) {
			if (!t->e[j].used)
				continue;
			i = pt_hash(t->e[j].pt) & (nt.cap - 1);
			while (nt.e[i].used)
				i = (i + 1) & (nt.cap - 1);
			nt.e[i] = t->e[j];
		}
		nt.n = t->n;
		free(t->e);
		*t = nt;
	}
	i = pt_hash(pt) & (t->cap - 1);
	while (t->e[i].used) {
		if (t->e[i].pt.pid == pt.pid && t->e[i].pt.tid == pt.tid)
			return &t->e[i];
		i = (i + 1) & (t->cap - 1);
	}
	t->e[i].used = true;
	t->e[i].pt = pt;
	t->n++;
	return &t->e[i];
}

#define MAX_PROBLEMS_SHOWN 20

static size_t problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	va_list ap;

	if (++problems > MAX_PROBLEMS_SHOWN)
		return;
	va_start(ap, fmt);
	fputs("problem: ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

/* The provider ids declared so far (provider info records): a provider
 * section must switch to one of them. */
struct providers {
	uint32_t *id;
	size_t n, cap;
};

static bool provider_known(const struct providers *p, uint32_t id)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->id[i] == id)
			return true;
	return false;
}

static int provider_add(struct providers *p, uint32_t id)
{
	if (provider_known(p, id))
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		uint32_t *v = realloc(p->id, cap * sizeof(*v));

		if (!v)
			return -1;
		p->id = v;
		p->cap = cap;
	}
	p->id[p->n++] = id;
	return 0;
}

/* --check's look at what the format defines: a record type or subtype it
 * leaves undefined (a reader skips it by size) is most often a damaged
 * trace whose sizes no longer line up, so it is a problem here; so is a
 * provider section for a provider never declared. -1: out of memory. */
static int check_defined(const struct ftf_record *rec, struct providers *pv,
			 size_t *undefined)
{
	if (rec->unknown) {
		(*undefined)++;
		problem("offset %zu: record type %u (header 0x%016llx) is not defined by the format (a damaged trace?)",
			rec->offset, rec->type, (unsigned long long)rec->header);
		return 0;
	}
	if (rec->type != FTF_REC_METADATA)
		return 0;
	if (rec->u.meta.meta_type == FTF_META_PROVIDER_INFO)
		return provider_add(pv, rec->u.meta.provider_id);
	if (rec->u.meta.meta_type == FTF_META_PROVIDER_SECTION &&
	    !provider_known(pv, rec->u.meta.provider_id))
		problem("offset %zu: provider section for provider %u, which no provider info record declared",
			rec->offset, rec->u.meta.provider_id);
	return 0;
}

static int do_check(struct ftf_stream *st)
{
	struct depth_table dt = { 0 };
	struct providers pv = { 0 };
	size_t events = 0, unmatched_end = 0, open_begins = 0, undefined = 0;
	struct ftf_reader *r = &st->r;
	struct ftf_record rec;
	struct depth *d;
	bool first = true;
	int ret;

	while ((ret = ftf_stream_next(st, &rec)) != 0) {
		if (first && (ret < 0 || rec.header != FTF_MAGIC_WORD))
			problem("the first record is not the magic number record (0x%016llx)",
				(unsigned long long)FTF_MAGIC_WORD);
		first = false;
		if (ret < 0) {
			problem("%s", ftf_reader_error(r));
			if (r->fatal)
				break;
			continue;
		}
		if (check_defined(&rec, &pv, &undefined)) {
			fprintf(stderr, "ftf-dump: out of memory\n");
			free(dt.e);
			free(pv.id);
			return 2;
		}
		if (rec.unknown || rec.type != FTF_REC_EVENT)
			continue;
		events++;
		if (rec.u.event.event_type != 2 && rec.u.event.event_type != 3)
			continue;
		d = depth_get(&dt, rec.u.event.pt);
		if (!d) {
			fprintf(stderr, "ftf-dump: out of memory\n");
			free(dt.e);
			return 2;
		}
		if (rec.u.event.event_type == 2) {
			if (d->depth++ == 0)
				d->first_ts = rec.u.event.ts;
		} else if (d->depth == 0) {
			unmatched_end++;
			problem("offset %zu: duration end \"%.*s\" on %" PRIu64 "/%" PRIu64
				" at ts %" PRIu64 " has no open begin",
				rec.offset, (int)rec.u.event.name.len,
				rec.u.event.name.ptr, rec.u.event.pt.pid,
				rec.u.event.pt.tid, rec.u.event.ts);
		} else {
			d->depth--;
		}
	}
	for (size_t i = 0; i < dt.cap; i++) {
		if (!dt.e[i].used || !dt.e[i].depth)
			continue;
		open_begins += dt.e[i].depth;
		problem("thread %" PRIu64 "/%" PRIu64 ": %" PRIu64
			" duration begin(s) without an end (outermost at ts %" PRIu64 ")",
			dt.e[i].pt.pid, dt.e[i].pt.tid, dt.e[i].depth,
			dt.e[i].first_ts);
	}
	if (problems > MAX_PROBLEMS_SHOWN)
		printf("problem: ... and %zu more\n", problems - MAX_PROBLEMS_SHOWN);
	if (first)
		problem("the first record is not the magic number record (0x%016llx)",
			(unsigned long long)FTF_MAGIC_WORD);
	if (problems)
		printf("FAILED records=%zu bytes=%zu problems=%zu errors=%zu unmatched_begins=%zu unmatched_ends=%zu unknown_types=%zu\n",
		       r->records, ftf_stream_bytes(st), problems, r->errors,
		       open_begins, unmatched_end, undefined);
	else
		printf("ok records=%zu bytes=%zu events=%zu threads=%zu skipped=%zu\n",
		       r->records, ftf_stream_bytes(st), events, dt.n,
		       r->skipped);
	free(dt.e);
	free(pv.id);
	return problems ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ftf_stream st;
	int mode = 0, opt, ret, err;

	while ((opt = getopt_long(argc, argv, "sch", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
		case 'c':
			if (mode && mode != opt) {
				fprintf(stderr, "ftf-dump: --summary and --check exclude each other\n");
				return 2;
			}
			mode = opt;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ftf-dump: expected one FILE (see --help)\n");
		return 2;
	}
	err = ftf_stream_open(&st, argv[optind]);
	if (err) {
		fprintf(stderr, "ftf-dump: cannot read %s: %s\n", argv[optind],
			strerror(-err));
		return 2;
	}
	if (mode == 's')
		ret = do_summary(argv[optind], &st);
	else if (mode == 'c')
		ret = do_check(&st);
	else
		ret = do_dump(argv[optind], &st);
	if (*ftf_stream_note(&st))
		fprintf(stderr, "ftf-dump: note: %s: %s\n", argv[optind],
			ftf_stream_note(&st));
	ftf_stream_close(&st);
	return ret;
}
