// SPDX-License-Identifier: MIT
/*
 * Writer -> reader round trips through the public APIs: every event,
 * scheduling, log and kernel-object record with every argument type, and a
 * randomized run (fixed seed) of long sequences of events and arguments,
 * after which the reader must return exactly what was written.
 */
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

static uint64_t fixed_now(const struct ftf_clock *c)
{
	(void)c;
	return 424242;
}

struct rt {
	struct ftf_clock clock;
	struct ftf_dest_mem mem;
	struct ftf_writer w;
	struct ftf_reader r;
};

static void rt_open(struct rt *t)
{
	struct ftf_writer_options opts = { 0 };

	memset(t, 0, sizeof(*t));
	ftf_clock_init(&t->clock, FTF_CLOCK_MONO);
	t->clock.now_fn = fixed_now;
	opts.clock = &t->clock;
	opts.no_refresh_buf_at_intervals = true;
	opts.num_temp_strs = -1;
	ftf_dest_mem_init(&t->mem, 4096); /* small chunks: many switches */
	if (ftf_writer_init(&t->w, &t->mem.base, &opts))
		fail_msg("writer init: %s", ftf_writer_error(&t->w));
}

static void rt_close_and_read(struct rt *t)
{
	if (ftf_writer_close(&t->w))
		fail_msg("writer close: %s", ftf_writer_error(&t->w));
	assert_int_equal(ftf_reader_init(&t->r, t->mem.data, t->mem.len), 0);
}

static void rt_free(struct rt *t)
{
	ftf_reader_free(&t->r);
	ftf_dest_mem_free(&t->mem);
}

#define OK(call)                                                             \
	do {                                                                 \
		int ok_ret_ = (call);                                        \
		if (ok_ret_ < 0)                                             \
			fail_msg("%s: %d %s", #call, ok_ret_,                \
				 ftf_writer_error(&t->w));                   \
	} while (0)

/* The next record that is not bookkeeping (strings, threads, header). */
static int next_interesting(struct ftf_reader *r, struct ftf_record *rec)
{
	int ret;

	while ((ret = ftf_reader_next(r, rec)) == 1) {
		if (rec->type == FTF_REC_STRING || rec->type == FTF_REC_THREAD ||
		    rec->type == FTF_REC_INIT)
			continue;
		if (rec->type == FTF_REC_METADATA &&
		    rec->u.meta.meta_type != FTF_META_PROVIDER_EVENT)
			continue;
		return 1;
	}
	if (ret < 0)
		fail_msg("reader: %s", ftf_reader_error(r));
	return 0;
}

static void assert_str(struct ftf_str s, const char *want)
{
	if (s.len != strlen(want) || memcmp(s.ptr, want, s.len) != 0)
		fail_msg("string \"%.*s\" != \"%s\"", (int)s.len, s.ptr, want);
}

/* ---- every type once ---- */

static const char *const arg_names[] = {
	"a_int32", "a_uint32", "a_int64", "a_uint64", "a_pointer",
	"a_koid", "a_float", "a_bool", "a_string", "a_inline",
};
static const char inline_value[] = "an inline value of 29 bytes!!";

static void write_all_args(struct rt *t, const int *names, int str_value)
{
	OK(ftf_arg_int32(&t->w, names[0], INT32_MIN));
	OK(ftf_arg_uint32(&t->w, names[1], UINT32_MAX));
	OK(ftf_arg_int64(&t->w, names[2], INT64_MIN + 1));
	OK(ftf_arg_uint64(&t->w, names[3], UINT64_MAX));
	OK(ftf_arg_pointer(&t->w, names[4], 0x7fffdeadbeefull));
	OK(ftf_arg_koid(&t->w, names[5], 4321));
	OK(ftf_arg_float(&t->w, names[6], -0.125));
	OK(ftf_arg_bool(&t->w, names[7], true));
	OK(ftf_arg_string(&t->w, names[8], str_value));
	OK(ftf_arg_inline_string(&t->w, names[9], inline_value,
				 strlen(inline_value)));
}

