/* SPDX-License-Identifier: MIT */
/*
 * tests/translate/tr_harness.h - translator unit-test harness: a writer on a
 * memory destination with a hand-built clock, a fake /proc lookup, raw
 * event builders, and a decoder that reads the output back through the
 * project's reader into plain structs (names copied, since temporary
 * string slots are redefined as the trace goes).
 */
#ifndef TESTS_SCHED_TR_HARNESS_H
#define TESTS_SCHED_TR_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/destination.h"
#include "ftf/reader.h"
#include "ftf/writer.h"
#include "translate.h"
#include "translate_priv.h" /* white-box: the translator's state */

/* ---- decoded records ---- */

struct targ {
	char name[32];
	unsigned type;
	int64_t i64;  /* int32 / int64 */
	uint64_t u64; /* koid, uint64 */
	bool b;
};

struct trec {
	unsigned type; /* record type */
	unsigned sub;  /* event type / sched subtype / obj type / meta */
	uint64_t ts;
	uint64_t pid, tid; /* event thread */
	char name[80];
	char cat[32];
	unsigned cpu, out_state;
	uint64_t out_koid, in_koid, koid, extra;
	uint64_t init_tps, init_base;
	unsigned nargs;
	struct targ args[FTF_READER_MAX_ARGS];
};

struct tr_lookup_ent {
	uint32_t tid, tgid;
	const char *comm, *pname;
};

struct tr {
	struct ftf_clock clock;
	uint64_t now;
	struct ftf_dest_mem mem;
	struct ftf_writer w;
	struct ftfb_translator t;
	const struct tr_lookup_ent *lookup;
	size_t nlookup;
	struct trec *recs;
	size_t nrecs;
};

static inline uint64_t tr_now(const struct ftf_clock *c)
{
	return ((struct tr *)c->now_ctx)->now;
}

static inline int tr_lookup(void *ctx, uint32_t tid, struct ftfb_task_info *out)
{
	struct tr *h = ctx;

	for (size_t i = 0; i < h->nlookup; i++) {
		if (h->lookup[i].tid != tid)
			continue;
		memset(out, 0, sizeof(*out));
		out->tid = tid;
		out->tgid = h->lookup[i].tgid;
		snprintf(out->comm, sizeof(out->comm), "%s", h->lookup[i].comm);
		if (h->lookup[i].pname)
			snprintf(out->process_name, sizeof(out->process_name),
				 "%s", h->lookup[i].pname);
		return 0;
	}
	return -1;
}

/*
 * Clock: CLOCK_MONOTONIC-based, tps ticks per second, tick `ref_ticks` at
 * mono `ref_mono`. Default harness: 1e9/s, 0 at 0, so ticks == ns.
 */
static inline void tr_setup_ex(struct tr *h, struct ftfb_translator_opts *o,
			       uint64_t tps, uint64_t ref_ticks,
			       uint64_t ref_mono, bool refresh, int num_temp)
{
	struct ftf_writer_options wo = {0};

	memset(h, 0, sizeof(*h));
	h->clock.source = FTF_CLOCK_MONO;
	h->clock.ticks_per_second = tps;
	h->clock.ref_ticks = ref_ticks;
	h->clock.ref_mono_ns = ref_mono;
	h->clock.ref_realtime_ns = 1700000000000000000ll;
	h->clock.now_fn = tr_now;
	h->clock.now_ctx = h;
	ftf_dest_mem_init(&h->mem, 0);
	wo.clock = &h->clock;
	wo.no_refresh_buf_at_intervals = !refresh;
	wo.num_temp_strs = num_temp;
	assert_int_equal(ftf_writer_init(&h->w, &h->mem.base, &wo), 0);
	o->w = &h->w;
	if (!o->lookup) {
		o->lookup = tr_lookup;
		o->lookup_ctx = h;
	}
	assert_int_equal(ftfb_translator_init(&h->t, o), 0);
}

static inline void tr_setup(struct tr *h, struct ftfb_translator_opts *o)
{
	tr_setup_ex(h, o, 1000000000ull, 0, 0, false, -1);
}

static inline void tr_copy(char *dst, size_t cap, struct ftf_str s)
{
	size_t n = s.len < cap - 1 ? s.len : cap - 1;

	memcpy(dst, s.ptr, n);
	dst[n] = '\0';
}

