// SPDX-License-Identifier: MIT
/*
 * test_records_text.c - the translator's records read as text: a short
 * list of raw events, and the records they must become, written out the
 * way Fuchsia's reader prints them (tools/record_text.c). Expected lines
 * are worked out from the events and the format (ftf-format.md, the
 * translator's contract in translate.h): ticks are ns here (1e9/s, 0 at
 * mono 0), a thread is its tid as koid, weights the kernel's prio, states
 * as ftfb_state_of() documents.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tr_text.h"

static char text[16384];

static void test_switch_and_wakeup(void **state)
{
	struct ftfb_translator_opts o = { 0 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 100, 100, "app", NULL);
	tr_add(&h, 101, 100, "worker", NULL);
	/* 100 (nice 0) blocks in S, 101 (nice 0) runs; 101 wakes 100 */
	ev_switch(&h, 1000, 1, 100, 100, FTFB_TASK_INTERRUPTIBLE, 120, 101,
		  100, 120);
	ev_wakeup(&h, FTFB_EV_WAKEUP, 1500, 0, 101, 100, 100, 100, 120);
	tr_text(&h, 2000, text, sizeof(text));
	tr_expect(text,
		  "KernelObject(koid: 100, type: process, name: \"app\", {})\n"
		  "KernelObject(koid: 100, type: thread, name: \"app\", {process: koid(100)})\n"
		  "KernelObject(koid: 101, type: thread, name: \"worker\", {process: koid(100)})\n"
		  "ContextSwitch(ts: 1000, cpu: 1, os: blocked, ot: 100, it: 101, {incoming_weight: int32(120), outgoing_weight: int32(120)})\n"
		  "ThreadWakeup(ts: 1500, cpu: 0, it: 100, {waker: koid(101)})\n");
	tr_free(&h);
}

static void test_call_with_args_and_return(void **state)
{
	static const struct ftfb_func funcs[] = { { "parse", "app" } };
	struct ftfb_translator_opts o = { .funcs = funcs, .nfuncs = 1 };
	const uint64_t args[2] = { 7, (uint64_t)-1 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 200, 200, "app", NULL);
	ev_entry(&h, 3000, 200, 200, 0, 2, args);
	ev_ret(&h, 3500, 200, 200, 0, 42);
	tr_text(&h, 4000, text, sizeof(text));
	tr_expect(text,
		  "KernelObject(koid: 200, type: process, name: \"app\", {})\n"
		  "KernelObject(koid: 200, type: thread, name: \"app\", {process: koid(200)})\n"
		  "Event(ts: 3000, pt: 200/200, category: \"app\", name: \"parse\", DurationBegin, {arg0: int64(7), arg1: int64(-1)})\n"
		  "Event(ts: 3500, pt: 200/200, category: \"app\", name: \"parse\", DurationEnd, {ret: int64(42)})\n");
	tr_free(&h);
}

/* A call still open at the end is closed there, marked unfinished. */
static void test_open_call_ends_unfinished(void **state)
{
	static const struct ftfb_func funcs[] = { { "serve", "srv" } };
	struct ftfb_translator_opts o = { .funcs = funcs, .nfuncs = 1 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 300, 300, "srv", NULL);
	ev_entry(&h, 5000, 300, 300, 0, 0, NULL);
	tr_text(&h, 9000, text, sizeof(text));
	tr_expect(text,
		  "KernelObject(koid: 300, type: process, name: \"srv\", {})\n"
		  "KernelObject(koid: 300, type: thread, name: \"srv\", {process: koid(300)})\n"
		  "Event(ts: 5000, pt: 300/300, category: \"srv\", name: \"serve\", DurationBegin, {})\n"
		  "Event(ts: 9000, pt: 300/300, category: \"srv\", name: \"serve\", DurationEnd, {unfinished: bool(true)})\n");
	tr_free(&h);
}

static void ev_syscall(struct tr *h, uint64_t ts, uint64_t end, uint32_t tid,
		       uint32_t nr, uint64_t arg0, int64_t ret)
{
	struct ftfb_senter in;
	struct ftfb_sexit out;

	memset(&in, 0, sizeof(in));
	tr_hdr(&in.hdr, FTFB_EV_SENTER, ts, 0, tid, tid);
	in.nr = nr;
	in.nargs = 1;
	in.args[0] = arg0;
	assert_int_equal(ftfb_translator_event(&h->t, &in, sizeof(in)), 0);
	memset(&out, 0, sizeof(out));
	tr_hdr(&out.hdr, FTFB_EV_SEXIT, end, 0, tid, tid);
	out.nr = nr;
	out.ret = ret;
	assert_int_equal(ftfb_translator_event(&h->t, &out, sizeof(out)), 0);
}

