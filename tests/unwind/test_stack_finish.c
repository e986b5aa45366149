// SPDX-License-Identifier: MIT
/*
 * test_stack_finish.c - the userspace end of a walk over a copied stack
 * (copy_walk.c) and the samples held for it (stack_finish.c), on a made-up
 * binary whose rows, stack bytes and expected frames are worked out by
 * hand here from bpf/unwind.h's definition of a row (not from the code).
 *
 * The binary is mapped at 0x400000 with its rows at vaddr - 0x400000:
 *   [0x000, 0x100) CFA = rsp + 8                    (a function's entry)
 *   [0x100, 0x200) CFA = rsp + 16, rbp at CFA - 16  (after push %rbp)
 *   [0x200, 0x300) CFA = rbp + 16, rbp at CFA - 16  (rbp is the frame's)
 *   [0x300, 0x380) return address undefined         (_start: the end)
 *   [0x380, 0x400) PLT: CFA = rsp + 8, + 8 when pc & 15 >= 11
 *   [0x400, ...)   no CFI
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "copy_walk.h"
#include "stack_finish.h"
#include "uw_rule.h"

#define BASE 0x400000ull
#define SP 0x7ffd00001000ull /* the copied stack's first byte */

static const struct ftfb_uw_row rows[] = {
	{.pc = 0x000, .cfa_off = 8, .type = FTFB_UW_CFA_RSP},
	{.pc = 0x100,
	 .cfa_off = 16,
	 .type = FTFB_UW_CFA_RSP | FTFB_UW_RBP_AT_CFA << 4,
	 .rbp_off8 = -2},
	{.pc = 0x200,
	 .cfa_off = 16,
	 .type = FTFB_UW_CFA_RBP | FTFB_UW_RBP_AT_CFA << 4,
	 .rbp_off8 = -2},
	{.pc = 0x300, .type = FTFB_UW_CFA_END},
	{.pc = 0x380, .cfa_off = 11, .type = FTFB_UW_CFA_PLT},
	{.pc = 0x400, .type = FTFB_UW_CFA_NONE},
};

static bool loaded;    /* the table of the binary is in the proc entry */
static bool unmapped;  /* the entry was read before the binary was mapped */
static bool last_read; /* the entry has FTFB_UW_PROC_FINAL */

static int get_table(void *ctx, uint32_t id, struct ftfb_uw_table *out)
{
	(void)ctx;
	if (id != 0)
		return -1;
	out->first = 0;
	out->n = sizeof(rows) / sizeof(rows[0]);
	return 0;
}

static int get_proc(void *ctx, uint32_t tgid, struct ftfb_uw_proc *out)
{
	(void)ctx;
	if (tgid != 42)
		return -2;
	memset(out, 0, sizeof(*out));
	out->flags = last_read ? FTFB_UW_PROC_FINAL : 0;
	out->n = unmapped ? 0 : 1;
	out->m[0].start = BASE;
	out->m[0].end = BASE + 0x1000;
	out->m[0].bias = BASE;
	out->m[0].table = loaded ? 0 : FTFB_UW_TABLE_PENDING;
	return 0;
}

static const struct ftfb_sf_source src = {
	.proc = get_proc,
	.table = get_table,
	.rows = rows,
	.nrows = sizeof(rows) / sizeof(rows[0]),
};

/* The stack of a sample in 0x400150 (after push %rbp): at SP the saved
 * rbp (SP + 32), at SP + 8 the return address 0x400250 into a function
 * whose rbp is its frame's (rbp = SP + 32: its CFA SP + 48, its return
 * address at SP + 40 = 0x400310, into _start's row, the end). */
static uint64_t stack_words[8];

static void make_stack(void)
{
	memset(stack_words, 0, sizeof(stack_words));
	stack_words[0] = SP + 32;
	stack_words[1] = BASE + 0x250;
	stack_words[4] = 0; /* the caller's caller's rbp */
	stack_words[5] = BASE + 0x310;
}

static struct ftfb_cw_start start_at(uint64_t pc, uint32_t nbytes)
{
	struct ftfb_cw_start s = {
		.pc = pc,
		.sp = SP,
		.bp = 0x1234, /* (a leaf's rbp: anything) */
		.bp_known = true,
		.bytes = (const uint8_t *)stack_words,
		.nbytes = nbytes,
	};
	return s;
}

