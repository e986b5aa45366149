// SPDX-License-Identifier: MIT
/*
 * test_pystack.c - Python frames in stack samples, without BPF: where
 * they go among the native frames (pystack_merge.h), the code objects'
 * strings (pystack_codes.h), and the Perfetto frames a stackprof writes
 * for them. Expected stacks are worked out by hand from the rules in
 * pystack_merge.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ftf/destination.h"
#include "ftf/reader.h"
#include "ftf/writer.h"
#include "perfetto_bytes.h"
#include "pystack_codes.h"
#include "pystack_merge.h"
#include "stackprof.h"
#include "unwind.h" /* stop frames */

#define F FTFB_PY_EVAL_FIRST
#define N(i) (100 + (i)) /* a native slot, as written below */
#define P(i) (i)	 /* a Python slot */

/* The merge's result as slot numbers: N(native index), P(python index). */
static size_t merged_walked(const uint8_t *nk, uint32_t nn, bool whole,
			    const uint64_t *py, uint32_t np, unsigned *out,
			    bool *exact)
{
	struct ftfb_py_slot s[64];
	size_t n = ftfb_py_merge(nk, nn, whole, py, np, s, 64, exact);

	for (size_t i = 0; i < n; i++)
		out[i] = s[i].python ? P(s[i].index) : N(s[i].index);
	return n;
}

/* The same for a stack whose walk stopped short (whole: by name alone). */
static size_t merged(const uint8_t *nk, uint32_t nn, const uint64_t *py,
		     uint32_t np, unsigned *out, bool *exact)
{
	return merged_walked(nk, nn, false, py, np, out, exact);
}

/* 3.11+: one eval call runs a run of frames; C in between (a C
 * extension calling back into Python) stays where it was. */
static void merge_interleaves_runs(void **state)
{
	/* native, root first: _start, main, eval, ext_call, eval, memcpy */
	const uint8_t nk[] = {FTFB_PYN_ROOT,  FTFB_PYN_OTHER, FTFB_PYN_EVAL,
			      FTFB_PYN_OTHER, FTFB_PYN_EVAL,  FTFB_PYN_OTHER};
	/* Python, leaf first: d, c (first of the inner call), b, a (first) */
	const uint64_t py[] = {0x40, 0x30 | F, 0x20, 0x10 | F};
	const unsigned want[] = {N(0), N(1), P(3), P(2),
				 N(3), P(1), P(0), N(5)};
	unsigned got[64];
	bool exact;
	size_t n;

	(void)state;
	n = merged(nk, 6, py, 4, got, &exact);
	assert_true(exact);
	assert_int_equal(n, 8);
	assert_memory_equal(got, want, sizeof(want));
}

/* 3.8-3.10: each frame is an eval call of its own. */
static void merge_one_frame_per_call(void **state)
{
	const uint8_t nk[] = {FTFB_PYN_ROOT, FTFB_PYN_EVAL, FTFB_PYN_OTHER,
			      FTFB_PYN_EVAL, FTFB_PYN_EVAL};
	const uint64_t py[] = {0x30 | F, 0x20 | F, 0x10 | F};
	const unsigned want[] = {N(0), P(2), N(2), P(1), P(0)};
	unsigned got[64];
	bool exact;

	(void)state;
	assert_int_equal(merged(nk, 5, py, 3, got, &exact), 5);
	assert_true(exact);
	assert_memory_equal(got, want, sizeof(want));
}

/* A thread's stack, walked whole by its CFI, starts at libc's clone3 and
 * start_thread: unnamed in Debian's stripped libc, so not a root by
 * name. Whole, it interleaves; the same frames from a walk that stopped
 * short fall back. (Seen: every sample of a threading.Thread fell back.) */
static void merge_interleaves_a_whole_thread_stack(void **state)
{
	/* native, root first: clone3, start_thread, pythread_wrapper,
	 * thread_run, eval, PyObject_Call, eval, sum */
	const uint8_t nk[] = {FTFB_PYN_OTHER, FTFB_PYN_OTHER, FTFB_PYN_OTHER,
			      FTFB_PYN_OTHER, FTFB_PYN_EVAL,  FTFB_PYN_OTHER,
			      FTFB_PYN_EVAL,  FTFB_PYN_OTHER};
	/* Python, leaf first: leaf, mid, work (first), run, _bootstrap_inner,
	 * _bootstrap (first) */
	const uint64_t py[] = {0x60, 0x50, 0x40 | F, 0x30, 0x20, 0x10 | F};
	const unsigned want[] = {N(0), N(1), N(2), N(3), P(5), P(4), P(3),
				 N(5), P(2), P(1), P(0), N(7)};
	const unsigned fallback[] = {P(5), P(4), P(3), P(2), P(1), P(0), N(7)};
	unsigned got[64];
	bool exact;

	(void)state;
	assert_int_equal(merged_walked(nk, 8, true, py, 6, got, &exact), 12);
	assert_true(exact);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(merged_walked(nk, 8, false, py, 6, got, &exact), 7);
	assert_false(exact);
	assert_memory_equal(got, fallback, sizeof(fallback));
}