static void check_all_args(const struct ftf_args *a)
{
	assert_int_equal(a->count, 10);
	assert_int_equal(a->skipped, 0);
	for (int i = 0; i < 10; i++)
		assert_str(a->a[i].name, arg_names[i]);
	assert_int_equal(a->a[0].type, FTF_ARG_INT32);
	assert_int_equal(a->a[0].v.i32, INT32_MIN);
	assert_int_equal(a->a[1].type, FTF_ARG_UINT32);
	assert_int_equal(a->a[1].v.u32, UINT32_MAX);
	assert_int_equal(a->a[2].type, FTF_ARG_INT64);
	assert_true(a->a[2].v.i64 == INT64_MIN + 1);
	assert_int_equal(a->a[3].type, FTF_ARG_UINT64);
	assert_true(a->a[3].v.u64 == UINT64_MAX);
	assert_int_equal(a->a[4].type, FTF_ARG_POINTER);
	assert_true(a->a[4].v.u64 == 0x7fffdeadbeefull);
	assert_int_equal(a->a[5].type, FTF_ARG_KOID);
	assert_int_equal(a->a[5].v.u64, 4321);
	assert_int_equal(a->a[6].type, FTF_ARG_DOUBLE);
	assert_true(a->a[6].v.d == -0.125);
	assert_int_equal(a->a[7].type, FTF_ARG_BOOL);
	assert_true(a->a[7].v.b);
	assert_int_equal(a->a[8].type, FTF_ARG_STRING);
	assert_str(a->a[8].v.str, "interned value");
	assert_int_equal(a->a[9].type, FTF_ARG_STRING);
	assert_str(a->a[9].v.str, inline_value);
}

