// SPDX-License-Identifier: MIT
/*
 * tests/bpf/test_longjmp.c - real uprobes on a function that longjmps out
 * to a setjmp in its caller: its returns never come. The events go
 * through the translator, which must end each abandoned call (unfinished)
 * when the next call comes at the same stack pointer: the slices stay
 * balanced and the thread's open call depth never grows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../translate/tr_harness.h"
#include "common.h"
#include "offset.h"

#define JUMPS 50

static jmp_buf jb;
static volatile long sink;

/* Longjmps out to ftfb_lj_outer unless i == JUMPS. */
__attribute__((noinline, used)) long ftfb_lj_jumper(long i)
{
	__asm__ volatile("" ::: "memory");
	if (i < JUMPS)
		longjmp(jb, 1);
	return i + 1;
}

static long (*volatile jumper_fn)(long) = ftfb_lj_jumper;

__attribute__((noinline, used)) long ftfb_lj_outer(void)
{
	volatile long i;

	for (i = 0; i < JUMPS; i++)
		if (!setjmp(jb))
			sink = jumper_fn(i);
	sink = jumper_fn(JUMPS);
	__asm__ volatile("" ::: "memory");
	return sink + 1000;
}

static long (*volatile outer_fn)(void) = ftfb_lj_outer;

static const struct ftfb_func funcs[] = {
	{"outer", "lj"},
	{"jumper", "lj"},
};

struct feed {
	struct tr *h;
	uint32_t tid;
	uint32_t max_depth;
	size_t uprobe_events;
};

static int feed_event(void *ctx, const void *data, size_t size)
{
	struct feed *f = ctx;
	const struct ftfb_hdr *hd = data;
	struct ftfb_task *k;
	int err;

	if (hd->tid != f->tid ||
	    (hd->kind != FTFB_EV_UENTRY && hd->kind != FTFB_EV_URET))
		return 0;
	f->uprobe_events++;
	err = ftfb_translator_event(&f->h->t, data, size);
	if (err)
		return err;
	k = ftfb_pt_find(&f->h->t.pt, f->tid);
	if (k && k->depth > f->max_depth)
		f->max_depth = k->depth;
	return 0;
}

static void attach(struct ftfb_loader *l, const void *fn, uint64_t cookie)
{
	char path[4096], err[256] = "";
	uint64_t off;
	int rc;

	assert_int_equal(file_offset_of(fn, path, sizeof(path), &off), 0);
	rc = ftfb_loader_attach_uprobes(l, path, &off, &cookie, 1, getpid(),
					err, sizeof(err));
	if (rc)
		fprintf(stderr, "attach: %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	ftfb_loader_arm_uprobes(l, true);
}

static void test_longjmp_balanced(void **state)
{
	struct ftfb_loader_opts lo = {.uprobe_nargs = 1};
	struct ftfb_translator_opts o = {.funcs = funcs, .nfuncs = 2};
	struct ftfb_loader *l = NULL;
	struct tr_lookup_ent who;
	size_t unfinished = 0, rets = 0;
	struct feed f = {0};
	char err[256] = "";
	struct tr h;
	int rc, n;

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: real BPF tests need root\n");
		skip();
	}
	rc = ftfb_loader_open(&l, &lo, err, sizeof(err));
	if (rc == -EPERM) {
		fprintf(stderr, "SKIP: %s\n", err);
		skip();
	}
	assert_int_equal(rc, 0);
	attach(l, (const void *)ftfb_lj_outer, 0);
	attach(l, (const void *)ftfb_lj_jumper, 1);
	assert_int_equal(outer_fn(), JUMPS + 1 + 1000);

	tr_setup(&h, &o);
	who = (struct tr_lookup_ent){gettid(), getpid(), "test_longjmp",
				     NULL};
	h.lookup = &who;
	h.nlookup = 1;
	f.h = &h;
	f.tid = gettid();
	do {
		n = ftfb_loader_drain(l, feed_event, &f);
		assert_true(n >= 0);
	} while (n > 0);
	ftfb_loader_close(l);
	tr_finish(&h, 0); /* before finish: nothing may be left open */

	/* outer + JUMPS + 1 jumper entries; jumper's last return, outer's */
	assert_int_equal(f.uprobe_events, 1 + (JUMPS + 1) + 2);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_BEGIN),
			 JUMPS + 2);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_END),
			 JUMPS + 2);
	for (size_t i = 0; i < h.nrecs; i++) {
		const struct trec *r = &h.recs[i];
		const struct targ *a;

		if (r->type != FTF_REC_EVENT ||
		    r->sub != FTF_EVENT_DURATION_END)
			continue;
		a = tr_arg(r, "unfinished");
		if (a && a->b) {
			assert_string_equal(r->name, "jumper");
			unfinished++;
		} else {
			assert_non_null(tr_arg(r, "ret"));
			rets++;
		}
	}
	printf("longjmp: %zu uprobe events, max depth %u, %zu unfinished, "
	       "%zu returned\n",
	       f.uprobe_events, f.max_depth, unfinished, rets);
	assert_int_equal(unfinished, JUMPS);
	assert_int_equal(rets, 2);
	assert_true(f.max_depth <= 3);
	assert_int_equal(h.t.st.unmatched_returns, 0);
	assert_int_equal(h.t.st.depth_capped, 0);
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longjmp_balanced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