static struct ftfb_uw_proc proc;

static struct ftfb_cw_tables tables(void)
{
	struct ftfb_cw_tables t = {
		.proc = &proc,
		.rows = rows,
		.nrows = src.nrows,
		.table = get_table,
	};
	loaded = true;
	get_proc(NULL, 42, &proc);
	return t;
}

static void test_walk_complete(void **state)
{
	struct ftfb_cw_tables t = tables();
	struct ftfb_cw_start s = start_at(BASE + 0x150, sizeof(stack_words));
	uint64_t out[8];
	uint32_t why = 99, n;

	(void)state;
	make_stack();
	n = ftfb_cw_walk(&t, &s, out, 8, &why);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], BASE + 0x250);
	assert_int_equal(out[1], BASE + 0x310);
	assert_int_equal(why, FTFB_UW_COMPLETE);
}

/* the copy ends before the second return address (SP + 40) */
static void test_walk_short_copy(void **state)
{
	struct ftfb_cw_tables t = tables();
	struct ftfb_cw_start s = start_at(BASE + 0x150, 40);
	uint64_t out[8];
	uint32_t why, n;

	(void)state;
	make_stack();
	n = ftfb_cw_walk(&t, &s, out, 8, &why);
	assert_int_equal(n, 1);
	assert_int_equal(why, FTFB_UW_UNREADABLE);
}

/* a return address whose call is the last instruction before 0x300: the
 * row of pc - 1 (0x2ff: rbp-based), not _start's */
static void test_walk_retaddr_row(void **state)
{
	struct ftfb_cw_tables t = tables();
	struct ftfb_cw_start s = start_at(BASE + 0x300, sizeof(stack_words));
	uint64_t out[8];
	uint32_t why, n;

	(void)state;
	make_stack();
	s.retaddr = true;
	s.bp = SP; /* CFA = SP + 16: return address SP + 8, rbp SP + 0 */
	n = ftfb_cw_walk(&t, &s, out, 8, &why);
	assert_int_equal(why, FTFB_UW_COMPLETE);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], BASE + 0x250);
}

static void test_walk_depth_and_pending(void **state)
{
	struct ftfb_cw_tables t = tables();
	struct ftfb_cw_start s = start_at(BASE + 0x150, sizeof(stack_words));
	uint64_t out[1];
	uint32_t why, n;

	(void)state;
	make_stack();
	n = ftfb_cw_walk(&t, &s, out, 1, &why);
	assert_int_equal(n, 1);
	assert_int_equal(why, FTFB_UW_DEPTH);
	proc.m[0].table = FTFB_UW_TABLE_PENDING;
	n = ftfb_cw_walk(&t, &s, out, 1, &why);
	assert_int_equal(n, 0);
	assert_int_equal(why, FTFB_UW_NOT_LOADED);
}

/* bpf/unwind.h: PLT: CFA = rsp + 8, + 8 more when (pc & 15) >= cfa_off */
static void test_rule_plt(void **state)
{
	uint32_t why = 99;

	(void)state;
	assert_int_equal(ftfb_uw_rule_cfa(FTFB_UW_CFA_PLT, 11, 0x38a, 100, 0,
					  true, &why),
			 108);
	assert_int_equal(ftfb_uw_rule_cfa(FTFB_UW_CFA_PLT, 11, 0x38b, 100, 0,
					  true, &why),
			 116);
	assert_int_equal(
		ftfb_uw_rule_cfa(FTFB_UW_CFA_RBP, 16, 0, 100, 200, false, &why),
		0);
	assert_int_equal(why, FTFB_UW_BAD_FRAME);
}

/* A copy record of tgid 42's sample in 0x400150, with one kernel ip:
 * user ips [0x400150, stop "not loaded yet"], as the BPF side sends. */