static void every_record_and_arg_type(void **state)
{
	struct rt rt, *t = &rt;
	struct ftf_record rec;
	struct ftf_tick_translation tt = { 3000000000ull, 777, 1700000000123456789ll };
	ftf_arg_types all, two_i32, one_koid;
	int names[10], cat, ev, strval, pname, tname, iw, ow, waker, thread;

	(void)state;
	rt_open(t);
	cat = ftf_intern_string(&t->w, "rt_cat");
	ev = ftf_intern_string(&t->w, "rt_event");
	strval = ftf_intern_string(&t->w, "interned value");
	pname = ftf_intern_string(&t->w, "rt_process");
	tname = ftf_intern_string(&t->w, "rt_thread");
	iw = ftf_intern_string(&t->w, "incoming_weight");
	ow = ftf_intern_string(&t->w, "outgoing_weight");
	waker = ftf_intern_string(&t->w, "waker");
	for (int i = 0; i < 10; i++)
		names[i] = ftf_intern_string(&t->w, arg_names[i]);
	assert_true(cat > 0 && waker > 0 && names[9] > 0);
	thread = ftf_set_thread_slot(&t->w, 6, 77, 78);
	assert_int_equal(thread, 7);
	OK(ftf_write_tick_initialization(&t->w, &tt));
	OK(ftf_set_process_name(&t->w, 77, pname));
	OK(ftf_set_thread_name(&t->w, 77, 78, tname));

	/* 4 eight-byte (int64, uint64, pointer, koid), 2 four-byte (int32,
	 * uint32), bool, float, interned string, inline string */
	OK(ftf_arg_types_create(&all, 4, 2, 1, 1, 1, 1));
	OK(ftf_arg_types_add_inline_string(&all, strlen(inline_value)));
	OK(ftf_write_instant(&t->w, all, thread, cat, ev, 10));
	write_all_args(t, names, strval);
	OK(ftf_write_counter(&t->w, all, thread, cat, ev, 11, 5));
	write_all_args(t, names, strval);
	OK(ftf_write_duration_begin(&t->w, all, thread, cat, ev, 12));
	write_all_args(t, names, strval);
	OK(ftf_write_duration_end(&t->w, all, thread, cat, ev, 13));
	write_all_args(t, names, strval);
	OK(ftf_write_duration_complete(&t->w, all, thread, cat, ev, 14, 99));
	write_all_args(t, names, strval);
	OK(ftf_write_async_begin(&t->w, all, thread, cat, ev, 15, 1001));
	write_all_args(t, names, strval);
	OK(ftf_write_async_instant(&t->w, all, thread, cat, ev, 16, 1002));
	write_all_args(t, names, strval);
	OK(ftf_write_async_end(&t->w, all, thread, cat, ev, 17, 1003));
	write_all_args(t, names, strval);
	OK(ftf_write_flow_begin(&t->w, thread, 18, 2001));
	OK(ftf_write_flow_step(&t->w, thread, 19, 2002));
	OK(ftf_write_flow_end(&t->w, thread, 20, 2003));
	OK(ftf_arg_types_create(&two_i32, 0, 2, 0, 0, 0, 0));
	OK(ftf_write_context_switch(&t->w, two_i32, 513, FTF_THREAD_BLOCKED,
				    78, 79, 21));
	OK(ftf_arg_int32(&t->w, iw, 120));
	OK(ftf_arg_int32(&t->w, ow, INT32_MIN));
	OK(ftf_arg_types_create(&one_koid, 1, 0, 0, 0, 0, 0));
	OK(ftf_write_thread_wakeup(&t->w, one_koid, 7, 80, 22));
	OK(ftf_arg_koid(&t->w, waker, 78));
	OK(ftf_write_log(&t->w, thread, 23, "log line", 8));
	OK(ftf_write_provider_event_dropped(&t->w, 1));
	rt_close_and_read(t);

	/* the header: magic first, provider info, provider section */
	assert_int_equal(ftf_reader_next(&t->r, &rec), 1);
	assert_int_equal(rec.type, FTF_REC_METADATA);
	assert_true(rec.header == FTF_MAGIC_WORD);
	assert_int_equal(ftf_reader_next(&t->r, &rec), 1);
	assert_int_equal(rec.u.meta.meta_type, FTF_META_PROVIDER_INFO);
	assert_str(rec.u.meta.provider_name, FTF_DEFAULT_PROVIDER_NAME);
	/* the 4-word initialization we wrote */
	while (ftf_reader_next(&t->r, &rec) == 1 &&
	       !(rec.type == FTF_REC_INIT && rec.u.init.base_ticks == 777))
		;
	assert_int_equal(rec.type, FTF_REC_INIT);
	assert_true(rec.u.init.has_base);
	assert_int_equal(rec.u.init.ticks_per_second, 3000000000ull);
	assert_int_equal(rec.u.init.base_time, 1700000000123456789ull);

	assert_int_equal(next_interesting(&t->r, &rec), 1);
	assert_int_equal(rec.type, FTF_REC_KERNEL_OBJECT);
	assert_int_equal(rec.u.kobj.obj_type, 1);
	assert_int_equal(rec.u.kobj.koid, 77);
	assert_str(rec.u.kobj.name, "rt_process");
	assert_int_equal(next_interesting(&t->r, &rec), 1);
	assert_int_equal(rec.u.kobj.obj_type, 2);
	assert_int_equal(rec.u.kobj.koid, 78);
	assert_str(rec.u.kobj.name, "rt_thread");
	assert_int_equal(rec.u.kobj.args.count, 1);
	assert_str(rec.u.kobj.args.a[0].name, "process");
	assert_int_equal(rec.u.kobj.args.a[0].type, FTF_ARG_KOID);
	assert_int_equal(rec.u.kobj.args.a[0].v.u64, 77);

	for (unsigned et = 0; et <= 7; et++) {
		static const uint64_t extra[] = { 0, 5, 0, 0, 99, 1001, 1002, 1003 };

		assert_int_equal(next_interesting(&t->r, &rec), 1);
		assert_int_equal(rec.type, FTF_REC_EVENT);
		assert_int_equal(rec.u.event.event_type, et);
		assert_int_equal(rec.u.event.ts, 10 + et);
		assert_int_equal(rec.u.event.thread_ref, 7);
		assert_int_equal(rec.u.event.pt.pid, 77);
		assert_int_equal(rec.u.event.pt.tid, 78);
		assert_str(rec.u.event.category, "rt_cat");
		assert_str(rec.u.event.name, "rt_event");
		check_all_args(&rec.u.event.args);
		if (et == 1 || et >= 4) {
			assert_true(rec.u.event.has_extra);
			assert_int_equal(rec.u.event.extra, extra[et]);
		}
	}
	for (unsigned et = 8; et <= 10; et++) {
		assert_int_equal(next_interesting(&t->r, &rec), 1);
		assert_int_equal(rec.u.event.event_type, et);
		assert_int_equal(rec.u.event.ts, 10 + et);
		assert_int_equal(rec.u.event.pt.tid, 78);
		assert_int_equal(rec.u.event.args.count, 0);
		assert_int_equal(rec.u.event.extra, 2001 + et - 8);
	}
	assert_int_equal(next_interesting(&t->r, &rec), 1);
	assert_int_equal(rec.type, FTF_REC_SCHED);
	assert_int_equal(rec.u.sched.sched_type, FTF_SCHED_CONTEXT_SWITCH);
	assert_int_equal(rec.u.sched.cpu, 513);
	assert_int_equal(rec.u.sched.out_state, FTF_THREAD_BLOCKED);
	assert_int_equal(rec.u.sched.out_koid, 78);
	assert_int_equal(rec.u.sched.in_koid, 79);
	assert_int_equal(rec.u.sched.ts, 21);
	assert_int_equal(rec.u.sched.args.count, 2);
	assert_str(rec.u.sched.args.a[0].name, "incoming_weight");
	assert_int_equal(rec.u.sched.args.a[0].v.i32, 120);
	assert_int_equal(rec.u.sched.args.a[1].v.i32, INT32_MIN);
	assert_int_equal(next_interesting(&t->r, &rec), 1);
	assert_int_equal(rec.u.sched.sched_type, FTF_SCHED_WAKEUP);
	assert_int_equal(rec.u.sched.cpu, 7);
	assert_int_equal(rec.u.sched.in_koid, 80);
	assert_int_equal(rec.u.sched.ts, 22);
	assert_str(rec.u.sched.args.a[0].name, "waker");
	assert_int_equal(rec.u.sched.args.a[0].v.u64, 78);
	assert_int_equal(next_interesting(&t->r, &rec), 1);
	assert_int_equal(rec.type, FTF_REC_LOG);
	assert_int_equal(rec.u.log.ts, 23);
	assert_int_equal(rec.u.log.pt.pid, 77);
	assert_str(rec.u.log.message, "log line");
	assert_int_equal(next_interesting(&t->r, &rec), 1);
	assert_int_equal(rec.u.meta.meta_type, FTF_META_PROVIDER_EVENT);
	assert_int_equal(rec.u.meta.provider_id, 1);
	assert_int_equal(rec.u.meta.event_id, 0);
	assert_int_equal(next_interesting(&t->r, &rec), 0);
	assert_int_equal(t->r.errors, 0);
	rt_free(t);
}

