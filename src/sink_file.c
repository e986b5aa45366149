// SPDX-License-Identifier: MIT
/*
 * sink_file.c - the trace file as a sink (sink.h): every event through
 * the translator into the writer, -g's samples through the stack sample
 * writer, the file plain or gzipped (output.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/writer.h"
#include "shard_set.h"
#include "output.h"
#include "report.h"
#include "sink.h"

#define FLUSH_AFTER_NS 1000000000ull
/* Titles set since the trace began (translate_titles.c): this many
 * processes' /proc cmdlines read at most (a few tens of microseconds
 * each), this often (PostgreSQL's backends of pgbench -C live about
 * 200 ms: at 250 ms, 34 of 52 were missed, at 100 ms 10 of 54); at the
 * finish, every live process's. */
#define TITLES_EVERY_NS 100000000ull
#define TITLES_PER_ROUND 16
#define TITLES_AT_FINISH 8192

struct file_sink {
	struct ftfb_sink base;
	const char *path;
	struct ftfb_output out;
	struct ftf_writer w;
	bool writer_open;
	struct ftfb_translator *tr;
	struct ftfb_stackprof *stacks; /* -g */
	const struct ftfb_func *funcs; /* for the summary */
	size_t nfuncs, nusdt;
	struct ftfb_shard_set *shards; /* --rings N: the translator's */
	uint64_t by_kind[FTFB_EV_KIND_MAX]; /* the translator's and shards' */
	uint64_t seen_bytes; /* handed to the file at seen_ns */
	uint64_t seen_ns;
	uint64_t titles_ns; /* the last round of titles */
	bool usr1_said;
};

static struct file_sink *file_of(struct ftfb_sink *s)
{
	return (struct file_sink *)s;
}

static const struct file_sink *cfile_of(const struct ftfb_sink *s)
{
	return (const struct file_sink *)s;
}

void ftfb_sink_fail(struct ftfb_sink *s, int err, const char *fmt, ...)
{
	va_list ap;

	if (s->err)
		return;
	s->err = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
}

/* A writer error: the sink's line names the file and libftf's message. */
static int write_failed(struct file_sink *fs, int r)
{
	ftfb_sink_fail(&fs->base, r, "writing %s failed: %s", fs->path,
		       ftf_writer_error(&fs->w));
	return r;
}

