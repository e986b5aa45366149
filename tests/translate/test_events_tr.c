// SPDX-License-Identifier: MIT
/*
 * test_events_tr.c - the translator's --events handlers, fed raw events
 * built here: block requests on named tracks of their process and of
 * their disk (overlapping ones on different siblings, a sibling reused once
 * free), an fsync's flush named flush; interrupts as slices on their
 * cpu's named track, no made-up pid or tid anywhere; rss changes as counters in bytes; blocking faults as slices.
 */
#include <errno.h>
#include <unistd.h>

#include "tr_harness.h"
#include "../stacks/perfetto_bytes.h"
#include "nt_slices.h"
#include "blockio.h"
#include "irq.h"
#include "mem.h"

/* the sources' translators, as the source table hands them over */
extern const struct ftfb_tr_source ftfb_tr_blockio, ftfb_tr_irq, ftfb_tr_mem;
static const struct ftfb_tr_source *const sources[] = {
	&ftfb_tr_blockio, &ftfb_tr_irq, &ftfb_tr_mem
};
#define EVENTS_OPTS { .sources = sources, .nsources = 3 }

#define DEV_VDA ((254u << 20) | 0) /* major 254, minor 0 */

static void ev_blk(struct tr *h, uint64_t start, uint64_t issue, uint64_t end,
		   uint32_t tid, uint8_t op, uint32_t bytes, uint8_t flags)
{
	struct ftfb_block_io e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_BLOCK_IO, end, 0, tid, tid);
	e.start_ns = start;
	e.issue_ns = issue;
	e.sector = 2048;
	e.bytes = bytes;
	e.dev = DEV_VDA;
	e.op = op;
	e.flags = flags;
	memcpy(e.disk, "vda", 4);
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static const struct trec *complete(const struct tr *h, size_t i)
{
	return tr_nth(h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE, i);
}

/* No thread or process record names a made-up id: every kernel object
 * is a task of the test's. */
static void no_pseudo_ids(const struct tr *h)
{
	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == FTF_REC_KERNEL_OBJECT)
			assert_true(h->recs[i].koid < (1u << 22));
}

static void requests_take_free_siblings(void **state)
{
	const struct nt_slice *b, *d, *a, *c, *f;
	struct ftfb_translator_opts o = EVENTS_OPTS;
	static struct nt_view v;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	/* B [2000, 4000] completes before A [1000, 5000]; C [6000, 7000]
	 * starts after B's sibling is free; then an fsync's flush */
	ev_blk(&h, 2000, 2500, 4000, 100, 1, 65536, FTFB_BLK_SYNC);
	ev_blk(&h, 1000, 1200, 5000, 100, 0, 4096, 0);
	ev_blk(&h, 6000, 6100, 7000, 100, 1, 8192, 0);
	ev_blk(&h, 7500, 7600, 8000, 100, 1, 0,
	       FTFB_BLK_SYNC | FTFB_BLK_PREFLUSH);
	tr_finish(&h, 9000);
	nt_view(&h.mem, &v);
	/* each request twice: its process's track, then its disk's; none
	 * on a thread */
	assert_int_equal(v.nslices, 8);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 0);
	b = &v.slices[0];
	d = &v.slices[1];
	a = &v.slices[2];
	c = &v.slices[4];
	f = &v.slices[6];
	assert_string_equal(b->name, "write");
	assert_string_equal(b->cat, "block");
	assert_string_equal(b->track_name, "block I/O");
	assert_int_equal(b->pid, 100);
	assert_int_equal(b->begin, 2000);
	assert_int_equal(b->end, 4000);
	assert_int_equal(nt_arg(b, "bytes"), 65536);
	assert_int_equal(nt_arg(b, "queue_ns"), 500);
	assert_int_equal(nt_arg(b, "device_ns"), 1500);
	assert_int_equal(nt_arg(b, "tid"), 100);
	assert_int_equal(nt_arg(b, "flags"), FTFB_BLK_SYNC);
	assert_string_equal(nt_arg_s(b, "disk"), "vda");
	assert_string_equal(a->name, "read");
	assert_int_equal(a->pid, 100);
	/* A overlaps B: another sibling (of the same name); C reuses B's */
	assert_true(a->track != b->track);
	assert_string_equal(a->track_name, "block I/O");
	assert_int_equal(c->track, b->track);
	/* the disk's view: a track at the top, of no process */
	assert_int_equal(d->pid, 0);
	assert_string_equal(d->track_name, "disk vda");
	assert_string_equal(d->name, "write");
	assert_int_equal(d->begin, 2000);
	assert_string_equal(f->name, "flush");
	no_pseudo_ids(&h);
	tr_free(&h);
}

/* Requests all in flight together take a sibling each, all of one name
 * (Perfetto shows them as one track): none refused. */
static void requests_in_flight_together_all_written(void **state)
{
	struct ftfb_translator_opts o = EVENTS_OPTS;
	const unsigned n = 30;
	static struct nt_view v;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	for (unsigned i = 0; i < n; i++)
		ev_blk(&h, 1000, 1100, 2000 + i, 100, 1, 4096, 0);
	tr_finish(&h, 9000);
	nt_view(&h.mem, &v);
	assert_int_equal(v.nslices, 2 * n);
	assert_int_equal(h.t.ntracks.n, 2 * n);
	for (int i = 0; i < v.nslices; i++)
		assert_string_equal(v.slices[i].track_name,
				    i % 2 ? "disk vda" : "block I/O");
	tr_free(&h);
}