static inline void tr_copy_args(struct trec *r, const struct ftf_args *a)
{
	r->nargs = a->count;
	for (unsigned i = 0; i < a->count; i++) {
		struct targ *d = &r->args[i];

		tr_copy(d->name, sizeof(d->name), a->a[i].name);
		d->type = a->a[i].type;
		switch (d->type) {
		case FTF_ARG_INT32:
			d->i64 = a->a[i].v.i32;
			break;
		case FTF_ARG_INT64:
			d->i64 = a->a[i].v.i64;
			break;
		case FTF_ARG_BOOL:
			d->b = a->a[i].v.b;
			break;
		default:
			d->u64 = a->a[i].v.u64;
		}
	}
}

/* Finishes the translator at `end`, closes the writer and decodes. */
static inline void tr_finish(struct tr *h, uint64_t end)
{
	struct ftf_reader rd;
	struct ftf_record rec;
	size_t cap = 1024;
	int rc;

	assert_int_equal(ftfb_translator_finish(&h->t, end), 0);
	assert_int_equal(ftf_writer_close(&h->w), 0);
	h->recs = calloc(cap, sizeof(*h->recs));
	assert_non_null(h->recs);
	assert_int_equal(ftf_reader_init(&rd, h->mem.data, h->mem.len), 0);
	while ((rc = ftf_reader_next(&rd, &rec)) == 1) {
		struct trec *r;

		if (h->nrecs == cap) {
			cap *= 2;
			h->recs = realloc(h->recs, cap * sizeof(*h->recs));
			assert_non_null(h->recs);
		}
		r = &h->recs[h->nrecs++];
		memset(r, 0, sizeof(*r));
		r->type = rec.type;
		switch (rec.type) {
		case FTF_REC_METADATA:
			r->sub = rec.u.meta.meta_type;
			r->extra = rec.u.meta.event_id;
			break;
		case FTF_REC_INIT:
			r->init_tps = rec.u.init.ticks_per_second;
			r->init_base = rec.u.init.base_ticks;
			break;
		case FTF_REC_EVENT:
			r->sub = rec.u.event.event_type;
			r->ts = rec.u.event.ts;
			r->pid = rec.u.event.pt.pid;
			r->tid = rec.u.event.pt.tid;
			r->extra = rec.u.event.extra;
			tr_copy(r->name, sizeof(r->name), rec.u.event.name);
			tr_copy(r->cat, sizeof(r->cat), rec.u.event.category);
			tr_copy_args(r, &rec.u.event.args);
			break;
		case FTF_REC_KERNEL_OBJECT:
			r->sub = rec.u.kobj.obj_type;
			r->koid = rec.u.kobj.koid;
			tr_copy(r->name, sizeof(r->name), rec.u.kobj.name);
			tr_copy_args(r, &rec.u.kobj.args);
			break;
		case FTF_REC_SCHED:
			r->sub = rec.u.sched.sched_type;
			r->ts = rec.u.sched.ts;
			r->cpu = rec.u.sched.cpu;
			r->out_state = rec.u.sched.out_state;
			r->out_koid = rec.u.sched.out_koid;
			r->in_koid = rec.u.sched.in_koid;
			tr_copy_args(r, &rec.u.sched.args);
			break;
		default:
			break;
		}
	}
	if (rc != 0)
		fail_msg("reader: %s", ftf_reader_error(&rd));
	ftf_reader_free(&rd);
}

static inline void tr_free(struct tr *h)
{
	ftfb_translator_free(&h->t);
	ftf_dest_mem_free(&h->mem);
	free(h->recs);
}

/* The i-th record (0-based) of a type/subtype; NULL if fewer. */
static inline const struct trec *tr_nth(const struct tr *h, unsigned type,
					int sub, size_t n)
{
	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == type &&
		    (sub < 0 || h->recs[i].sub == (unsigned)sub) && n-- == 0)
			return &h->recs[i];
	return NULL;
}

/* The name of kernel object koid of a type (1 process, 2 thread, as
 * the FTF spec numbers them); NULL if none was written. */