static size_t make_record(unsigned char *buf)
{
	struct ftfb_stack_copy c;
	uint64_t ips[3] = {BASE + 0x150, FTFB_UW_STOP_IP(FTFB_UW_NOT_LOADED),
			   0xffffffff81000000ull};

	memset(&c, 0, sizeof(c));
	c.ev.hdr.kind = FTFB_EV_STACK_COPY;
	c.ev.hdr.ts = 1000;
	c.ev.hdr.tid = 43;
	c.ev.hdr.tgid = 42;
	c.ev.weight = 1;
	c.ev.nu = 2;
	c.ev.nk = 1;
	c.ev.khash = 77;
	c.pc = BASE + 0x150;
	c.sp = SP;
	c.bp = 0x1234;
	c.flags = FTFB_SC_BP_KNOWN;
	c.map_start = BASE;
	c.map_end = BASE + 0x1000;
	c.nbytes = sizeof(stack_words);
	make_stack();
	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), ips, sizeof(ips));
	memcpy(buf + sizeof(c) + sizeof(ips), stack_words, sizeof(stack_words));
	return sizeof(c) + sizeof(ips) + sizeof(stack_words);
}

static unsigned char emitted[4096], before[4096]; /* the last two */
static size_t nemitted, emits;

static int emit(void *ctx, const void *data, size_t size)
{
	(void)ctx;
	assert_true(size <= sizeof(emitted));
	memcpy(before, emitted, sizeof(before));
	memcpy(emitted, data, size);
	nemitted = size;
	emits++;
	return 0;
}

/* FNV-1a's step and a shift per ip, seeded with the tgid (bpf/unwind.bpf.h's
 * uw_hash_step, written out again) */