/* ---- randomized ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

#define N_EVENTS 20000
#define N_NAMES 40
#define N_THREADS 6

struct xarg {
	unsigned kind; /* 0 i32 1 u32 2 i64 3 u64 4 ptr 5 koid 6 dbl 7 bool
			* 8 interned 9 inline */
	int name;
	uint64_t bits;
	char text[48];
	size_t len;
};

struct xevent {
	unsigned type;
	int thread_slot;
	int cat, name;
	char name_text[24]; /* when the name is a temp slot */
	uint64_t ts, extra;
	unsigned nargs;
	struct xarg args[FTF_MAX_ARGS];
};

static char name_pool[N_NAMES][16];
static int name_id[N_NAMES];

static void rand_text(char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(' ' + rnd_below(95));
	buf[len] = '\0';
}

static const char *id_text(int id)
{
	for (int i = 0; i < N_NAMES; i++)
		if (name_id[i] == id)
			return name_pool[i];
	return NULL;
}

static void write_random_event(struct rt *t, struct xevent *e, int thread_ref)
{
	int n64 = 0, n32 = 0, nb = 0, nf = 0, nint = 0, ninl = 0;
	ftf_arg_types at;

	for (unsigned i = 0; i < e->nargs; i++) {
		switch (e->args[i].kind) {
		case 0: case 1: n32++; break;
		case 2: case 3: case 4: case 5: n64++; break;
		case 6: nf++; break;
		case 7: nb++; break;
		case 8: nint++; break;
		case 9: ninl++; break;
		}
	}
	OK(ftf_arg_types_create(&at, n64, n32, nb, nf, nint, ninl));
	for (unsigned i = 0; i < e->nargs; i++)
		if (e->args[i].kind == 9)
			OK(ftf_arg_types_add_inline_string(&at, e->args[i].len));
	switch (e->type) {
	case 0: OK(ftf_write_instant(&t->w, at, thread_ref, e->cat, e->name, e->ts)); break;
	case 1: OK(ftf_write_counter(&t->w, at, thread_ref, e->cat, e->name, e->ts, e->extra)); break;
	case 2: OK(ftf_write_duration_begin(&t->w, at, thread_ref, e->cat, e->name, e->ts)); break;
	case 3: OK(ftf_write_duration_end(&t->w, at, thread_ref, e->cat, e->name, e->ts)); break;
	case 4: OK(ftf_write_duration_complete(&t->w, at, thread_ref, e->cat, e->name, e->ts, e->extra)); break;
	case 5: OK(ftf_write_async_begin(&t->w, at, thread_ref, e->cat, e->name, e->ts, e->extra)); break;
	case 6: OK(ftf_write_async_instant(&t->w, at, thread_ref, e->cat, e->name, e->ts, e->extra)); break;
	case 7: OK(ftf_write_async_end(&t->w, at, thread_ref, e->cat, e->name, e->ts, e->extra)); break;
	case 8: OK(ftf_write_flow_begin(&t->w, thread_ref, e->ts, e->extra)); return;
	case 9: OK(ftf_write_flow_step(&t->w, thread_ref, e->ts, e->extra)); return;
	case 10: OK(ftf_write_flow_end(&t->w, thread_ref, e->ts, e->extra)); return;
	}
	for (unsigned i = 0; i < e->nargs; i++) {
		struct xarg *a = &e->args[i];
		double d;

		switch (a->kind) {
		case 0: OK(ftf_arg_int32(&t->w, a->name, (int32_t)a->bits)); break;
		case 1: OK(ftf_arg_uint32(&t->w, a->name, (uint32_t)a->bits)); break;
		case 2: OK(ftf_arg_int64(&t->w, a->name, (int64_t)a->bits)); break;
		case 3: OK(ftf_arg_uint64(&t->w, a->name, a->bits)); break;
		case 4: OK(ftf_arg_pointer(&t->w, a->name, a->bits)); break;
		case 5: OK(ftf_arg_koid(&t->w, a->name, a->bits)); break;
		case 6:
			memcpy(&d, &a->bits, 8);
			OK(ftf_arg_float(&t->w, a->name, d));
			break;
		case 7: OK(ftf_arg_bool(&t->w, a->name, a->bits & 1)); break;
		case 8: OK(ftf_arg_string(&t->w, a->name, (int)a->bits)); break;
		case 9: OK(ftf_arg_inline_string(&t->w, a->name, a->text, a->len)); break;
		}
	}
}

