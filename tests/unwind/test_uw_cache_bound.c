// SPDX-License-Identifier: MIT
/*
 * test_uw_cache_bound - the unwind table cache's bound on its size
 * (uw_cache.h): tables of 1000 rows (504 + 8000 bytes a file, from the
 * format) stored in a cache of 20,000 bytes keep the two most recently
 * used; a table read back is the one stored, and the oldest file is the
 * one removed (its last use: written, or read since).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "unwind_table.h"
#include "uw_cache.h"

#define ROWS 1000
#define FILE_BYTES (504 + 8 * ROWS)

static void table(struct ftfb_uw_table_built *t, unsigned seed)
{
	memset(t, 0, sizeof(*t));
	t->rows = calloc(ROWS, sizeof(*t->rows));
	assert_non_null(t->rows);
	t->n = ROWS;
	t->base = 0x1000 * seed;
	t->nsegs = 1;
	t->segs[0].filesz = 0x10000;
	for (unsigned i = 0; i < ROWS; i++) {
		t->rows[i].pc = 4 * i;
		t->rows[i].cfa_off = (int16_t)(8 + seed);
		t->rows[i].type = FTFB_UW_CFA_RSP;
	}
}

static void key(struct ftfb_uw_cache_key *k, unsigned seed)
{
	memset(k, 0, sizeof(*k));
	k->build_id_len = 20;
	k->build_id[0] = (uint8_t)seed;
	k->file_size = 4096;
}

static void test_bound(void **state)
{
	char dir[] = "/tmp/uwcache-test-XXXXXX", err[256], cmd[128];
	struct ftfb_uw_table_built t[4], back;
	struct ftfb_uw_cache_key k[4];
	struct ftfb_uw_cache *c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	c = ftfb_uw_cache_open(dir, 20000, err, sizeof(err));
	assert_non_null(c);
	for (unsigned i = 0; i < 4; i++) {
		table(&t[i], i + 1);
		key(&k[i], i + 1);
	}
	assert_int_equal(ftfb_uw_cache_store(c, &k[0], &t[0]), 0);
	sleep(1); /* (mtimes a second apart, whatever the filesystem) */
	assert_int_equal(ftfb_uw_cache_store(c, &k[1], &t[1]), 0);
	assert_int_equal(ftfb_uw_cache_bytes(c), 2 * FILE_BYTES);
	sleep(1);
	/* table 0 used: table 1 is now the least recently used */
	assert_int_equal(ftfb_uw_cache_load(c, &k[0], &back, err, sizeof(err)),
			 0);
	assert_int_equal(back.n, ROWS);
	assert_int_equal(back.base, t[0].base);
	assert_memory_equal(back.rows, t[0].rows, ROWS * sizeof(*back.rows));
	ftfb_uw_table_free(&back);
	sleep(1);
	assert_int_equal(ftfb_uw_cache_store(c, &k[2], &t[2]), 0);
	assert_int_equal(ftfb_uw_cache_bytes(c), 2 * FILE_BYTES);
	assert_int_equal(ftfb_uw_cache_load(c, &k[1], &back, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(ftfb_uw_cache_load(c, &k[0], &back, err, sizeof(err)),
			 0);
	ftfb_uw_table_free(&back);
	assert_int_equal(ftfb_uw_cache_load(c, &k[2], &back, err, sizeof(err)),
			 0);
	ftfb_uw_table_free(&back);
	/* another key (a binary of another size) is not this table */
	k[3] = k[2];
	k[3].file_size++;
	assert_int_equal(ftfb_uw_cache_load(c, &k[3], &back, err, sizeof(err)),
			 -ENOENT);
	ftfb_uw_cache_close(c);
	for (unsigned i = 0; i < 4; i++)
		ftfb_uw_table_free(&t[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