static uint64_t fnv(const uint64_t *ips, int n, uint32_t tgid)
{
	uint64_t h = 0xcbf29ce484222325ull ^ tgid;

	for (int i = 0; i < n; i++) {
		h = (h ^ ips[i]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

static void test_held_until_loaded(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_sf *f;
	struct ftfb_sf_stats st;
	struct ftfb_stack ev;
	uint64_t ips[4], want[3] = {BASE + 0x150, BASE + 0x250, BASE + 0x310};

	(void)state;
	loaded = false;
	emits = 0;
	assert_int_equal(ftfb_sf_new(&f, &src, 1000, 1 << 20, emit, NULL), 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	assert_int_equal(ftfb_sf_tick(f, 10), 0);
	assert_int_equal(emits, 0); /* held: the table is not there */
	loaded = true;
	assert_int_equal(ftfb_sf_tick(f, 20), 0);
	assert_int_equal(emits, 1);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.hdr.kind, FTFB_EV_STACK_ON);
	assert_int_equal(ev.hdr.ts, 1000);
	assert_int_equal(ev.nu, 3);
	assert_int_equal(ev.nk, 1);
	assert_int_equal(ev.khash, 77);
	assert_int_equal(nemitted, sizeof(ev) + 4 * 8);
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_memory_equal(ips, want, sizeof(want));
	assert_int_equal(ips[3], 0xffffffff81000000ull);
	assert_int_equal(ev.uhash, fnv(want, 3, 42));
	ftfb_sf_get_stats(f, &st);
	assert_int_equal(st.copies, 1);
	assert_int_equal(st.finished, 1);
	assert_int_equal(st.as_is, 0);
	ftfb_sf_free(f);
}

/* An exec event of tgid from image (FTFB_IMAGE_ID of the image left). */
static struct ftfb_comm_ev exec_ev(uint32_t tgid, uint32_t image)
{
	struct ftfb_comm_ev ex;

	memset(&ex, 0, sizeof(ex));
	ex.hdr.kind = FTFB_EV_EXEC;
	ex.hdr.tgid = tgid;
	ex.image = image;
	return ex;
}

/* no table by the deadline, or an exec first: as it was */
static void test_as_is(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_comm_ev exec;
	struct ftfb_sf *f;
	struct ftfb_sf_stats st;
	struct ftfb_stack ev;
	uint64_t ips[3];

	(void)state;
	loaded = false;
	emits = 0;
	assert_int_equal(ftfb_sf_new(&f, &src, 1000, 1 << 20, emit, NULL), 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	assert_int_equal(ftfb_sf_tick(f, 999), 0);
	assert_int_equal(emits, 0);
	assert_int_equal(ftfb_sf_tick(f, 1000), 0);
	assert_int_equal(emits, 1);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 2);
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_int_equal(ips[1], FTFB_UW_STOP_IP(FTFB_UW_NOT_LOADED));
	/* an exec of tgid 42: its copies go on at once, before it */
	assert_int_equal(ftfb_sf_event(f, rec, size, 2000), 1);
	exec = exec_ev(42, 0);
	loaded = true; /* (the new image's entry: not looked at) */
	assert_int_equal(ftfb_sf_event(f, &exec, sizeof(exec), 2001), 0);
	assert_int_equal(emits, 2);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 2);
	ftfb_sf_get_stats(f, &st);
	assert_int_equal(st.as_is, 2);
	assert_int_equal(st.gone, 1);
	assert_int_equal(st.finished, 0);
	ftfb_sf_free(f);
}

/* A sample in code mapped after the process's entry was read (ld.so
 * still mapping libc): the walker saw no mapping (map_start 0) and sent
 * a copy; it waits for the entry read again, not for the deadline. */
static void test_mapped_since(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_stack_copy c;
	struct ftfb_sf *f;
	struct ftfb_stack ev;
	uint64_t ips[4];

	(void)state;
	memcpy(&c, rec, sizeof(c));
	c.map_start = c.map_end = 0;
	memcpy(rec, &c, sizeof(c));
	loaded = true;
	unmapped = true;
	emits = 0;
	assert_int_equal(ftfb_sf_new(&f, &src, 1000, 1 << 20, emit, NULL), 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	assert_int_equal(ftfb_sf_tick(f, 10), 0);
	assert_int_equal(emits, 0); /* held: the entry is read again soon */
	unmapped = false;
	assert_int_equal(ftfb_sf_tick(f, 20), 0);
	assert_int_equal(emits, 1);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 3); /* 0x400150 <- 0x400250 <- 0x400310 */
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_int_equal(ips[2], BASE + 0x310);

	/* still in no mapping when the entry is read for the last time,
	 * or at the deadline: at once, and the reason is the address (a
	 * leaf's rbp 0x1234 is no frame to follow), not "not loaded" */
	unmapped = true;
	last_read = true;
	assert_int_equal(ftfb_sf_event(f, rec, size, 30), 1);
	assert_int_equal(ftfb_sf_tick(f, 40), 0);
	assert_int_equal(emits, 2);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 2);
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_int_equal(ips[1], FTFB_UW_STOP_IP(FTFB_UW_NO_MAPPING));
	last_read = false;
	assert_int_equal(ftfb_sf_event(f, rec, size, 50), 1);
	assert_int_equal(ftfb_sf_tick(f, 1049), 0);
	assert_int_equal(emits, 2);
	assert_int_equal(ftfb_sf_tick(f, 1050), 0);
	assert_int_equal(emits, 3);
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_int_equal(ips[1], FTFB_UW_STOP_IP(FTFB_UW_NO_MAPPING));
	unmapped = false;
	ftfb_sf_free(f);
}

/* The image whose entry uw_exited holds (FTFB_IMAGE_ID of its exec or
 * exit event): a later image of the pid has no copies held. */
#define ENDED_IMAGE 7

/* the entry image ENDED_IMAGE ended with (uw_exited): its table built */
static int exited_entry(void *ctx, uint32_t tgid, uint32_t image,
			struct ftfb_uw_proc *out, struct ftfb_uw_vmas *vmas)
{
	vmas->n = 0;
	bool was = loaded;
	int rc;

	if (image != ENDED_IMAGE)
		return -2;
	loaded = true;
	rc = get_proc(ctx, tgid, out);
	loaded = was;
	return rc;
}

/* A finisher whose live entry is pending and whose ended images'
 * entries come from exited_entry, holding one copy of rec. */
static struct ftfb_sf *holding_one_copy(const unsigned char *rec, size_t size)
{
	struct ftfb_sf_source with_exited = src;
	struct ftfb_sf *f;

	with_exited.exited = exited_entry;
	loaded = false; /* (the live entry: still pending) */
	emits = 0;
	assert_int_equal(
		ftfb_sf_new(&f, &with_exited, 1000, 1 << 20, emit, NULL), 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	return f;
}

/* The last sample emitted was walked whole: its 3 user frames end in
 * _start's row. */
static void assert_emitted_whole(void)
{
	struct ftfb_stack ev;
	uint64_t ips[3];

	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 3);
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_int_equal(ips[2], BASE + 0x310);
}

/* A process that exits a few ms after its copies were taken: at its exit
 * event they are finished from the entry it exited with, not handed on
 * as they were; an exit of a thread (the group alive) does nothing. */
static void test_finished_at_exit(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_sf *f = holding_one_copy(rec, size);
	struct ftfb_sf_stats st;
	struct ftfb_exit x;

	(void)state;
	memset(&x, 0, sizeof(x));
	x.hdr.kind = FTFB_EV_EXIT;
	x.hdr.tgid = 42;
	x.image = ENDED_IMAGE;
	assert_int_equal(ftfb_sf_event(f, &x, sizeof(x), 5), 0);
	assert_int_equal(emits, 0); /* a thread's exit */
	x.group_dead = 1;
	assert_int_equal(ftfb_sf_event(f, &x, sizeof(x), 6), 0);
	assert_int_equal(emits, 1);
	assert_emitted_whole();
	ftfb_sf_get_stats(f, &st);
	assert_int_equal(st.finished, 1);
	assert_int_equal(st.gone, 0);
	ftfb_sf_free(f);
}

/* sh exec'd into gcc a millisecond after its copy was taken: at the
 * exec event the copy is finished from the entry sh's image ended with
 * (its image's, by the event's image id), not handed on as it was; an
 * exec from another image finds no entry, and hands its copies on. */
static void test_finished_at_exec(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_sf *f = holding_one_copy(rec, size);
	struct ftfb_sf_stats st;
	struct ftfb_comm_ev ex;
	struct ftfb_stack ev;

	(void)state;
	ex = exec_ev(42, ENDED_IMAGE);
	assert_int_equal(ftfb_sf_event(f, &ex, sizeof(ex), 5), 0);
	assert_int_equal(emits, 1);
	assert_emitted_whole();
	/* another image's exec */
	assert_int_equal(ftfb_sf_event(f, rec, size, 6), 1);
	ex.image = ENDED_IMAGE + 1;
	assert_int_equal(ftfb_sf_event(f, &ex, sizeof(ex), 7), 0);
	assert_int_equal(emits, 2);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 2);
	ftfb_sf_get_stats(f, &st);
	assert_int_equal(st.finished, 1);
	assert_int_equal(st.as_is, 1);
	assert_int_equal(st.gone, 1);
	ftfb_sf_free(f);
}

