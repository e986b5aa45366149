// SPDX-License-Identifier: MIT
/*
 * The gzip destination: the file inflates (zlib, independently of the
 * writer) to exactly the bytes the same events give on a memory
 * destination, one member per buffer; a file read before close (a killed
 * writer) is a complete gzip of a prefix of them that ends on a record
 * boundary; a full disk leaves the file cut back to its last member.
 */
#include "helpers.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int last_members; /* members in the last inflate_all */

struct tmp {
	char dir[64];
	char path[128];
};

static void tmp_make(struct tmp *t)
{
	strcpy(t->dir, "/tmp/ftf-gz-test-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/out.fxt.gz", t->dir);
}

static void tmp_remove(struct tmp *t)
{
	unlink(t->path);
	rmdir(t->dir);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	uint8_t *p;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	assert_non_null(p);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

/* Inflates a gzip file image of one or more members; *ended says whether
 * the last member had its trailer (Z_STREAM_END at the end of the data).
 * Returns the bytes and their length. */
static uint8_t *inflate_all(const uint8_t *gz, size_t len, size_t *out_len,
			    bool *ended)
{
	size_t cap = 1 << 20;
	uint8_t *out = malloc(cap);
	z_stream zs = {0};
	int zr, members = 0;

	assert_non_null(out);
	assert_int_equal(inflateInit2(&zs, 31), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)len;
	do {
		if (zs.total_out == cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		zr = inflate(&zs, Z_SYNC_FLUSH);
		assert_true(zr == Z_OK || zr == Z_STREAM_END ||
			    zr == Z_BUF_ERROR);
		if (zr == Z_STREAM_END && zs.avail_in) {
			size_t total = zs.total_out;

			members++;
			assert_int_equal(inflateReset(&zs), Z_OK);
			zs.total_out = total;
			zr = Z_OK;
		}
	} while (zr == Z_OK);
	*ended = zr == Z_STREAM_END;
	*out_len = zs.total_out;
	last_members = members + (zr == Z_STREAM_END);
	inflateEnd(&zs);
	return out;
}

/* Event i: instants and counters with arguments that compress poorly
 * (a xorshift sequence), so a small disk fills. */
static int emit(struct ftf_writer *w, int i)
{
	uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
	int rc;

	x ^= x >> 29;
	if (i % 3 == 0)
		return ftf_write_instant(w, FTF_ARG_TYPES_NONE, 1, 0, 0,
					 (uint64_t)i);
	rc = ftf_write_instant(w, FTF_ARG_TYPES(2, 1, 0, 0, 0, 0), 2, 0, 0,
			       (uint64_t)i * 1000);
	if (!rc)
		rc = ftf_arg_int64(w, 3, (int64_t)x);
	if (!rc)
		rc = ftf_arg_uint64(w, 4, x * 0xBF58476D1CE4E5B9ull);
	if (!rc)
		rc = ftf_arg_int32(w, 5, i);
	return rc;
}

/* The same events on a memory destination: the reference bytes. */
static void reference(struct ftf_dest_mem *ref,
		      const struct ftf_writer_options *o, int n)
{
	struct ftf_writer w;

	ftf_dest_mem_init(ref, 0);
	assert_int_equal(ftf_writer_init(&w, &ref->base, o), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(emit(&w, i), 0);
	assert_int_equal(ftf_writer_close(&w), 0);
}

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
	tmp_make(&t);
	if (geteuid() != 0 ||
	    mount("tmpfs", t.dir, "tmpfs", 0, "size=16k") != 0) {
		tmp_remove(&t);
		skip();
	}
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