static inline const char *tr_kobj_name(const struct tr *h, unsigned type,
				       uint64_t koid)
{
	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == FTF_REC_KERNEL_OBJECT &&
		    h->recs[i].sub == type && h->recs[i].koid == koid)
			return h->recs[i].name;
	return NULL;
}

static inline size_t tr_count(const struct tr *h, unsigned type, int sub)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].type == type &&
		    (sub < 0 || h->recs[i].sub == (unsigned)sub))
			n++;
	return n;
}

static inline const struct targ *tr_arg(const struct trec *r, const char *name)
{
	for (unsigned i = 0; i < r->nargs; i++)
		if (!strcmp(r->args[i].name, name))
			return &r->args[i];
	return NULL;
}

/* ---- raw event builders (fed straight to the translator) ---- */

static inline void tr_hdr(struct ftfb_hdr *hd, uint16_t kind, uint64_t ts,
			  uint16_t cpu, uint32_t tid, uint32_t tgid)
{
	memset(hd, 0, sizeof(*hd));
	hd->kind = kind;
	hd->ts = ts;
	hd->cpu = cpu;
	hd->tid = tid;
	hd->tgid = tgid;
}

/* A switch event as the BPF side sends it (not fed). */
static inline struct ftfb_switch tr_switch(uint64_t ts, uint16_t cpu,
					   uint32_t prev, uint32_t prev_tgid,
					   uint32_t state, int prev_prio,
					   uint32_t next, uint32_t next_tgid,
					   int next_prio)
{
	struct ftfb_switch e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_SWITCH, ts, cpu, prev, prev_tgid);
	e.next_tid = next;
	e.next_tgid = next_tgid;
	e.prev_state = state;
	e.prev_prio = (int16_t)prev_prio;
	e.next_prio = (int16_t)next_prio;
	return e;
}

static inline void ev_switch(struct tr *h, uint64_t ts, uint16_t cpu,
			     uint32_t prev, uint32_t prev_tgid, uint32_t state,
			     int prev_prio, uint32_t next, uint32_t next_tgid,
			     int next_prio)
{
	struct ftfb_switch e = tr_switch(ts, cpu, prev, prev_tgid, state,
					 prev_prio, next, next_tgid, next_prio);

	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

/* A wakeup event as the BPF side sends it (not fed). */
static inline struct ftfb_wakeup tr_wakeup(uint16_t kind, uint64_t ts,
					   uint16_t cpu, uint32_t waker,
					   uint32_t waker_tgid, uint32_t target,
					   uint32_t target_tgid, int prio)
{
	struct ftfb_wakeup e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, kind, ts, cpu, waker, waker_tgid);
	e.target_tid = target;
	e.target_tgid = target_tgid;
	e.target_prio = prio;
	return e;
}