/* A native stack that does not start at a thread's start (frame
 * pointers missing): the Python frames become the root, followed by what
 * the innermost eval frame called. */
static void merge_falls_back_on_a_partial_stack(void **state)
{
	const uint8_t nk[] = {FTFB_PYN_OTHER, FTFB_PYN_EVAL, FTFB_PYN_OTHER};
	const uint64_t py[] = {0x20, 0x10 | F};
	const unsigned want[] = {P(1), P(0), N(2)};
	unsigned got[64];
	bool exact;

	(void)state;
	assert_int_equal(merged(nk, 3, py, 2, got, &exact), 3);
	assert_false(exact);
	assert_memory_equal(got, want, sizeof(want));
}

/* Whole, but the eval frames and the runs disagree (2 evals, 1 run):
 * the fallback, never a guess at which eval ran what. */
static void merge_falls_back_on_a_mismatch(void **state)
{
	const uint8_t nk[] = {FTFB_PYN_ROOT, FTFB_PYN_EVAL, FTFB_PYN_OTHER,
			      FTFB_PYN_EVAL, FTFB_PYN_OTHER};
	const uint64_t py[] = {0x20, 0x10 | F};
	const unsigned want[] = {P(1), P(0), N(4)};
	unsigned got[64];
	bool exact;

	(void)state;
	assert_int_equal(merged(nk, 5, py, 2, got, &exact), 3);
	assert_false(exact);
	assert_memory_equal(got, want, sizeof(want));
}

/* No eval frame at all: every native frame follows the Python ones; the
 * outermost frame starts a run even unmarked (its mark past the depth). */
static void merge_without_eval_frames(void **state)
{
	const uint8_t nk[] = {FTFB_PYN_OTHER, FTFB_PYN_OTHER};
	const uint64_t py[] = {0x20, 0x10};
	const unsigned want[] = {P(1), P(0), N(0), N(1)};
	const uint8_t nk2[] = {FTFB_PYN_ROOT, FTFB_PYN_EVAL};
	const unsigned want2[] = {N(0), P(1), P(0)};
	unsigned got[64];
	bool exact;

	(void)state;
	assert_int_equal(merged(nk, 2, py, 2, got, &exact), 4);
	assert_false(exact);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(merged(nk2, 2, py, 2, got, &exact), 3);
	assert_true(exact);
	assert_memory_equal(got, want2, sizeof(want2));
}

static void native_kinds_by_name(void **state)
{
	(void)state;
	assert_int_equal(ftfb_py_native_kind("_PyEval_EvalFrameDefault"),
			 FTFB_PYN_EVAL);
	assert_int_equal(ftfb_py_native_kind("_start"), FTFB_PYN_ROOT);
	assert_int_equal(ftfb_py_native_kind("start_thread"), FTFB_PYN_ROOT);
	assert_int_equal(ftfb_py_native_kind("clone3"), FTFB_PYN_ROOT);
	assert_int_equal(ftfb_py_native_kind("_PyEval_EvalFrame"),
			 FTFB_PYN_OTHER);
	assert_int_equal(ftfb_py_native_kind(NULL), FTFB_PYN_OTHER);
}

static struct ftfb_pycode code_ev(uint32_t tgid, uint64_t addr, int line,
				  const char *name, const char *file)
{
	struct ftfb_pycode e;

	memset(&e, 0, sizeof(e));
	e.hdr.kind = FTFB_EV_PYCODE;
	e.hdr.tgid = tgid;
	e.code = addr;
	e.firstlineno = line;
	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.file, sizeof(e.file), "%s", file);
	return e;
}

static uint64_t entry(uint64_t addr, int line)
{
	return addr | (uint64_t)(uint16_t)line << FTFB_PY_LINE_SHIFT;
}

/* Known by process, address and line; the first-call mark and a
 * missing NUL do not matter. */