/* x86-64's getppid is 110, close 3 (arch/x86/entry/syscalls/
 * syscall_64.tbl); a return in -4095..-1 is an error, EBADF is 9. */
static void test_syscalls_as_slices(void **state)
{
	struct ftfb_translator_opts o = { 0 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 400, 400, "sh", NULL);
	ev_syscall(&h, 1000, 1200, 400, 110, 0, 77);
	ev_syscall(&h, 2000, 2300, 400, 3, 0xffffffff, -9);
	tr_text(&h, 3000, text, sizeof(text));
	tr_expect(text,
		  "KernelObject(koid: 400, type: process, name: \"sh\", {})\n"
		  "KernelObject(koid: 400, type: thread, name: \"sh\", {process: koid(400)})\n"
		  "Event(ts: 1000, pt: 400/400, category: \"syscall\", name: \"getppid\", DurationComplete(end_ts: 1200), {arg0: int64(0), ret: int32(77)})\n"
		  "Event(ts: 2000, pt: 400/400, category: \"syscall\", name: \"close\", DurationComplete(end_ts: 2300), {arg0: int64(4294967295), ret: int32(-9), error: string(\"EBADF\")})\n");
	tr_free(&h);
}

/* Blob lines of text (Perfetto packets: the USDT pairs' slices, checked
 * decoded in test_usdt_events.c) removed, and counted. */
static int drop_blob_lines(char *t)
{
	const char *pre = "Blob(name: perfetto, ";
	char *r = t, *w = t;
	int n = 0;

	while (*r) {
		char *nl = strchr(r, '\n');
		size_t len = nl ? (size_t)(nl - r) + 1 : strlen(r);

		if (!strncmp(r, pre, strlen(pre))) {
			n++;
		} else {
			memmove(w, r, len);
			w += len;
		}
		r += len;
	}
	*w = '\0';
	return n;
}

/* An instant with its arguments; an import slice is no FTF event but a
 * begin and an end on the thread's "import" track (Perfetto packets, in
 * one blob record at the end). */
static void test_usdt_instant_and_slice(void **state)
{
	static const struct ftfb_usdt_desc probes[] = {
		{ .name = "tick", .category = "app", .name_arg = -1 },
		{ .name = "import", .category = "python",
		  .role = FTFB_USDT_BEGIN, .pair = 0, .name_arg = 0,
		  .arg_names = { "" } },
		{ .name = "import__done", .category = "python",
		  .role = FTFB_USDT_END, .pair = 0, .name_arg = -1,
		  .arg_names = { "", "found" } },
	};
	struct ftfb_translator_opts o = { .usdt = probes, .nusdt = 3 };
	const int64_t tick[2] = { 5, -2 }, start[1] = { 0 }, done[2] = { 0, 1 };
	struct tr h;

	(void)state;
	tr_setup(&h, &o);
	tr_add(&h, 500, 500, "python3", NULL);
	ev_usdt_in(&h, 1000, 500, 500, 0, 2, tick, NULL);
	ev_usdt_in(&h, 2000, 500, 500, 1, 1, start, "json");
	ev_usdt_in(&h, 2600, 500, 500, 2, 2, done, NULL);
	tr_text(&h, 3000, text, sizeof(text));
	assert_int_equal(drop_blob_lines(text), 1);
	tr_expect(text,
		  "KernelObject(koid: 500, type: process, name: \"python3\", {})\n"
		  "KernelObject(koid: 500, type: thread, name: \"python3\", {process: koid(500)})\n"
		  "Event(ts: 1000, pt: 500/500, category: \"app\", name: \"tick\", Instant, {arg0: int64(5), arg1: int64(-2)})\n");
	tr_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_and_wakeup),
		cmocka_unit_test(test_call_with_args_and_return),
		cmocka_unit_test(test_open_call_ends_unfinished),
		cmocka_unit_test(test_syscalls_as_slices),
		cmocka_unit_test(test_usdt_instant_and_slice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