/* The file the mapping at BASE maps (its device and inode), and whether
 * its table is built yet (uw_files has it). */
#define FILE_DEV 5
#define FILE_INO 9
static bool file_built;

/* uw_files: the table of (FILE_DEV, FILE_INO) once built, table 0 with
 * one executable segment at file offset 0 and vaddr 0 (the loader's
 * bias for a mapping of it at BASE from offset 0: BASE, as get_proc's) */
static int files(void *ctx, uint64_t dev, uint64_t ino,
		 struct ftfb_uw_file *out)
{
	(void)ctx;
	if (!file_built || dev != FILE_DEV || ino != FILE_INO)
		return -2;
	memset(out, 0, sizeof(*out));
	out->table = 0;
	out->nsegs = 1;
	out->segs[0].filesz = 0x1000;
	return 0;
}

/* the entry image ENDED_IMAGE ended with, its table still being built,
 * and its mappings as the walker listed them then */
static int ended_pending(void *ctx, uint32_t tgid, uint32_t image,
			 struct ftfb_uw_proc *out, struct ftfb_uw_vmas *vmas)
{
	bool was = loaded;
	int rc;

	if (image != ENDED_IMAGE)
		return -2;
	loaded = false;
	rc = get_proc(ctx, tgid, out);
	loaded = was;
	memset(vmas, 0, sizeof(*vmas));
	vmas->n = 1;
	vmas->v[0].start = BASE;
	vmas->v[0].end = BASE + 0x1000;
	vmas->v[0].dev = FILE_DEV;
	vmas->v[0].ino = FILE_INO;
	return rc;
}

/* An ar that exits while the table of the library it runs in is still
 * being built: its copies wait on past its exit with the entry and the
 * mappings it ended with, and are finished once the table is built
 * (found by the file); its exit event waits with them and is handed on
 * after the last (the translator names them before the process's end).
 * A copy whose table never comes goes on as it was at its deadline. */
