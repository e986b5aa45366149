// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the samples finished from a copy of their user
 * stack (stack_finish.c, copy_walk.c, compiled into the target with its
 * coverage): the record and the stack bytes in it are the traced
 * process's. The input is
 *   u8 mode, 8 rows (struct ftfb_uw_row, 64 bytes), then a copy record;
 * with mode & 1 the record's counts are made to agree with its size (so
 * that the walk itself is reached), else it is taken as it is. The
 * record is built into a sample and also held and settled by a
 * finisher; neither may crash, read out of bounds, leak, or give a
 * sample larger than FTFB_SF_OUT_MAX or deeper than FTFB_STACK_MAX_DEPTH.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stack_finish.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ftfb_uw_row rows[8];

static int get_table(void *ctx, uint32_t id, struct ftfb_uw_table *out)
{
	(void)ctx;
	out->first = id == 0 ? 0 : 4;
	out->n = id == 0 ? 8 : 100; /* (table 1 runs past the rows) */
	return id > 1 ? -1 : 0;
}

static void make_proc(struct ftfb_uw_proc *p)
{
	static const uint32_t tables[] = {0,
					  1,
					  FTFB_UW_TABLE_FP,
					  FTFB_UW_TABLE_NONE,
					  FTFB_UW_TABLE_PENDING,
					  FTFB_UW_TABLE_UPROBES,
					  FTFB_UW_TABLE_OVER_BUDGET};

	memset(p, 0, sizeof(*p));
	p->n = sizeof(tables) / sizeof(tables[0]);
	for (uint32_t i = 0; i < p->n; i++) {
		p->m[i].start = 0x1000 + i * 0x10000ull;
		p->m[i].end = p->m[i].start + 0x10000;
		p->m[i].bias = p->m[i].start;
		p->m[i].table = tables[i];
		p->m[i].go_top = i == 3 ? 16 : 0;
	}
}

static int get_proc(void *ctx, uint32_t tgid, struct ftfb_uw_proc *out)
{
	(void)ctx;
	if (tgid & 1)
		return -2;
	make_proc(out);
	return 0;
}

static int emit(void *ctx, const void *data, size_t size)
{
	struct ftfb_stack ev;

	(void)ctx;
	if (size < sizeof(ev) || size > FTFB_SF_OUT_MAX)
		abort();
	memcpy(&ev, data, sizeof(ev));
	if (ev.nu > FTFB_STACK_MAX_DEPTH ||
	    size != sizeof(ev) + (size_t)(ev.nu + ev.nk + ev.py.n) * 8)
		abort();
	return 0;
}

/* The counts of rec made to agree with its size (or less, never more):
 * returns its size then. */
static size_t fix_up(uint8_t *rec, size_t size)
{
	struct ftfb_stack_copy c;
	size_t rest = size - sizeof(c), n;

	if (rest < 8)
		return size;
	memcpy(&c, rec, sizeof(c));
	c.ev.hdr.kind = FTFB_EV_STACK_COPY;
	c.ev.nu = 1 + c.ev.nu % FTFB_STACK_MAX_DEPTH;
	c.ev.nk %= FTFB_STACK_MAX_DEPTH + 1;
	c.ev.py.n %= FTFB_PY_MAX_DEPTH + 1;
	n = (size_t)c.ev.nu + c.ev.nk + c.ev.py.n;
	if (n * 8 > rest) {
		c.ev.nu = 1;
		c.ev.nk = c.ev.py.n = 0;
		n = 1;
	}
	c.nbytes = (uint32_t)(rest >= n * 8 ? rest - n * 8 : 0);
	if (c.nbytes > FTFB_SC_MAX_BYTES)
		c.nbytes = FTFB_SC_MAX_BYTES;
	memcpy(rec, &c, sizeof(c));
	return sizeof(c) + n * 8 + c.nbytes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[FTFB_SF_OUT_MAX];
	struct ftfb_sf_source src = {
		.proc = get_proc,
		.table = get_table,
		.rows = rows,
		.nrows = 8,
	};
	struct ftfb_uw_proc p;
	struct ftfb_sf *f;
	uint8_t *rec;
	size_t n;
	uint32_t why;

	if (size < 1 + sizeof(rows) + sizeof(struct ftfb_stack_copy))
		return 0;
	memcpy(rows, data + 1, sizeof(rows));
	size -= 1 + sizeof(rows);
	rec = malloc(size);
	if (!rec)
		return 0;
	memcpy(rec, data + 1 + sizeof(rows), size);
	if (data[0] & 1)
		size = fix_up(rec, size);
	make_proc(&p);
	n = ftfb_sf_build(rec, size, &src, &p, out, &why);
	if (n)
		emit(NULL, out, n);
	if (!ftfb_sf_new(&f, &src, 10, 1 << 16, emit, NULL)) {
		ftfb_sf_event(f, rec, size, 0);
		ftfb_sf_tick(f, data[0] >> 1);
		ftfb_sf_flush(f);
		ftfb_sf_free(f);
	}
	free(rec);
	return 0;
}