static int file_start(struct ftfb_sink *s, const struct ftfb_translator_opts *to,
		      const struct ftfb_stackprof_opts *stacks, char *err,
		      size_t errlen)
{
	struct file_sink *fs = file_of(s);
	struct ftfb_translator_opts o = *to;

	if (stacks) {
		struct ftfb_stackprof_opts so = *stacks;

		so.w = &fs->w;
		if (ftfb_stackprof_new(&fs->stacks, &so)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	o.w = &fs->w;
	o.stacks = fs->stacks;
	fs->funcs = to->funcs;
	fs->nfuncs = to->nfuncs;
	fs->nusdt = to->nusdt;
	if (ftfb_translator_new(&fs->tr, &o)) {
		snprintf(err, errlen, "cannot write %s: %s", fs->path,
			 ftf_writer_error(&fs->w));
		return -1;
	}
	return 0;
}

static int file_add_task(struct ftfb_sink *s, const struct ftfb_task_info *ti)
{
	return ftfb_translator_add_task(file_of(s)->tr, ti);
}

static int file_event(struct ftfb_sink *s, const void *data, size_t size)
{
	struct file_sink *fs = file_of(s);
	int r = ftfb_translator_event(fs->tr, data, size);

	return r ? write_failed(fs, r) : 0;
}

static int file_drops(struct ftfb_sink *s, uint64_t now_ns,
		      const uint64_t drops[FTFB_EV_KIND_MAX])
{
	struct file_sink *fs = file_of(s);
	int r;

	if (s->err)
		return 0;
	r = ftfb_translator_drops(fs->tr, now_ns, drops);
	return r ? write_failed(fs, r) : 0;
}

/* Records reach the file when the writer's buffer is full or a second
 * old at the next event: on an idle trace the last ones would wait. Hand
 * over a buffer that has waited a second (a gzip member, or a write) so a
 * kill loses at most about a second of them. */
static void file_shards_collect(struct ftfb_sink *s);

static void file_tick(struct ftfb_sink *s, uint64_t now)
{
	struct file_sink *fs = file_of(s);
	uint64_t handed;
	int r;

	file_shards_collect(s);
	handed = ftfb_output_record_bytes(&fs->out);
	if (!fs->writer_open || s->err)
		return;
	if (fs->tr && now - fs->titles_ns >= TITLES_EVERY_NS) {
		fs->titles_ns = now;
		r = ftfb_translator_titles(fs->tr, TITLES_PER_ROUND, false);
		if (r)
			write_failed(fs, r);
	}
	if (handed != fs->seen_bytes || !fs->seen_ns) {
		fs->seen_bytes = handed;
		fs->seen_ns = now;
		return;
	}
	if (now - fs->seen_ns < FLUSH_AFTER_NS || fs->w.pos == 0)
		return;
	r = ftf_force_switch_buffers(&fs->w);
	if (r)
		write_failed(fs, r);
	fs->seen_ns = now;
}

/* ---- --rings N: the ring shards (shard_set.h), passed through ---- */

static int file_shards_open(struct ftfb_sink *s, unsigned n, char *err,
			    size_t errlen)
{
	struct file_sink *fs = file_of(s);

	return ftfb_shard_set_new(&fs->shards, fs->tr, n, err, errlen);
}

static int file_shard_event(struct ftfb_sink *s, unsigned i, const void *data,
			    size_t size)
{
	return ftfb_shard_set_event(file_of(s)->shards, i, data, size);
}

static void file_shard_tick(struct ftfb_sink *s, unsigned i, uint64_t now)
{
	ftfb_shard_set_tick(file_of(s)->shards, i, now);
}

static void file_shard_done(struct ftfb_sink *s, unsigned i)
{
	ftfb_shard_set_done(file_of(s)->shards, i);
}

/* After an output error the shards' records are dropped as they come
 * (they must not wait for room that never comes). */
static void file_shards_collect(struct ftfb_sink *s)
{
	struct file_sink *fs = file_of(s);
	int r = ftfb_shard_set_collect(fs->shards, s->err || !fs->writer_open);

	if (r)
		write_failed(fs, r);
}

/* Snapshots are the flight recorder's: a SIGUSR1 is said (once) and
 * ignored (its default would kill). */
static void file_request(struct ftfb_sink *s, const char *why)
{
	struct file_sink *fs = file_of(s);

	(void)why;
	if (fs->usr1_said)
		return;
	fs->usr1_said = true;
	fprintf(stderr,
		"ftf-bpf: SIGUSR1 ignored: snapshots are for the flight recorder (-F DUR)\n");
}

static int file_commit(struct ftfb_sink *s, char *err, size_t errlen)
{
	struct file_sink *fs = file_of(s);

	return fs->writer_open && ftfb_output_commit(&fs->out, err, errlen) ? -1
									      : 0;
}

static int file_finish(struct ftfb_sink *s, uint64_t now_ns, const char *why)
{
	struct file_sink *fs = file_of(s);

	(void)why;
	if (s->err || !fs->tr)
		return 0;
	if (ftfb_translator_titles(fs->tr, TITLES_AT_FINISH, true) ||
	    ftfb_translator_finish(fs->tr, now_ns))
		return write_failed(fs, -EIO);
	return 0;
}

static int file_close_output(struct ftfb_sink *s)
{
	struct file_sink *fs = file_of(s);
	int r;

	if (!fs->writer_open)
		return 0;
	fs->writer_open = false;
	r = ftf_writer_close(&fs->w);
	ftfb_output_discard(&fs->out); /* a start that failed */
	return r ? write_failed(fs, r) : 0;
}

/* (the shards' counts are read once their threads have ended) */
static const uint64_t *file_by_kind(const struct ftfb_sink *s)
{
	struct file_sink *fs = file_of((struct ftfb_sink *)s);
	const uint64_t *t = ftfb_translator_stats(fs->tr)->by_kind;

	memcpy(fs->by_kind, t, sizeof(fs->by_kind));
	ftfb_shard_set_add_by_kind(fs->shards, fs->by_kind);
	return fs->by_kind;
}

static uint64_t file_bytes(const struct ftfb_sink *s)
{
	const struct file_sink *fs = cfile_of(s);

	/* gzip: what reached the file; plain: also the writer's buffer */
	return ftfb_output_file_bytes(&fs->out) +
	       (fs->out.gzip ? 0 : fs->w.pos);
}

static void file_summary(const struct ftfb_sink *s,
			 const struct ftfb_report_ctx *ctx, FILE *f)
{
	const struct file_sink *fs = cfile_of(s);
	struct ftfb_shard_stats sum = {0};
	uint64_t waits = 0;
	unsigned n = ftfb_shard_set_stats(fs->shards, &sum, &waits);

	report_translator(f, fs->tr, fs->funcs, fs->nfuncs, fs->nusdt, ctx);
	if (n)
		report_shards(f, n, &sum, waits);
	report_stacks(f, fs->stacks, ctx);
	report_written(f, fs->path, fs->out.gzip,
		       ftfb_output_record_bytes(&fs->out));
}

static void file_free(struct ftfb_sink *s)
{
	struct file_sink *fs = file_of(s);

	if (!s)
		return;
	file_close_output(s);
	ftfb_shard_set_free(fs->shards);
	ftfb_output_free(&fs->out);
	ftfb_translator_destroy(fs->tr);
	ftfb_stackprof_free(fs->stacks);
	free(fs);
}

static const struct ftfb_sink_ops file_ops = {
	.start = file_start,
	.add_task = file_add_task,
	.event = file_event,
	.drops = file_drops,
	.tick = file_tick,
	.request = file_request,
	.commit = file_commit,
	.finish = file_finish,
	.close_output = file_close_output,
	.shards_open = file_shards_open,
	.shard_event = file_shard_event,
	.shard_tick = file_shard_tick,
	.shard_done = file_shard_done,
	.shards_collect = file_shards_collect,
	.by_kind = file_by_kind,
	.bytes = file_bytes,
	.summary = file_summary,
	.free = file_free,
};

int ftfb_sink_file_open(struct ftfb_sink **out, const char *path,
			bool compress, const struct ftf_clock *clock,
			char *err, size_t errlen)
{
	struct file_sink *fs = calloc(1, sizeof(*fs));
	struct ftf_writer_options wo;

	*out = NULL;
	if (!fs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fs->base.ops = &file_ops;
	fs->base.bytes_label = "";
	fs->path = path;
	if (ftfb_output_open(&fs->out, path, compress, true, err, errlen)) {
		free(fs);
		return -1;
	}
	memset(&wo, 0, sizeof(wo));
	wo.provider_name = "ftf-bpf";
	wo.num_temp_strs = -1;
	wo.clock = clock;
	if (ftf_writer_init(&fs->w, ftfb_output_dest(&fs->out), &wo)) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 ftf_writer_error(&fs->w));
		ftf_writer_close(&fs->w);
		ftfb_output_discard(&fs->out);
		free(fs);
		return -1;
	}
	fs->writer_open = true;
	*out = &fs->base;
	return 0;
}
