// SPDX-License-Identifier: MIT
/*
 * test_events_tr.c - the translator's --events handlers, fed raw events
 * built here: block requests on tracks of their process and of their disk
 * (overlapping ones on different tracks, a track reused once free), an
 * fsync's flush named flush; interrupts as slices on their cpu's pseudo
 * thread; rss changes as counters in bytes; blocking faults as slices.
 */
#include <unistd.h>

#include "tr_harness.h"

#define DEV_VDA ((254u << 20) | 0) /* major 254, minor 0 */
#define VDA_PID (0x7c000000u + (254u << 12))
#define IRQ_PID 0x7b000000u

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

#define KOBJ_PROCESS 1
#define KOBJ_THREAD 2

/* a uint32 argument (the reader keeps it in the union's 32-bit member) */
static uint32_t u32arg(const struct trec *r, const char *name)
{
	const struct targ *a = tr_arg(r, name);

	assert_non_null(a);
	return (uint32_t)a->u64;
}

static const struct trec *complete(const struct tr *h, size_t i)
{
	return tr_nth(h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE, i);
}

static void requests_take_free_tracks(void **state)
{
	const struct trec *b, *a, *c, *f, *d;
	struct ftfb_translator_opts o = { 0 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	/* B [2000, 4000] completes before A [1000, 5000]; C [6000, 7000]
	 * starts after B's track is free; then an fsync's flush */
	ev_blk(&h, 2000, 2500, 4000, 100, 1, 65536, FTFB_BLK_SYNC);
	ev_blk(&h, 1000, 1200, 5000, 100, 0, 4096, 0);
	ev_blk(&h, 6000, 6100, 7000, 100, 1, 8192, 0);
	ev_blk(&h, 7500, 7600, 8000, 100, 1, 0,
	       FTFB_BLK_SYNC | FTFB_BLK_PREFLUSH);
	tr_finish(&h, 9000);
	/* each request twice: its process, then its disk */
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE), 8);
	b = complete(&h, 0);
	d = complete(&h, 1);
	a = complete(&h, 2);
	c = complete(&h, 4);
	f = complete(&h, 6);
	assert_string_equal(b->name, "write");
	assert_string_equal(b->cat, "block");
	assert_int_equal(b->pid, 100);
	assert_int_equal(b->ts, 2000);
	assert_int_equal(b->extra, 4000);
	assert_int_equal(u32arg(b, "bytes"), 65536);
	assert_int_equal(tr_arg(b, "queue_ns")->u64, 500);
	assert_int_equal(tr_arg(b, "device_ns")->u64, 1500);
	assert_int_equal(u32arg(b, "tid"), 100);
	assert_int_equal(u32arg(b, "flags"), FTFB_BLK_SYNC);
	assert_string_equal(a->name, "read");
	assert_int_equal(a->pid, 100);
	/* A overlaps B: another track; C reuses B's */
	assert_true(a->tid != b->tid);
	assert_int_equal(c->tid, b->tid);
	assert_string_equal(tr_kobj_name(&h, KOBJ_THREAD, b->tid), "block I/O");
	/* the disk's view */
	assert_int_equal(d->pid, VDA_PID);
	assert_string_equal(d->name, "write");
	assert_int_equal(d->ts, 2000);
	assert_string_equal(tr_kobj_name(&h, KOBJ_PROCESS, VDA_PID), "disk vda");
	assert_string_equal(f->name, "flush");
	tr_free(&h);
}

/* Requests all in flight together take a track each, in their process
 * and on their disk: 1024 tracks in all hold 512 of them; the others are
 * counted, never written over another (the summary says so). */
static void requests_past_the_tracks_are_counted(void **state)
{
	struct ftfb_translator_opts o = { 0 };
	const unsigned n = FTFB_MAX_TRACKS / 2 + 8;
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	for (unsigned i = 0; i < n; i++)
		ev_blk(&h, 1000, 1100, 2000 + i, 100, 1, 4096, 0);
	tr_finish(&h, 9000);
	assert_int_equal(tr_count(&h, FTF_REC_EVENT, FTF_EVENT_DURATION_COMPLETE),
			 FTFB_MAX_TRACKS);
	assert_int_equal(h.t.st.tracks_full, 2 * 8);
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
	const struct trec *hard, *soft;
	struct ftfb_translator_opts o = { 0 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", "app");
	/* a hard interrupt [1100, 1200] inside NET_RX (vector 3)
	 * [1000, 1500] on cpu 1: the inner one ends first */
	ev_irq(&h, 1100, 1200, 1, 0, 36, "virtio1-req.0");
	ev_irq(&h, 1000, 1500, 1, 1, 3, NULL);
	tr_finish(&h, 2000);
	hard = complete(&h, 0);
	soft = complete(&h, 1);
	assert_string_equal(hard->name, "virtio1-req.0");
	assert_string_equal(hard->cat, "irq");
	assert_int_equal(hard->ts, 1100);
	assert_int_equal(hard->extra, 1200);
	assert_int_equal(u32arg(hard, "nr"), 36);
	assert_int_equal(u32arg(hard, "interrupted_tid"), 100);
	assert_string_equal(soft->name, "NET_RX");
	assert_string_equal(soft->cat, "softirq");
	assert_int_equal(hard->tid, IRQ_PID + 1 + 1);
	assert_int_equal(soft->tid, hard->tid);
	assert_int_equal(hard->pid, IRQ_PID);
	assert_string_equal(tr_kobj_name(&h, KOBJ_THREAD, hard->tid), "cpu 1 irq");
	assert_string_equal(tr_kobj_name(&h, KOBJ_PROCESS, IRQ_PID), "interrupts");
	tr_free(&h);
}

static void memory_counters_and_faults(void **state)
{
	const struct trec *c, *f;
	struct ftfb_translator_opts o = { 0 };
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_take_free_tracks),
		cmocka_unit_test(requests_past_the_tracks_are_counted),
		cmocka_unit_test(interrupts_on_their_cpu),
		cmocka_unit_test(memory_counters_and_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
