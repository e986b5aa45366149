// SPDX-License-Identifier: MIT
/*
 * sink_flight.c - the flight recorder as a sink (sink.h): the events
 * kept for the window, snapshots on SIGUSR1, at a trigger and at the stop.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flight.h"
#include "monotime.h"
#include "sink.h"

struct flight_sink {
	struct ftfb_sink base;
	struct ftfb_flight_opts fo; /* tr and stacks come at start */
	struct ftfb_stackprof_opts stacks;
	struct ftfb_flight *f;
};

static struct flight_sink *flight_of(struct ftfb_sink *s)
{
	return (struct flight_sink *)s;
}

static const struct ftfb_flight *cflight(const struct ftfb_sink *s)
{
	return ((const struct flight_sink *)s)->f;
}

static int flight_start(struct ftfb_sink *s,
			const struct ftfb_translator_opts *to,
			const struct ftfb_stackprof_opts *stacks, char *err,
			size_t errlen)
{
	struct flight_sink *fl = flight_of(s);

	fl->fo.tr = *to;
	/* a snapshot learns its tasks through its lookup, not add_task: it
	 * cannot tell the traced ones (every task would be a stranger) */
	fl->fo.tr.strangers_apart = false;
	fl->fo.start_ns = ftfb_mono_ns();
	if (stacks) {
		fl->stacks = *stacks;
		fl->fo.stacks = &fl->stacks;
	}
	return ftfb_flight_open(&fl->f, &fl->fo, err, errlen) ? -1 : 0;
}

static int flight_add_task(struct ftfb_sink *s,
			   const struct ftfb_task_info *ti)
{
	return ftfb_flight_add_task(flight_of(s)->f, ti);
}

static int flight_event(struct ftfb_sink *s, const void *data, size_t size)
{
	int r = ftfb_flight_event(flight_of(s)->f, data, size);

	if (r)
		ftfb_sink_fail(s, r, "the flight recorder failed: %s",
			       strerror(-r));
	return r;
}

static int flight_drops(struct ftfb_sink *s, uint64_t now_ns,
			const uint64_t drops[FTFB_EV_KIND_MAX])
{
	(void)now_ns;
	ftfb_flight_set_drops(flight_of(s)->f, drops);
	return 0;
}

static void flight_tick(struct ftfb_sink *s, uint64_t now_ns)
{
	ftfb_flight_tick(flight_of(s)->f, now_ns);
}

static void flight_request(struct ftfb_sink *s, const char *why)
{
	ftfb_flight_request(flight_of(s)->f, why);
}

static int flight_commit(struct ftfb_sink *s, char *err, size_t errlen)
{
	(void)s; /* each snapshot puts its own file in place */
	(void)err;
	(void)errlen;
	return 0;
}

static int flight_finish(struct ftfb_sink *s, uint64_t now_ns,
			 const char *why)
{
	return ftfb_flight_finish(flight_of(s)->f, now_ns, why);
}

static int flight_close_output(struct ftfb_sink *s)
{
	(void)s; /* each snapshot closed its own file */
	return 0;
}

static const uint64_t *flight_by_kind(const struct ftfb_sink *s)
{
	return ftfb_flight_by_kind(cflight(s));
}

static uint64_t flight_bytes(const struct ftfb_sink *s)
{
	return ftfb_flight_held_bytes(cflight(s));
}

static void flight_summary(const struct ftfb_sink *s,
			   const struct ftfb_report_ctx *ctx, FILE *f)
{
	(void)ctx;
	ftfb_flight_summary(cflight(s), f);
}

static void flight_free(struct ftfb_sink *s)
{
	if (!s)
		return;
	ftfb_flight_close(flight_of(s)->f);
	free(s);
}

static const struct ftfb_sink_ops flight_ops = {
	.start = flight_start,
	.add_task = flight_add_task,
	.event = flight_event,
	.drops = flight_drops,
	.tick = flight_tick,
	.request = flight_request,
	.commit = flight_commit,
	.finish = flight_finish,
	.close_output = flight_close_output,
	.by_kind = flight_by_kind,
	.bytes = flight_bytes,
	.summary = flight_summary,
	.free = flight_free,
};

/* The snapshots are written next to -o's name, later: the folder must
 * take files now, not when the first snapshot is due. */
static int check_snapshot_folder(const char *output, char *err,
				 size_t errlen)
{
	char dir[PATH_MAX], first[PATH_MAX];
	const char *slash = strrchr(output, '/');

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - output) : 1,
		 slash ? output : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	ftfb_flight_snapshot_path(output, 1, first, sizeof(first));
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen,
			 "cannot write snapshots like %.300s: folder %.300s: %s",
			 first, dir, strerror(errno));
		return -1;
	}
	return 0;
}

int ftfb_sink_flight_open(struct ftfb_sink **out,
			  const struct ftfb_flight_opts *fo, char *err,
			  size_t errlen)
{
	struct flight_sink *fl;

	*out = NULL;
	if (check_snapshot_folder(fo->output, err, errlen))
		return -1;
	fl = calloc(1, sizeof(*fl));
	if (!fl) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fl->base.ops = &flight_ops;
	fl->base.bytes_label = " held";
	fl->fo = *fo;
	*out = &fl->base;
	return 0;
}