static void check_event(const struct xevent *e, const struct ftf_record *rec,
			size_t i)
{
	const struct ftf_args *got = &rec->u.event.args;

	if (rec->type != FTF_REC_EVENT || rec->u.event.event_type != e->type ||
	    rec->u.event.ts != e->ts)
		fail_msg("event %zu (offset %zu): type %u ts %llu, wrote type %u ts %llu",
			 i, rec->offset, rec->u.event.event_type,
			 (unsigned long long)rec->u.event.ts, e->type,
			 (unsigned long long)e->ts);
	assert_int_equal(rec->u.event.pt.pid, 1000 + e->thread_slot);
	assert_int_equal(rec->u.event.pt.tid, 2000 + e->thread_slot);
	if (e->type == 1 || e->type >= 4)
		assert_true(rec->u.event.extra == e->extra);
	if (e->type >= 8) {
		assert_int_equal(got->count, 0);
		return;
	}
	assert_str(rec->u.event.category, id_text(e->cat));
	assert_str(rec->u.event.name,
		   e->name_text[0] ? e->name_text : id_text(e->name));
	assert_int_equal(got->count, e->nargs);
	for (unsigned k = 0; k < e->nargs; k++) {
		const struct xarg *a = &e->args[k];
		const struct ftf_arg *g = &got->a[k];
		static const unsigned want_type[] = {
			FTF_ARG_INT32, FTF_ARG_UINT32, FTF_ARG_INT64,
			FTF_ARG_UINT64, FTF_ARG_POINTER, FTF_ARG_KOID,
			FTF_ARG_DOUBLE, FTF_ARG_BOOL, FTF_ARG_STRING,
			FTF_ARG_STRING,
		};

		if (g->type != want_type[a->kind])
			fail_msg("event %zu arg %u: type %u, wrote kind %u", i,
				 k, g->type, a->kind);
		assert_str(g->name, id_text(a->name));
		switch (a->kind) {
		case 0: assert_int_equal(g->v.i32, (int32_t)a->bits); break;
		case 1: assert_int_equal(g->v.u32, (uint32_t)a->bits); break;
		case 6: assert_memory_equal(&g->v.d, &a->bits, 8); break;
		case 7: assert_int_equal(g->v.b, a->bits & 1); break;
		case 8: assert_str(g->v.str, id_text((int)a->bits)); break;
		case 9: assert_str(g->v.str, a->text); break;
		default: assert_true(g->v.u64 == a->bits); break;
		}
	}
}