static void codes_by_address_and_line(void **state)
{
	struct ftfb_pycodes *c;
	struct ftfb_pycode e;
	const struct ftfb_pycode_info *i;

	(void)state;
	assert_int_equal(ftfb_pycodes_new(&c), 0);
	e = code_ev(10, 0x7f0000001000ull, 12, "Job.run", "/srv/app.py");
	assert_int_equal(ftfb_pycodes_add(c, &e), 0);
	e = code_ev(10, 0x7f0000001000ull, 40, "other", "/srv/b.py");
	assert_int_equal(ftfb_pycodes_add(c, &e), 0);
	i = ftfb_pycodes_get(c, 10, entry(0x7f0000001000ull, 12) | F);
	assert_non_null(i);
	assert_string_equal(i->name, "Job.run");
	assert_string_equal(i->file, "/srv/app.py");
	assert_int_equal(i->line, 12);
	i = ftfb_pycodes_get(c, 10, entry(0x7f0000001000ull, 40));
	assert_non_null(i);
	assert_string_equal(i->name, "other");
	assert_null(ftfb_pycodes_get(c, 11, entry(0x7f0000001000ull, 12)));
	/* sent again (a new image): replaced */
	e = code_ev(10, 0x7f0000001000ull, 12, "Job.stop", "/srv/app.py");
	assert_int_equal(ftfb_pycodes_add(c, &e), 0);
	i = ftfb_pycodes_get(c, 10, entry(0x7f0000001000ull, 12));
	assert_string_equal(i->name, "Job.stop");
	/* a name filling its field without a NUL is cut at the field */
	memset(e.name, 'q', sizeof(e.name));
	e.code = 0x2000;
	assert_int_equal(ftfb_pycodes_add(c, &e), 0);
	i = ftfb_pycodes_get(c, 10, entry(0x2000, 12));
	assert_int_equal(strlen(i->name), FTFB_PY_NAME_LEN);
	ftfb_pycodes_free(c);
}

static void sym_partial(void *ctx, uint32_t tgid, uint64_t ip, bool kernel,
			bool leaf, struct ftfb_frame_sym *out)
{
	(void)ctx;
	(void)tgid;
	(void)kernel;
	(void)leaf;
	memset(out, 0, sizeof(*out));
	if (ip >= FTFB_UW_STOP_BASE) {
		out->function = "[unwind stopped: tables not loaded yet]";
		return;
	}
	out->function =
		ip == 0x1100 ? "_PyEval_EvalFrameDefault" : "clock_gettime";
	out->path = "/usr/bin/python3.11";
	out->start = 0x1000;
	out->end = 0x2000;
	out->rel_pc = ip - 0x1000;
}

/* A stackprof over a memory writer (mono clock), its frames named by
 * sym_partial. */
static struct ftfb_stackprof *new_stackprof(struct ftf_dest_mem *m,
					    struct ftf_writer *w,
					    struct ftf_clock *c)
{
	struct ftf_writer_options wo = {0};
	struct ftfb_stackprof_opts o = {0};
	struct ftfb_stackprof *sp;

	c->source = FTF_CLOCK_MONO;
	c->ticks_per_second = 1000000000ull;
	ftf_dest_mem_init(m, 0);
	wo.clock = c;
	wo.no_refresh_buf_at_intervals = true;
	assert_int_equal(ftf_writer_init(w, &m->base, &wo), 0);
	o.w = w;
	o.symbolize = sym_partial;
	o.freq_hz = 99;
	assert_int_equal(ftfb_stackprof_new(&sp, &o), 0);
	return sp;
}

/* An on-CPU sample of thread 10 with nu native (leaf first) and np
 * Python entries (hashes fixed: one stack each). */
static struct ftfb_stack_sample py_sample(const uint64_t *u, uint32_t nu,
					  const uint64_t *py, uint32_t np)
{
	struct ftfb_stack_sample s = {0};

	s.kind = FTFB_STACK_ON_CPU;
	s.ts_ns = 1000;
	s.tid = s.tgid = 10;
	s.weight = 1;
	s.uhash = 0xabc;
	s.uips = u;
	s.nu = nu;
	s.phash = 0xdef;
	s.pips = py;
	s.np = np;
	return s;
}

/* A stackprof names Python frames "qualname (file:line)" with the file
 * as their mapping, once per sequence; an entry whose strings never came
 * is written as such and counted. The native walk stopped short (its
 * outermost frame a stop frame): the Python frames are the root. */
