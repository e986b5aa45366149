// SPDX-License-Identifier: MIT
/*
 * tests/bpf/uprobe_cost.c - the kernel run time of the uprobe entry and
 * return programs per call (BPF statistics: run_time_ns / run_cnt), on an
 * empty noinline function of this binary. Not a test: a measurement.
 *
 *   uprobe_cost [CALLS [NARGS [filter|all [RING_BYTES]]]]
 *   (root; default 200000 6 all 0 = the loader's default ring size)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "common.h"
#include "offset.h"

__attribute__((noinline, used)) long ftfb_cost_target(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

static long (*volatile fn)(long, long) = ftfb_cost_target;
static volatile long sink;

static int count_ev(void *ctx, const void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(size_t *)ctx)++;
	return 0;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	struct ftfb_loader_opts o = {
		.uprobe_nargs = argc > 2 ? atoi(argv[2]) : 6,
		.filter_tgids = argc > 3 && !strcmp(argv[3], "filter"),
		.ring_bytes = argc > 4 ? strtoul(argv[4], NULL, 0) : 0,
	};
	struct ftfb_prog_stats se, sr;
	struct ftfb_loader *l;
	uint64_t off, cookie = 1;
	uint64_t drops[FTFB_EV_KIND_MAX];
	char path[4096], err[256];
	size_t events = 0;
	int stats_fd, rc;

	rc = ftfb_loader_open(&l, &o, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "uprobe_cost: %s\n", err);
		return 1;
	}
	if (o.filter_tgids)
		ftfb_loader_trace_tgid(l, getpid());
	if (file_offset_of((const void *)ftfb_cost_target, path, sizeof(path),
			   &off) ||
	    ftfb_loader_attach_uprobes(l, path, &off, &cookie, 1, -1, err,
				       sizeof(err))) {
		fprintf(stderr, "uprobe_cost: attach: %s\n", err);
		ftfb_loader_close(l);
		return 1;
	}
	ftfb_loader_arm_uprobes(l, true);
	/* statistics on while this fd is open */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "uprobe_cost: BPF_ENABLE_STATS: %s\n",
			strerror(errno));
		ftfb_loader_close(l);
		return 1;
	}
	for (long i = 0; i < calls; i++) {
		sink = fn(i, 1);
		if (i % 10000 == 9999)
			ftfb_loader_poll(l, 0, count_ev, &events);
	}
	ftfb_loader_drain(l, count_ev, &events);
	ftfb_loader_uprobe_stats(l, &se, &sr);
	ftfb_loader_counters(l, drops, NULL);
	close(stats_fd);
	printf("%ld calls (%s links, nargs %d%s): %zu events, %llu dropped\n",
	       calls, ftfb_loader_uprobe_multi(l) ? "uprobe_multi" : "single",
	       o.uprobe_nargs, o.filter_tgids ? ", tgid filter" : "", events,
	       (unsigned long long)(drops[FTFB_EV_UENTRY] +
				    drops[FTFB_EV_URET]));
	printf("entry  %.1f ns/call (%llu runs)\nreturn %.1f ns/call (%llu "
	       "runs)\ntotal  %.1f ns/call\n",
	       se.run_cnt ? (double)se.run_time_ns / se.run_cnt : 0.0,
	       (unsigned long long)se.run_cnt,
	       sr.run_cnt ? (double)sr.run_time_ns / sr.run_cnt : 0.0,
	       (unsigned long long)sr.run_cnt,
	       (se.run_cnt ? (double)se.run_time_ns / se.run_cnt : 0.0) +
		       (sr.run_cnt ? (double)sr.run_time_ns / sr.run_cnt :
				     0.0));
	ftfb_loader_close(l);
	return 0;
}
