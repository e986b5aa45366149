// SPDX-License-Identifier: MIT
/*
 * The output pool (src/output_pool.h): a file its threads write holds
 * exactly the bytes the same events give on a memory destination, plain
 * or, gzipped, after inflating it (zlib, independently), one member per
 * buffer, in order; a record larger than a buffer goes through whole; a
 * full disk leaves whole records (a complete gzip, cut back to its last
 * member; a plain file cut back to its last record), with one line that
 * says so.
 */
#include "../ftf/helpers.h"

#include "../ftf/gzip_check.h"
#include "output_pool.h"

/* A pool writing into t->path (level 0 when the disk is to fill). */
static struct ftfb_output_pool *open_pool(struct tmp *t, bool gzip, int level,
					  size_t buf, unsigned threads)
{
	struct ftfb_output_pool_opts po = {.gzip = gzip, .level = level,
					   .buf_size = buf,
					   .threads = threads};
	struct ftfb_output_pool *p;
	char err[256];
	int fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftfb_output_pool_new(&p, fd, &po, err, sizeof(err)),
			 0);
	return p;
}

/* The file's records: inflated (gzip), or as they are. */
static uint8_t *file_records(struct tmp *t, bool gzip, size_t *len,
			     size_t *file_len)
{
	uint8_t *raw = slurp(t->path, file_len), *plain;
	bool ended;

	if (!gzip) {
		*len = *file_len;
		return raw;
	}
	plain = inflate_all(raw, *file_len, len, &ended);
	assert_true(ended); /* a complete gzip */
	free(raw);
	return plain;
}

/* n events through `threads` threads and buffers of buf bytes: the file
 * holds the memory destination's bytes, gzipped in at least min_members
 * members. */
static void round_trip(bool gzip, int n, size_t buf, unsigned threads,
		       int min_members)
{
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct ftfb_output_pool *p;
	struct ftf_dest_mem ref;
	struct ftf_writer w;
	size_t len, file_len;
	uint8_t *got;
	struct tmp t;

	tmp_make(&t);
	fake_clock_init(&c, &ft);
	p = open_pool(&t, gzip, -1, buf, threads);
	assert_int_equal(ftf_writer_init(&w, ftfb_output_pool_dest(p), &o), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(emit(&w, i), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
	reference(&ref, &o, n);
	got = file_records(&t, gzip, &len, &file_len);
	printf("# %zu record bytes, %zu in the file (%d gzip members)\n", len,
	       file_len, gzip ? last_members : 0);
	assert_true(!gzip || last_members >= min_members);
	assert_int_equal(file_len, ftfb_output_pool_bytes_out(p));
	assert_int_equal(len, ref.len);
	assert_memory_equal(got, ref.data, ref.len);
	assert_int_equal(ftfb_output_pool_bytes_in(p), ref.len);
	free(got);
	ftf_dest_mem_free(&ref);
	ftfb_output_pool_free(p);
	tmp_remove(&t);
}

/* 3 threads, 4 KiB buffers: about 60 members, compressed out of order,
 * written in order; plain, the same through one writing thread. */
static void files_hold_the_same_bytes(void **state)
{
	(void)state;
	round_trip(true, 5000, 4096, 3, 40);
	round_trip(false, 5000, 4096, 0, 0);
}

/* No event: the header alone (a valid gzip of one member). */
static void header_alone(void **state)
{
	(void)state;
	round_trip(true, 0, 0, 1, 1);
	round_trip(false, 0, 0, 1, 0);
}

/* A 20 KB blob record through 4 KiB buffers (ftf_write_bytes cuts it;
 * the pool carries it to a buffer large enough): it comes out whole. */
static void record_larger_than_a_buffer(bool gzip)
{
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	static uint8_t blob[20000];
	struct ftfb_output_pool *p;
	struct ftf_dest_mem ref;
	struct ftf_writer w, rw;
	size_t len, file_len;
	uint8_t *got;
	struct tmp t;

	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)(i * 7 + 3);
	tmp_make(&t);
	fake_clock_init(&c, &ft);
	p = open_pool(&t, gzip, -1, 4096, 2);
	assert_int_equal(ftf_writer_init(&w, ftfb_output_pool_dest(p), &o), 0);
	ftf_dest_mem_init(&ref, 0);
	assert_int_equal(ftf_writer_init(&rw, &ref.base, &o), 0);
	for (int i = 0; i < 3; i++) {
		struct ftf_writer *ws[2] = {&w, &rw};

		for (int k = 0; k < 2; k++) {
			assert_int_equal(emit(ws[k], i), 0);
			assert_int_equal(ftf_write_blob(ws[k], 1, 1, blob,
							sizeof(blob)),
					 0);
		}
	}
	assert_int_equal(ftf_writer_close(&w), 0);
	assert_int_equal(ftf_writer_close(&rw), 0);
	got = file_records(&t, gzip, &len, &file_len);
	assert_int_equal(len, ref.len);
	assert_memory_equal(got, ref.data, ref.len);
	free(got);
	ftf_dest_mem_free(&ref);
	ftfb_output_pool_free(p);
	tmp_remove(&t);
}

static void large_records(void **state)
{
	(void)state;
	record_larger_than_a_buffer(true);
	record_larger_than_a_buffer(false);
}

/* A tmpfs of 16 KiB fills: the writer gets -ENOSPC with the line, and
 * the file holds whole records, a prefix of the reference's. */
static void full_disk(bool gzip, const char *cut)
{
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct ftfb_output_pool *p;
	struct ftf_dest_mem ref;
	struct ftf_writer w;
	size_t len, file_len;
	uint8_t *got;
	struct tmp t;
	int i, rc = 0;

	if (!tmp_make_small(&t, "size=16k"))
		skip();
	fake_clock_init(&c, &ft);
	p = open_pool(&t, gzip, 0, 5000, 2);
	assert_int_equal(ftf_writer_init(&w, ftfb_output_pool_dest(p), &o), 0);
	for (i = 0; rc == 0 && i < 100000; i++)
		rc = emit(&w, i);
	assert_int_equal(rc, -ENOSPC);
	printf("# %s: full after %d events: %s\n", gzip ? "gzip" : "plain", i,
	       ftf_writer_error(&w));
	assert_non_null(strstr(ftf_writer_error(&w), "No space left on device"));
	assert_non_null(strstr(ftf_writer_error(&w), cut));
	assert_int_equal(ftf_writer_close(&w), -ENOSPC);
	got = file_records(&t, gzip, &len, &file_len);
	assert_int_equal(file_len, ftfb_output_pool_bytes_out(p));
	assert_true(file_len > 5000 && file_len <= 16384);
	assert_int_equal(ftf_whole_records_prefix(got, len), len);
	reference(&ref, &o, i);
	assert_true(len <= ref.len);
	assert_memory_equal(got, ref.data, len);
	ftf_dest_mem_free(&ref);
	free(got);
	ftfb_output_pool_free(p);
	unlink(t.path);
	assert_int_equal(umount(t.dir), 0);
	tmp_remove(&t);
}

static void full_disk_gzip(void **state)
{
	(void)state;
	full_disk(true, "cut back to the last whole gzip member");
}

static void full_disk_plain(void **state)
{
	(void)state;
	/* (cut back only when a record was cut: here the write may also
	 * stop on a record boundary) */
	full_disk(false, "bytes of whole records in the file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(files_hold_the_same_bytes),
		cmocka_unit_test(header_alone),
		cmocka_unit_test(large_records),
		cmocka_unit_test(full_disk_gzip),
		cmocka_unit_test(full_disk_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