static void random_sequences(void **state)
{
	struct xevent *ev = calloc(N_EVENTS, sizeof(*ev));
	struct rt rt, *t = &rt;
	struct ftf_record rec;
	size_t got = 0;

	(void)state;
	assert_non_null(ev);
	rt_open(t);
	for (int i = 0; i < N_NAMES; i++) {
		snprintf(name_pool[i], sizeof(name_pool[i]), "n%02d_%llx", i,
			 (unsigned long long)(rnd() & 0xffff));
		name_id[i] = ftf_intern_string(&t->w, name_pool[i]);
		assert_true(name_id[i] > 0);
	}
	for (int s = 0; s < N_THREADS; s++)
		assert_int_equal(ftf_set_thread_slot(&t->w, s, 1000 + s,
						     2000 + s), s + 1);
	for (size_t i = 0; i < N_EVENTS; i++) {
		struct xevent *e = &ev[i];

		e->type = rnd_below(11);
		e->thread_slot = rnd_below(N_THREADS);
		e->cat = name_id[rnd_below(N_NAMES)];
		e->name = name_id[rnd_below(N_NAMES)];
		/* one rnd() per statement: the order of evaluation of
		 * two calls in one expression is unspecified */
		e->ts = rnd();
		e->ts >>= rnd_below(64);
		e->extra = rnd();
		if (e->type == 4 && e->extra < e->ts) {
			/* complete: end >= start, without overflow */
			e->extra = (UINT64_MAX - e->ts) >> rnd_below(64);
			e->extra += e->ts;
		}
		if (e->type < 8 && rnd_below(4) == 0) {
			/* a temporary slot, redefined under the reader's
			 * feet: the reader must resolve the newest text */
			int slot = rnd_below(3);

			rand_text(e->name_text, 1 + rnd_below(20));
			e->name = ftf_set_temp_string_slot(&t->w, slot,
							   e->name_text);
			assert_true(e->name > 0);
		}
		e->nargs = e->type < 8 ? rnd_below(FTF_MAX_ARGS + 1) : 0;
		for (unsigned k = 0; k < e->nargs; k++) {
			struct xarg *a = &e->args[k];

			a->kind = rnd_below(10);
			a->name = name_id[rnd_below(N_NAMES)];
			a->bits = rnd();
			if (a->kind == 8)
				a->bits = (uint64_t)name_id[rnd_below(N_NAMES)];
			if (a->kind == 9) {
				a->len = rnd_below(sizeof(a->text));
				rand_text(a->text, a->len);
			}
		}
		write_random_event(t, e, e->thread_slot + 1);
	}
	rt_close_and_read(t);
	while (next_interesting(&t->r, &rec) == 1) {
		if (got >= N_EVENTS)
			fail_msg("more events read than the %d written", N_EVENTS);
		check_event(&ev[got], &rec, got);
		got++;
	}
	assert_int_equal(got, N_EVENTS);
	assert_int_equal(t->r.errors, 0);
	printf("# %d random events, %zu bytes, %zu records read back\n",
	       N_EVENTS, t->mem.len, t->r.records);
	rt_free(t);
	free(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_record_and_arg_type),
		cmocka_unit_test(random_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
