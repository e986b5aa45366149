// SPDX-License-Identifier: MIT
/*
 * The gzip destination: the file inflates (zlib, independently of the
 * writer) to exactly the bytes the same events give on a memory
 * destination, one member per buffer; a file read before close (a killed
 * writer) is a complete gzip of a prefix of them that ends on a record
 * boundary; a full disk leaves the file cut back to its last member.
 */
#include "helpers.h"

#include "gzip_check.h"

static void inflates_to_the_same_bytes(void **state)
{
	struct ftf_dest_gzip g;
	struct ftf_dest_mem ref;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct tmp t;
	uint8_t *gz, *plain;
	size_t gz_len, plain_len;
	bool ended;

	(void)state;
	tmp_make(&t);
	fake_clock_init(&c, &ft);
	/* 4 KiB buffers: about 60 flushes */
	assert_int_equal(ftf_dest_gzip_open(&g, t.path, 4096, -1), 0);
	assert_int_equal(ftf_writer_init(&w, &g.base, &o), 0);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(emit(&w, i), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
	reference(&ref, &o, 5000);

	gz = slurp(t.path, &gz_len);
	assert_int_equal(gz[0], 0x1f);
	assert_int_equal(gz[1], 0x8b);
	assert_int_equal(gz_len, g.bytes_written);
	plain = inflate_all(gz, gz_len, &plain_len, &ended);
	printf("# %zu record bytes -> %zu gzip bytes in %d members\n",
	       plain_len, gz_len, last_members);
	assert_true(ended);
	assert_true(last_members > 40); /* one per 4 KiB buffer */
	assert_int_equal(plain_len, ref.len);
	assert_memory_equal(plain, ref.data, ref.len);
	assert_int_equal(g.bytes_in, ref.len);
	free(gz);
	free(plain);
	ftf_dest_mem_free(&ref);
	tmp_remove(&t);
}

/* What a killed writer leaves: the file as it is between two events. */
static void unclosed_file_inflates_to_whole_records(void **state)
{
	struct ftf_dest_gzip g;
	struct ftf_dest_mem ref;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct tmp t;
	size_t checked = 0, last_len = 0;

	(void)state;
	tmp_make(&t);
	fake_clock_init(&c, &ft);
	reference(&ref, &o, 3000);
	assert_int_equal(ftf_dest_gzip_open(&g, t.path, 2048, 6), 0);
	assert_int_equal(ftf_writer_init(&w, &g.base, &o), 0);
	for (int i = 0; i < 3000; i++) {
		uint8_t *gz, *plain;
		size_t gz_len, plain_len;
		bool ended;

		assert_int_equal(emit(&w, i), 0);
		if (i % 97)
			continue;
		gz = slurp(t.path, &gz_len);
		plain = inflate_all(gz, gz_len, &plain_len, &ended);
		assert_true(ended || gz_len == 0); /* a complete gzip */
		assert_int_equal(plain_len, g.bytes_in);
		assert_int_equal(ftf_whole_records_prefix(plain, plain_len),
				 plain_len);
		assert_memory_equal(plain, ref.data, plain_len);
		assert_true(plain_len >= last_len);
		last_len = plain_len;
		checked++;
		free(gz);
		free(plain);
	}
	assert_true(last_len > 0);
	printf("# %zu unclosed states checked, the last %zu bytes\n", checked,
	       last_len);
	assert_int_equal(ftf_writer_close(&w), 0);
	ftf_dest_mem_free(&ref);
	tmp_remove(&t);
}

/* A full disk: a tmpfs of 16 KiB; the failed write is cut back to the
 * previous member, so the file is still a complete gzip of whole
 * records. */
static void full_disk_cuts_back_to_a_member(void **state)
{
	struct ftf_dest_gzip g;
	struct ftf_dest_mem ref;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct tmp t;
	uint8_t *gz, *plain;
	size_t gz_len, plain_len;
	bool ended;
	int i, rc = 0;

	(void)state;
	if (!tmp_make_small(&t, "size=16k"))
		skip();
	fake_clock_init(&c, &ft);
	assert_int_equal(ftf_dest_gzip_open(&g, t.path, 5000, 0), 0);
	assert_int_equal(ftf_writer_init(&w, &g.base, &o), 0);
	for (i = 0; rc == 0 && i < 100000; i++)
		rc = emit(&w, i);
	assert_int_equal(rc, -ENOSPC);
	assert_non_null(
		strstr(g.errmsg, "cut back to the last whole gzip member"));
	assert_int_equal(ftf_writer_close(&w), -ENOSPC);

	gz = slurp(t.path, &gz_len);
	printf("# tmpfs full after %d events: %zu gzip bytes\n# %s\n", i,
	       gz_len, g.errmsg);
	assert_int_equal(gz_len, g.bytes_written);
	assert_true(gz_len > 5000 && gz_len <= 16384);
	plain = inflate_all(gz, gz_len, &plain_len, &ended);
	assert_true(ended);
	assert_true(plain_len > 0);
	assert_int_equal(ftf_whole_records_prefix(plain, plain_len), plain_len);
	reference(&ref, &o, i);
	assert_memory_equal(plain, ref.data, plain_len);
	ftf_dest_mem_free(&ref);
	free(gz);
	free(plain);
	unlink(t.path);
	assert_int_equal(umount(t.dir), 0);
	tmp_remove(&t);
}

static void bad_level_and_path(void **state)
{
	struct ftf_dest_gzip g;

	(void)state;
	assert_int_equal(
		ftf_dest_gzip_open(&g, "/nonexistent/dir/x.fxt.gz", 0, -1),
		-ENOENT);
	assert_non_null(strstr(g.errmsg, "cannot open"));
	assert_int_equal(ftf_dest_gzip_init_fd(&g, 1, 0, 0, 10), -EINVAL);
	assert_non_null(strstr(g.errmsg, "out of range"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inflates_to_the_same_bytes),
		cmocka_unit_test(unclosed_file_inflates_to_whole_records),
		cmocka_unit_test(full_disk_cuts_back_to_a_member),
		cmocka_unit_test(bad_level_and_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