static void test_waits_past_exit(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_sf_source with_ended = src;
	struct ftfb_sf_stats st;
	struct ftfb_stack ev;
	struct ftfb_exit x, got;
	struct ftfb_sf *f;

	(void)state;
	with_ended.exited = ended_pending;
	with_ended.file = files;
	loaded = file_built = false;
	emits = 0;
	assert_int_equal(
		ftfb_sf_new(&f, &with_ended, 1000, 1 << 20, emit, NULL), 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	memset(&x, 0, sizeof(x));
	x.hdr.kind = FTFB_EV_EXIT;
	x.hdr.tgid = 42;
	x.image = ENDED_IMAGE;
	x.group_dead = 1;
	assert_int_equal(ftfb_sf_event(f, &x, sizeof(x), 5), 1); /* held */
	assert_int_equal(emits, 0); /* the copy kept past the exit */
	assert_int_equal(ftfb_sf_tick(f, 10), 0);
	assert_int_equal(emits, 0); /* the table not built yet */
	file_built = true;
	assert_int_equal(ftfb_sf_tick(f, 20), 0);
	assert_int_equal(emits, 2); /* the sample, then the exit */
	memcpy(&got, emitted, sizeof(got));
	assert_int_equal(got.hdr.kind, FTFB_EV_EXIT);
	assert_int_equal(got.hdr.tgid, 42);
	memcpy(emitted, before, sizeof(emitted));
	assert_emitted_whole();
	/* another copy, whose table never comes: as it was, at its due */
	file_built = false;
	assert_int_equal(ftfb_sf_event(f, rec, size, 30), 1);
	assert_int_equal(ftfb_sf_event(f, &x, sizeof(x), 35), 1);
	assert_int_equal(ftfb_sf_tick(f, 500), 0);
	assert_int_equal(emits, 2);
	assert_int_equal(ftfb_sf_tick(f, 1030), 0);
	assert_int_equal(emits, 4);
	memcpy(&ev, before, sizeof(ev));
	assert_int_equal(ev.hdr.kind, FTFB_EV_STACK_ON);
	assert_int_equal(ev.nu, 2); /* [pc, "not loaded yet"] */
	ftfb_sf_get_stats(f, &st);
	assert_int_equal(st.finished, 1);
	assert_int_equal(st.as_is, 1);
	/* an exec does not wait: the new image's samples come next */
	assert_int_equal(ftfb_sf_event(f, rec, size, 1100), 1);
	{
		struct ftfb_comm_ev exe = exec_ev(42, ENDED_IMAGE);

		assert_int_equal(ftfb_sf_event(f, &exe, sizeof(exe), 1105), 0);
	}
	assert_int_equal(emits, 5);
	ftfb_sf_free(f);
}

/* when the kernel recorded the process mapping the file at BASE (the
 * fake log: one mapping of (FILE_DEV, FILE_INO), made at mapped_ns) */
static uint64_t mapped_ns;

static size_t log_of(void *ctx, uint32_t tgid, uint64_t at_ns,
		     struct ftfb_uw_vma *out, size_t max)
{
	(void)ctx;
	if (tgid != 42 || !max || mapped_ns > at_ns)
		return 0;
	memset(out, 0, sizeof(*out));
	out->start = BASE;
	out->end = BASE + 0x1000;
	out->dev = FILE_DEV;
	out->ino = FILE_INO;
	return 1;
}

/* ar's bfd plugin: dlopen'd, sampled and dlclose'd before any read of
 * the maps showed it, its process's reads spent (the entry maps
 * nothing there, FINAL). The copy is walked with the mapping the kernel
 * recorded before the sample, once the file's table is built, whole;
 * a mapping recorded after the sample is not its: "address in no
 * mapping" at once, as without a log. */
static void test_dlclosed(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_sf_source with_log = src;
	struct ftfb_stack_copy c;
	struct ftfb_stack ev;
	struct ftfb_sf *f;
	uint64_t ips[2];

	(void)state;
	memcpy(&c, rec, sizeof(c));
	c.map_start = c.map_end = 0; /* (the walker saw no mapping) */
	memcpy(rec, &c, sizeof(c));
	with_log.file = files;
	with_log.mapped = log_of;
	loaded = unmapped = last_read = true;
	file_built = false;
	mapped_ns = 500; /* (the sample: at 1000) */
	emits = 0;
	assert_int_equal(ftfb_sf_new(&f, &with_log, 1000, 1 << 20, emit, NULL),
			 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	assert_int_equal(ftfb_sf_tick(f, 10), 0);
	assert_int_equal(emits, 0); /* held: the file's table being built */
	file_built = true;
	assert_int_equal(ftfb_sf_tick(f, 20), 0);
	assert_int_equal(emits, 1);
	assert_emitted_whole();

	mapped_ns = 1001; /* recorded after the sample */
	assert_int_equal(ftfb_sf_event(f, rec, size, 30), 1);
	assert_int_equal(ftfb_sf_tick(f, 40), 0);
	assert_int_equal(emits, 2);
	memcpy(&ev, emitted, sizeof(ev));
	assert_int_equal(ev.nu, 2);
	memcpy(ips, emitted + sizeof(ev), sizeof(ips));
	assert_int_equal(ips[1], FTFB_UW_STOP_IP(FTFB_UW_NO_MAPPING));
	unmapped = last_read = file_built = false;
	ftfb_sf_free(f);
}

/* the time up to which the fake log is whole */
static uint64_t log_whole_ns;

static uint64_t log_until(void *ctx)
{
	(void)ctx;
	return log_whole_ns;
}

/* A copy taken after what the log has (its records are taken every few
 * ms) waits for it, though its table is there: the library it ran in may
 * be one mapped and unmapped just before. At the stop it goes as it is
 * walked then; at its deadline too. */
static void test_waits_for_the_log(void **state)
{
	unsigned char rec[1024];
	size_t size = make_record(rec);
	struct ftfb_sf_source with_log = src;
	struct ftfb_sf *f;

	(void)state;
	with_log.mapped_until = log_until;
	loaded = true;
	log_whole_ns = 999; /* (the sample: at 1000) */
	emits = 0;
	assert_int_equal(ftfb_sf_new(&f, &with_log, 1000, 1 << 20, emit, NULL),
			 0);
	assert_int_equal(ftfb_sf_event(f, rec, size, 0), 1);
	assert_int_equal(ftfb_sf_tick(f, 10), 0);
	assert_int_equal(emits, 0);
	log_whole_ns = 1000;
	assert_int_equal(ftfb_sf_tick(f, 20), 0);
	assert_int_equal(emits, 1);
	assert_emitted_whole();
	log_whole_ns = 0;
	assert_int_equal(ftfb_sf_event(f, rec, size, 30), 1); /* (due 1030) */
	assert_int_equal(ftfb_sf_tick(f, 1029), 0);
	assert_int_equal(emits, 1);
	assert_int_equal(ftfb_sf_tick(f, 1030), 0);
	assert_int_equal(emits, 2);
	assert_emitted_whole();
	assert_int_equal(ftfb_sf_event(f, rec, size, 2000), 1);
	assert_int_equal(ftfb_sf_flush(f), 0);
	assert_int_equal(emits, 3);
	assert_emitted_whole();
	ftfb_sf_free(f);
}

/* a record whose sizes do not add up is skipped, never read past */
static void test_malformed(void **state)
{
	unsigned char rec[1024], out[FTFB_SF_OUT_MAX];
	size_t size = make_record(rec);
	struct ftfb_stack_copy c;
	uint32_t why;

	(void)state;
	assert_int_not_equal(ftfb_sf_build(rec, size, &src, NULL, out, &why),
			     0);
	assert_int_equal(ftfb_sf_build(rec, size - 1, &src, NULL, out, &why),
			 0);
	memcpy(&c, rec, sizeof(c));
	c.nbytes += 8;
	memcpy(rec, &c, sizeof(c));
	assert_int_equal(ftfb_sf_build(rec, size, &src, NULL, out, &why), 0);
	c.nbytes -= 8;
	c.ev.nu = 0;
	memcpy(rec, &c, sizeof(c));
	assert_int_equal(ftfb_sf_build(rec, size, &src, NULL, out, &why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_complete),
		cmocka_unit_test(test_walk_short_copy),
		cmocka_unit_test(test_walk_retaddr_row),
		cmocka_unit_test(test_walk_depth_and_pending),
		cmocka_unit_test(test_rule_plt),
		cmocka_unit_test(test_held_until_loaded),
		cmocka_unit_test(test_as_is),
		cmocka_unit_test(test_mapped_since),
		cmocka_unit_test(test_finished_at_exit),
		cmocka_unit_test(test_finished_at_exec),
		cmocka_unit_test(test_waits_past_exit),
		cmocka_unit_test(test_dlclosed),
		cmocka_unit_test(test_waits_for_the_log),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