static void stackprof_writes_python_frames(void **state)
{
	static uint8_t out[1 << 16];
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c = {0};
	struct ftfb_stackprof *sp;
	struct ftfb_stack_sample s = {0};
	struct ftfb_pycode e;
	uint64_t u[3] = {0x1200, 0x1100, FTFB_UW_STOP_IP(FTFB_UW_NOT_LOADED)};
	uint64_t py[2] = {entry(0x7f0000002000ull, 30),
			  entry(0x7f0000001000ull, 12) | F};
	const char *names[4];
	uint64_t wt[4];
	size_t n;

	(void)state;
	sp = new_stackprof(&m, &w, &c);
	e = code_ev(10, 0x7f0000001000ull, 12, "<module>", "/srv/app.py");
	assert_int_equal(ftfb_stackprof_pycode(sp, &e), 0);
	e = code_ev(10, 0x7f0000002000ull, 30, "Job.spin", "/srv/app.py");
	assert_int_equal(ftfb_stackprof_pycode(sp, &e), 0);
	s = py_sample(u, 3, py, 2);
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	s.uips = s.pips = NULL; /* the same stacks by hash */
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	/* a code object whose strings never came */
	py[0] = entry(0x7f0000003000ull, 5);
	s.phash = 0x123;
	s.pips = py;
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(ftfb_stackprof_flush(sp), 0);
	assert_int_equal(ftf_writer_close(&w), 0);

	assert_int_equal(ftfb_stackprof_stats(sp)->python_samples, 3);
	assert_int_equal(ftfb_stackprof_stats(sp)->python_interleaved, 0);
	assert_int_equal(ftfb_stackprof_stats(sp)->unknown_pycodes, 1);
	n = perfetto_bytes(&m, out, sizeof(out));
	assert_int_equal(count_bytes(out, n, "Job.spin (app.py:30)"), 1);
	assert_int_equal(count_bytes(out, n, "<module> (app.py:12)"), 1);
	assert_int_equal(count_bytes(out, n, "/srv/app.py"), 1);
	assert_int_equal(count_bytes(out, n, "[Python code 0x7f0000003000]"), 1);
	/* the eval frame is gone: its Python frames took its place */
	assert_int_equal(count_bytes(out, n, "_PyEval_EvalFrameDefault"), 1);
	/* (written once as a function name; the summary's top is the leaf) */
	assert_int_equal(
		ftfb_stackprof_top(sp, FTFB_STACK_ON_CPU, names, wt, 4), 1);
	assert_string_equal(names[0], "clock_gettime");
	assert_int_equal(wt[0], 3);
	ftfb_stackprof_free(sp);
	ftf_dest_mem_free(&m);
}

/* The same native frames walked whole (no stop frame), though their
 * root has no thread-start name: the Python frames replace the eval
 * frame in place. */
static void stackprof_interleaves_a_whole_walk(void **state)
{
	struct ftf_dest_mem m;
	struct ftf_writer w;
	struct ftf_clock c = {0};
	struct ftfb_stackprof *sp;
	struct ftfb_stack_sample s;
	struct ftfb_pycode e;
	uint64_t u[2] = {0x1200, 0x1100};
	uint64_t py[1] = {entry(0x7f0000001000ull, 12) | F};

	(void)state;
	sp = new_stackprof(&m, &w, &c);
	e = code_ev(10, 0x7f0000001000ull, 12, "<module>", "/srv/app.py");
	assert_int_equal(ftfb_stackprof_pycode(sp, &e), 0);
	s = py_sample(u, 2, py, 1);
	assert_int_equal(ftfb_stackprof_sample(sp, &s), 0);
	assert_int_equal(ftfb_stackprof_flush(sp), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
	assert_int_equal(ftfb_stackprof_stats(sp)->python_samples, 1);
	assert_int_equal(ftfb_stackprof_stats(sp)->python_interleaved, 1);
	ftfb_stackprof_free(sp);
	ftf_dest_mem_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_interleaves_runs),
		cmocka_unit_test(merge_interleaves_a_whole_thread_stack),
		cmocka_unit_test(merge_one_frame_per_call),
		cmocka_unit_test(merge_falls_back_on_a_partial_stack),
		cmocka_unit_test(merge_falls_back_on_a_mismatch),
		cmocka_unit_test(merge_without_eval_frames),
		cmocka_unit_test(native_kinds_by_name),
		cmocka_unit_test(codes_by_address_and_line),
		cmocka_unit_test(stackprof_writes_python_frames),
		cmocka_unit_test(stackprof_interleaves_a_whole_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
