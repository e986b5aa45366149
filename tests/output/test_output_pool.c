// SPDX-License-Identifier: MIT
/*
 * The gzip pool (src/gzip_pool.h): the file its threads compress and
 * write inflates (zlib, independently) to exactly the bytes the same
 * events give on a memory destination, one member per buffer, in order;
 * a record larger than a buffer goes through whole; a full disk leaves a
 * complete gzip of whole records, cut back to its last member, with one
 * line that says so.
 */
#include "../ftf/helpers.h"

#include "../ftf/gzip_check.h"
#include "gzip_pool.h"

/* n events through a pool of `threads` threads with buffers of buf
 * bytes into t->path; the pool, for its counts (closed). */
static struct ftfb_gzip_pool *write_events(struct tmp *t,
					   const struct ftf_writer_options *o,
					   int n, size_t buf, unsigned threads)
{
	struct ftfb_gzip_pool *p;
	struct ftf_writer w;
	char err[256];
	int fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftfb_gzip_pool_new(&p, fd, -1, buf, threads, err,
					    sizeof(err)),
			 0);
	assert_int_equal(ftf_writer_init(&w, ftfb_gzip_pool_dest(p), o), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(emit(&w, i), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
	return p;
}

static void check_file(struct tmp *t, const struct ftf_writer_options *o,
		       int n, struct ftfb_gzip_pool *p, int min_members)
{
	struct ftf_dest_mem ref;
	uint8_t *gz, *plain;
	size_t gz_len, plain_len;
	bool ended;

	reference(&ref, o, n);
	gz = slurp(t->path, &gz_len);
	assert_int_equal(gz_len, ftfb_gzip_pool_bytes_out(p));
	plain = inflate_all(gz, gz_len, &plain_len, &ended);
	printf("# %zu record bytes -> %zu gzip bytes in %d members\n",
	       plain_len, gz_len, last_members);
	assert_true(ended);
	assert_true(last_members >= min_members);
	assert_int_equal(plain_len, ref.len);
	assert_memory_equal(plain, ref.data, ref.len);
	assert_int_equal(ftfb_gzip_pool_bytes_in(p), ref.len);
	free(gz);
	free(plain);
	ftf_dest_mem_free(&ref);
}

/* n events through `threads` threads and buffers of buf bytes: the file
 * inflates to the memory destination's bytes in at least min_members
 * members. */
static void round_trip(int n, size_t buf, unsigned threads, int min_members)
{
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct ftfb_gzip_pool *p;
	struct tmp t;

	tmp_make(&t);
	fake_clock_init(&c, &ft);
	p = write_events(&t, &o, n, buf, threads);
	check_file(&t, &o, n, p, min_members);
	ftfb_gzip_pool_free(p);
	tmp_remove(&t);
}

/* 3 threads, 4 KiB buffers: about 60 members, compressed out of order,
 * written in order. */
static void inflates_to_the_same_bytes(void **state)
{
	(void)state;
	round_trip(5000, 4096, 3, 40);
}

/* No event: a valid gzip (one member) of the header alone. */
static void one_thread_and_few_events(void **state)
{
	(void)state;
	round_trip(0, 0, 1, 1);
}

/* A 20 KB blob record through 4 KiB buffers (ftf_write_bytes cuts it;
 * the pool carries it to the next buffers): it inflates whole. */
static void record_larger_than_a_buffer(void **state)
{
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	static uint8_t blob[20000];
	struct ftf_dest_mem ref;
	struct ftfb_gzip_pool *p;
	struct ftf_writer w, rw;
	uint8_t *gz, *plain;
	size_t gz_len, plain_len;
	char err[256];
	bool ended;
	struct tmp t;
	int fd;

	(void)state;
	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)(i * 7 + 3);
	tmp_make(&t);
	fake_clock_init(&c, &ft);
	fd = open(t.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(ftfb_gzip_pool_new(&p, fd, -1, 4096, 2, err,
					    sizeof(err)),
			 0);
	assert_int_equal(ftf_writer_init(&w, ftfb_gzip_pool_dest(p), &o), 0);
	ftf_dest_mem_init(&ref, 0);
	assert_int_equal(ftf_writer_init(&rw, &ref.base, &o), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(emit(&w, i), 0);
		assert_int_equal(emit(&rw, i), 0);
		assert_int_equal(ftf_write_blob(&w, 1, 1, blob,
						sizeof(blob)),
				 0);
		assert_int_equal(ftf_write_blob(&rw, 1, 1, blob,
						sizeof(blob)),
				 0);
	}
	assert_int_equal(ftf_writer_close(&w), 0);
	assert_int_equal(ftf_writer_close(&rw), 0);
	gz = slurp(t.path, &gz_len);
	plain = inflate_all(gz, gz_len, &plain_len, &ended);
	assert_true(ended);
	assert_int_equal(plain_len, ref.len);
	assert_memory_equal(plain, ref.data, ref.len);
	free(gz);
	free(plain);
	ftf_dest_mem_free(&ref);
	ftfb_gzip_pool_free(p);
	tmp_remove(&t);
}

/* A tmpfs of 16 KiB fills: the writer gets -ENOSPC with the line, the
 * file is a complete gzip of whole records, the reference's prefix. */
static void full_disk_cuts_back_to_a_member(void **state)
{
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct ftf_dest_mem ref;
	struct ftfb_gzip_pool *p;
	struct ftf_writer w;
	uint8_t *gz, *plain;
	size_t gz_len, plain_len;
	char err[256];
	bool ended;
	struct tmp t;
	int i, rc = 0, fd;

	(void)state;
	if (!tmp_make_small(&t, "size=16k"))
		skip();
	fake_clock_init(&c, &ft);
	fd = open(t.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(ftfb_gzip_pool_new(&p, fd, 0, 5000, 2, err,
					    sizeof(err)),
			 0);
	assert_int_equal(ftf_writer_init(&w, ftfb_gzip_pool_dest(p), &o), 0);
	for (i = 0; rc == 0 && i < 100000; i++)
		rc = emit(&w, i);
	assert_int_equal(rc, -ENOSPC);
	assert_non_null(strstr(ftf_writer_error(&w), "No space left on device"));
	assert_non_null(strstr(ftf_writer_error(&w),
			       "cut back to the last whole gzip member"));
	assert_int_equal(ftf_writer_close(&w), -ENOSPC);
	gz = slurp(t.path, &gz_len);
	printf("# tmpfs full after %d events: %zu gzip bytes\n", i, gz_len);
	assert_int_equal(gz_len, ftfb_gzip_pool_bytes_out(p));
	assert_true(gz_len > 5000 && gz_len <= 16384);
	plain = inflate_all(gz, gz_len, &plain_len, &ended);
	assert_true(ended);
	assert_int_equal(ftf_whole_records_prefix(plain, plain_len), plain_len);
	reference(&ref, &o, i);
	assert_true(plain_len <= ref.len);
	assert_memory_equal(plain, ref.data, plain_len);
	ftf_dest_mem_free(&ref);
	free(gz);
	free(plain);
	ftfb_gzip_pool_free(p);
	unlink(t.path);
	assert_int_equal(umount(t.dir), 0);
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inflates_to_the_same_bytes),
		cmocka_unit_test(one_thread_and_few_events),
		cmocka_unit_test(record_larger_than_a_buffer),
		cmocka_unit_test(full_disk_cuts_back_to_a_member),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