static inline void ev_wakeup(struct tr *h, uint16_t kind, uint64_t ts,
			     uint16_t cpu, uint32_t waker, uint32_t waker_tgid,
			     uint32_t target, uint32_t target_tgid, int prio)
{
	struct ftfb_wakeup e = tr_wakeup(kind, ts, cpu, waker, waker_tgid,
					 target, target_tgid, prio);

	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static inline void ev_fork(struct tr *h, uint64_t ts, uint32_t parent,
			   uint32_t parent_tgid, uint32_t child,
			   uint32_t child_tgid, const char *comm)
{
	struct ftfb_fork e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_FORK, ts, 0, parent, parent_tgid);
	e.child_tid = child;
	e.child_tgid = child_tgid;
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static inline void ev_comm(struct tr *h, uint16_t kind, uint64_t ts,
			   uint32_t tid, uint32_t tgid, uint32_t old_tid,
			   const char *comm)
{
	struct ftfb_comm_ev e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, kind, ts, 0, tid, tgid);
	e.old_tid = old_tid;
	strncpy(e.comm, comm, sizeof(e.comm) - 1);
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static inline void ev_exit(struct tr *h, uint64_t ts, uint32_t tid,
			   uint32_t tgid)
{
	struct ftfb_exit e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_EXIT, ts, 0, tid, tgid);
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

/* An exit that carries the task's names (comm, pcomm), or a taskname
 * event (kind FTFB_EV_TASKNAME). */
static inline void ev_named(struct tr *h, uint16_t kind, uint64_t ts,
			    uint32_t tid, uint32_t tgid, const char *comm,
			    const char *pcomm)
{
	struct ftfb_exit x;
	struct ftfb_taskname n;
	char *c = kind == FTFB_EV_EXIT ? x.comm : n.comm;
	char *pc = kind == FTFB_EV_EXIT ? x.pcomm : n.pcomm;

	memset(&x, 0, sizeof(x));
	memset(&n, 0, sizeof(n));
	tr_hdr(kind == FTFB_EV_EXIT ? &x.hdr : &n.hdr, kind, ts, 0, tid, tgid);
	memcpy(c, comm, strnlen(comm, FTFB_COMM_LEN - 1));
	memcpy(pc, pcomm, strnlen(pcomm, FTFB_COMM_LEN - 1));
	if (kind == FTFB_EV_EXIT)
		assert_int_equal(ftfb_translator_event(&h->t, &x, sizeof(x)),
				 0);
	else
		assert_int_equal(ftfb_translator_event(&h->t, &n, sizeof(n)),
				 0);
}

static inline void ev_entry(struct tr *h, uint64_t ts, uint32_t tid,
			    uint32_t tgid, uint32_t cookie, uint32_t nargs,
			    const uint64_t *args)
{
	struct ftfb_uentry e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_UENTRY, ts, 0, tid, tgid);
	e.cookie = cookie;
	e.nargs = nargs;
	for (uint32_t i = 0; i < nargs && i < FTFB_MAX_ARGS; i++)
		e.args[i] = args[i];
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static inline void ev_ret(struct tr *h, uint64_t ts, uint32_t tid,
			  uint32_t tgid, uint32_t cookie, uint64_t ret)
{
	struct ftfb_uret e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_URET, ts, 0, tid, tgid);
	e.cookie = cookie;
	e.ret = ret;
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

/* Entry / return with the user stack pointer (entry: the sp pointing at
 * the return address; return: that + 8), no args. */
static inline void ev_entry_sp(struct tr *h, uint64_t ts, uint32_t tid,
			       uint32_t cookie, uint64_t sp)
{
	struct ftfb_uentry e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_UENTRY, ts, 0, tid, tid);
	e.cookie = cookie;
	e.sp = sp;
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

static inline void ev_ret_sp(struct tr *h, uint64_t ts, uint32_t tid,
			     uint32_t cookie, uint64_t ret, uint64_t sp)
{
	struct ftfb_uret e;

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_URET, ts, 0, tid, tid);
	e.cookie = cookie;
	e.ret = ret;
	e.sp = sp;
	assert_int_equal(ftfb_translator_event(&h->t, &e, sizeof(e)), 0);
}

/* A USDT hit of probe `cookie` by thread tid of process tgid: n int args,
 * and with str non-NULL, argument 0 is that string. */
static inline void ev_usdt_in(struct tr *h, uint64_t ts, uint32_t tgid,
			      uint32_t tid, uint32_t cookie, int n,
			      const int64_t *args, const char *str)
{
	struct ftfb_usdt e;
	size_t size = offsetof(struct ftfb_usdt, str);

	memset(&e, 0, sizeof(e));
	tr_hdr(&e.hdr, FTFB_EV_USDT, ts, 0, tid, tgid);
	e.cookie = cookie;
	e.nargs = (uint16_t)n;
	for (int i = 0; i < n; i++)
		e.args[i] = (uint64_t)args[i];
	if (str) {
		size_t len = strlen(str) + 1;

		memcpy(e.str, str, len);
		e.args[0] = len;
		e.strmask = 1;
		e.strbytes = (uint32_t)((len + 7) & ~7u);
		size += e.strbytes;
	}
	assert_int_equal(ftfb_translator_event(&h->t, &e, size), 0);
}

static inline void tr_add(struct tr *h, uint32_t tid, uint32_t tgid,
			  const char *comm, const char *pname)
{
	struct ftfb_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = tid;
	ti.tgid = tgid;
	snprintf(ti.comm, sizeof(ti.comm), "%s", comm);
	if (pname)
		snprintf(ti.process_name, sizeof(ti.process_name), "%s", pname);
	assert_int_equal(ftfb_translator_add_task(&h->t, &ti), 0);
}

#endif