static void ev_irq(struct tr *h, uint64_t start, uint64_t end, uint16_t cpu,
		   uint8_t soft, uint32_t nr, const char *name)
{
	struct ftfb_irq e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_IRQ, end, cpu, 100, 100);
	e.start_ns = start;
	e.nr = nr;
	e.soft = soft;
	if (name)
		strncpy(e.name, name, sizeof(e.name) - 1);
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static void interrupts_on_their_cpu(void **state)
{
	const struct nt_slice *hard, *soft;
	struct ftfb_translator_opts o = EVENTS_OPTS;
	static struct nt_view v;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	/* a hard interrupt [1100, 1200] inside NET_RX (vector 3)
	 * [1000, 1500] on cpu 1: the inner one ends first */
	ev_irq(&h, 1100, 1200, 1, 0, 36, "virtio1-req.0");
	ev_irq(&h, 1000, 1500, 1, 1, 3, NULL);
	tr_finish(&h, 2000);
	nt_view(&h.mem, &v);
	assert_int_equal(v.nslices, 2);
	hard = &v.slices[0];
	soft = &v.slices[1];
	assert_string_equal(hard->name, "virtio1-req.0");
	assert_string_equal(hard->cat, "irq");
	assert_int_equal(hard->begin, 1100);
	assert_int_equal(hard->end, 1200);
	assert_int_equal(nt_arg(hard, "nr"), 36);
	assert_int_equal(nt_arg(hard, "interrupted_tid"), 100);
	assert_string_equal(soft->name, "NET_RX");
	assert_string_equal(soft->cat, "softirq");
	/* one track name per cpu, at the top, no pseudo process */
	assert_string_equal(hard->track_name, "cpu 1 interrupts");
	assert_string_equal(soft->track_name, "cpu 1 interrupts");
	assert_int_equal(hard->pid, 0);
	no_pseudo_ids(&h);
	tr_free(&h);
}

static void memory_counters_and_faults(void **state)
{
	const struct trec *c, *f;
	struct ftfb_translator_opts o = EVENTS_OPTS;
	struct ftfb_fault fe;
	struct ftfb_rss re;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	memset(&re, 0, sizeof(re));
	tr_hdr(&re.hdr, FTFB_EV_RSS, 1000, 0, 100, 100);
	re.member = FTFB_RSS_ANON;
	re.pages = 300;
	assert_int_equal(ftfb_translator_event(&h.t, &re, sizeof(re)), 0);
	memset(&fe, 0, sizeof(fe));
	tr_hdr(&fe.hdr, FTFB_EV_FAULT, 5000, 0, 100, 100);
	fe.start_ns = 2000;
	fe.blocked_ns = 2500;
	fe.addr = 0x7f0000001000;
	fe.error = 6; /* user write to a page not present */
	assert_int_equal(ftfb_translator_event(&h.t, &fe, sizeof(fe)), 0);
	tr_finish(&h, 6000);
	c = tr_nth(&h, FTF_REC_EVENT, FTF_EVENT_COUNTER, 0);
	assert_non_null(c);
	assert_string_equal(c->name, "rss");
	assert_int_equal(c->pid, 100);
	assert_int_equal(tr_arg(c, "anon")->i64, 300 * sysconf(_SC_PAGESIZE));
	f = complete(&h, 0);
	assert_string_equal(f->name, "page fault");
	assert_string_equal(f->cat, "mm");
	assert_int_equal(f->tid, 100);
	assert_int_equal(f->ts, 2000);
	assert_int_equal(f->extra, 5000);
	assert_int_equal(tr_arg(f, "blocked_ns")->u64, 2500);
	assert_int_equal(tr_arg(f, "address")->u64, 0x7f0000001000);
	assert_true(tr_arg(f, "write")->b);
	tr_free(&h);
}

/* A source's kinds reach the translator only through its options: an
 * irq event is skipped without the irq source, handled with it; two
 * sources claiming one kind are refused at init. */
static void source_kinds_come_from_the_options(void **state)
{
	static const struct ftfb_tr_source *const twice[] = { &ftfb_tr_irq,
							      &ftfb_tr_irq };
	struct ftfb_translator_opts o = { 0 }, o2 = { .sources = twice,
						     .nsources = 2 };
	struct ftfb_translator t2;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	ev_irq(&h, 1000, 2000, 0, 1, 1, NULL);
	assert_int_equal(h.t.st.skipped, 1);
	assert_int_equal(h.t.st.by_kind[FTFB_EV_IRQ], 0);
	o2.w = &h.w;
	assert_int_equal(ftfb_translator_init(&t2, &o2), -EINVAL);
	tr_free(&h);
	o = (struct ftfb_translator_opts)EVENTS_OPTS;
	tr_setup(&h, &o);
	ev_irq(&h, 1000, 2000, 0, 1, 1, NULL);
	assert_int_equal(h.t.st.skipped, 0);
	assert_int_equal(h.t.st.by_kind[FTFB_EV_IRQ], 1);
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_take_free_siblings),
		cmocka_unit_test(requests_in_flight_together_all_written),
		cmocka_unit_test(interrupts_on_their_cpu),
		cmocka_unit_test(memory_counters_and_faults),
		cmocka_unit_test(source_kinds_come_from_the_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
