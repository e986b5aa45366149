// SPDX-License-Identifier: MIT
/*
 * The file destination: only whole records reach the file, a short write
 * (full disk) cuts the file back to a record boundary, and what was
 * written reads back intact.
 */
#include "helpers.h"
#include "tmpfile.h"
#include "ftf/reader.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NONE FTF_ARG_TYPES_NONE

static size_t fd_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (size_t)st.st_size;
}

static void put(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void whole_records_prefix(void **state)
{
	uint8_t b[128] = {0};

	(void)state;
	put(b, 4 | (2ull << 4));       /* 2-word record */
	put(b + 16, 15 | (3ull << 4)); /* large record, size in 4..35 */
	put(b + 40, 2 | (2ull << 4));  /* 2-word record */
	assert_int_equal(ftf_whole_records_prefix(b, 56), 56);
	assert_int_equal(ftf_whole_records_prefix(b, 55), 40);
	assert_int_equal(ftf_whole_records_prefix(b, 39), 16);
	assert_int_equal(ftf_whole_records_prefix(b, 7), 0);
	assert_int_equal(ftf_whole_records_prefix(b, 0), 0);
	/* a zero size stops the walk */
	put(b + 56, 4);
	put(b + 64, 4 | (1ull << 4));
	assert_int_equal(ftf_whole_records_prefix(b, 72), 56);
	/* large sizes beyond 12 bits */
	put(b, 15 | (0x100000000ull << 4)); /* bit 36: large type, not size */
	assert_int_equal(ftf_whole_records_prefix(b, 128), 0);
}

/* A writer on a file destination in a new temporary directory, with a
 * fake clock that stands still. */
struct file_writer {
	struct ftf_dest_file df;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time ft;
	struct ftf_writer_options o;
	struct tmp t;
};

static void file_writer_open(struct file_writer *fw, size_t buf_size)
{
	memset(fw, 0, sizeof(*fw));
	fake_clock_init(&fw->c, &fw->ft);
	fw->o.num_temp_strs = -1;
	fw->o.clock = &fw->c;
	tmp_make(&fw->t);
	assert_int_equal(ftf_dest_file_open(&fw->df, fw->t.path, buf_size), 0);
	assert_int_equal(ftf_writer_init(&fw->w, &fw->df.base, &fw->o), 0);
}

/* Header 56 bytes, then 32-byte instants: the file is always 56 + 32k. */
static void whole_records_only_and_read_back(void **state)
{
	struct file_writer fw;
	uint8_t *data;
	size_t len;

	(void)state;
	file_writer_open(&fw, 200);
	for (int i = 0; i < 100; i++) {
		size_t sz;

		assert_int_equal(
			ftf_write_instant(&fw.w, FTF_ARG_TYPES(1, 0, 0, 0, 0, 0),
					  3, 0, 0, (uint64_t)i),
			0);
		assert_int_equal(ftf_arg_int64(&fw.w, 5, -i), 0);
		sz = fd_size(fw.df.fd);
		assert_true(sz == 0 || (sz >= 56 && (sz - 56) % 32 == 0));
		assert_int_equal(sz, fw.df.bytes_written);
	}
	assert_true(fw.df.bytes_written > 0);
	assert_int_equal(ftf_writer_close(&fw.w), 0);
	data = slurp(fw.t.path, &len);
	assert_int_equal(len, 56 + 100 * 32);
	assert_int_equal(((uint64_t *)data)[0], 0x0016547846040010ull);
	for (int i = 0; i < 100; i++) {
		uint64_t *r = (uint64_t *)(data + 56 + 32 * i);

		assert_int_equal(r[0],
				 4 | (4ull << 4) | (1ull << 20) | (3ull << 24));
		assert_int_equal(r[1], (uint64_t)i);
		assert_int_equal(r[2], 3 | (2ull << 4) | (5ull << 16));
		assert_int_equal(r[3], (uint64_t)-i);
	}
	free(data);
	tmp_remove(&fw.t);
}

/* ftf_write_bytes can cut a record at a 4096-byte chunk; the cut record
 * must wait for its end rather than reach the file. */
static void write_bytes_cut_record_is_held_back(void **state)
{
	struct ftf_dest_file df;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct tmp t;
	uint8_t *raw = calloc(1, 5000), *data;
	size_t len;

	(void)state;
	fake_clock_init(&c, &ft);
	for (int i = 0; i < 125; i++) { /* 125 records of 5 words */
		put(raw + 40 * i, 4 | (5ull << 4) | (1ull << 24));
		put(raw + 40 * i + 8, (uint64_t)i);
	}
	tmp_make(&t);
	assert_int_equal(ftf_dest_file_open(&df, t.path, 6000), 0);
	assert_int_equal(ftf_writer_init_no_header(&w, &df.base, &o), 0);
	for (int i = 0; i < 75; i++) /* 1200 bytes */
		assert_int_equal(ftf_write_instant(&w, NONE, 1, 0, 0, 1000 + i),
				 0);
	assert_int_equal(ftf_write_bytes(&w, raw, 5000), 0);
	/* the first 4096-byte chunk filled the buffer to 5296; the second
	 * (904) did not fit: 1200 + 102 whole records of 40 = 5280 went to
	 * the file, 16 bytes of record 102 were held back */
	assert_int_equal(fd_size(df.fd), 5280);
	assert_int_equal(ftf_writer_close(&w), 0);
	data = slurp(t.path, &len);
	assert_int_equal(len, 6200);
	assert_memory_equal(data + 1200, raw, 5000);
	assert_int_equal(((uint64_t *)data)[149], 1074);
	free(data);
	free(raw);
	tmp_remove(&t);
}

static void dev_full_reports_enospc(void **state)
{
	struct ftf_dest_file df;
	struct ftf_writer w;
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC), rc = 0, n = 0;

	(void)state;
	if (fd < 0)
		skip();
	fake_clock_init(&c, &ft);
	assert_int_equal(ftf_dest_file_init_fd(&df, fd, 1, 4096), 0);
	assert_int_equal(ftf_writer_init(&w, &df.base, &o), 0);
	while (rc == 0 && n < 1000) {
		rc = ftf_write_instant(&w, NONE, 1, 0, 0, (uint64_t)n);
		n++;
	}
	assert_int_equal(rc, -ENOSPC);
	/* 4096 - 56 header bytes = 252 instants fitted, the 253rd failed */
	assert_int_equal(n, 253);
	assert_non_null(
		strstr(ftf_writer_error(&w), "No space left on device"));
	assert_non_null(strstr(ftf_writer_error(&w), "destination failed"));
	/* the failure is sticky and close reports it */
	assert_int_equal(ftf_write_instant(&w, NONE, 1, 0, 0, 1), -ENOSPC);
	assert_int_equal(ftf_writer_close(&w), -ENOSPC);
	assert_int_equal(df.bytes_written, 0);
}

/* The sequence written to both the tmpfs file and the reference. */
static int emit(struct ftf_writer *w, int i)
{
	int rc;

	if (i % 2 == 0)
		return ftf_write_instant(w, NONE, 1, 0, 0, (uint64_t)i);
	rc = ftf_write_instant(w, FTF_ARG_TYPES(1, 1, 0, 0, 0, 0), 2, 0, 0,
			       (uint64_t)i);
	if (rc)
		return rc;
	if ((rc = ftf_arg_int64(w, 3, i)))
		return rc;
	return ftf_arg_int32(w, 4, i);
}

/* A full disk: a tmpfs of 16 KiB; the 10000-byte buffers do not divide
 * it, so the last write() stops inside a record. */
static void short_write_truncates_to_record_boundary(void **state)
{
	struct ftf_dest_file df;
	struct ftf_dest_mem ref;
	struct ftf_writer w, rw;
	struct ftf_clock c;
	struct fake_time ft = {0};
	struct ftf_writer_options o = {.num_temp_strs = -1, .clock = &c};
	struct tmp t;
	uint8_t *data;
	size_t len, off;
	int i, rc = 0;

	(void)state;
	tmp_make(&t);
	if (geteuid() != 0 ||
	    mount("tmpfs", t.dir, "tmpfs", 0, "size=16k") != 0) {
		tmp_remove(&t);
		skip();
	}
	fake_clock_init(&c, &ft);
	assert_int_equal(ftf_dest_file_open(&df, t.path, 10000), 0);
	assert_int_equal(ftf_writer_init(&w, &df.base, &o), 0);
	for (i = 0; rc == 0 && i < 100000; i++)
		rc = emit(&w, i);
	assert_int_equal(rc, -ENOSPC);
	assert_non_null(strstr(df.errmsg, "cut back to the last whole record"));
	assert_int_equal(ftf_writer_close(&w), -ENOSPC);

	data = slurp(t.path, &len);
	printf("# tmpfs full after %d records: file %zu bytes, "
	       "destination says %llu\n# %s\n",
	       i, len, (unsigned long long)df.bytes_written, df.errmsg);
	assert_int_equal(len, df.bytes_written);
	assert_true(len > 10000 && len < 16384);
	/* walk the file by the header size fields: it ends exactly on a
	 * record boundary, and every record is one we wrote */
	for (off = 0; off < len;) {
		uint64_t h;
		size_t words;

		assert_true(len - off >= 8);
		memcpy(&h, data + off, 8);
		words = (h >> 4) & 0xfff;
		assert_true(words > 0);
		assert_true(off + words * 8 <= len);
		off += words * 8;
	}
	assert_int_equal(off, len);
	/* and it is exactly the start of the same trace written to memory */
	ftf_dest_mem_init(&ref, 0);
	assert_int_equal(ftf_writer_init(&rw, &ref.base, &o), 0);
	for (int j = 0; j < i; j++)
		assert_int_equal(emit(&rw, j), 0);
	assert_int_equal(ftf_writer_close(&rw), 0);
	assert_true(ref.len > len);
	assert_memory_equal(data, ref.data, len);
	ftf_dest_mem_free(&ref);
	free(data);
	unlink(t.path);
	assert_int_equal(umount(t.dir), 0);
	tmp_remove(&t);
}

static void open_refuses_symlink(void **state)
{
	struct ftf_dest_file df;
	struct tmp t;
	char link[160];

	(void)state;
	tmp_make(&t);
	snprintf(link, sizeof(link), "%s/link.fxt", t.dir);
	assert_int_equal(symlink(t.path, link), 0);
	assert_int_equal(ftf_dest_file_open(&df, link, 0), -ELOOP);
	assert_non_null(strstr(df.errmsg, "cannot open"));
	assert_int_equal(access(t.path, F_OK), -1); /* target not created */
	unlink(link);
	tmp_remove(&t);
}

/* This process's data segment size (VmData, bytes) from /proc. */
static uint64_t vm_data_bytes(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmData: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* In a child whose data limit allows only 16 MiB more than it has: reads
 * the trace of `size` bytes at `path` (n instants, ts = i) with
 * ftf_file_open and counts its instants. 0, or which step failed. */
static int read_under_data_limit(const char *path, size_t size, size_t n)
{
	uint64_t have = vm_data_bytes();
	struct rlimit rl = {have + (16u << 20), have + (16u << 20)};
	struct ftf_record rec;
	struct ftf_reader r;
	struct ftf_file f;
	size_t instants = 0;
	uint64_t last_ts = 0;
	int ret;

	if (!have || setrlimit(RLIMIT_DATA, &rl))
		return 10;
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FTF_TEST_ASAN 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(FTF_TEST_ASAN)
	/* (ASan aborts on a failed malloc: gcc says __SANITIZE_ADDRESS__,
	 * clang __has_feature) */
	{
		/* the limit bites: reading the file into memory fails */
		uint8_t *data;
		size_t len;

		if (ftf_read_file(path, &data, &len) != -ENOMEM)
			return 11;
	}
#endif
	if (ftf_file_open(&f, path) || f.len != size || !f.map)
		return 12;
	if (ftf_reader_init(&r, f.data, f.len) < 0)
		return 13;
	while ((ret = ftf_reader_next(&r, &rec)) > 0)
		if (rec.type == FTF_REC_EVENT) {
			instants++;
			last_ts = rec.u.event.ts;
		}
	ftf_reader_free(&r);
	ftf_file_close(&f);
	if (ret < 0)
		return 14;
	return instants == n && last_ts == n - 1 ? 0 : 15;
}

/* A trace larger than the reader's process may allocate still reads: the
 * file is mapped, not copied into memory (ftf-dump on a 33 GB trace on a
 * 24 GiB machine failed with ENOMEM when it was). */
static void file_open_reads_beyond_memory_limit(void **state)
{
	enum { N = 1500000 }; /* 48 MB */
	struct file_writer fw;
	int status, thread, arg;
	pid_t pid;

	(void)state;
	file_writer_open(&fw, 0);
	thread = ftf_set_thread_slot(&fw.w, 0, 1, 2);
	arg = ftf_intern_string(&fw.w, "i");
	assert_true(thread > 0 && arg > 0);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(
			ftf_write_instant(&fw.w, FTF_ARG_TYPES(1, 0, 0, 0, 0, 0),
					  thread, 0, 0, (uint64_t)i),
			0);
		assert_int_equal(ftf_arg_int64(&fw.w, arg, (int64_t)i), 0);
	}
	assert_int_equal(ftf_writer_close(&fw.w), 0);
	assert_true(fw.df.bytes_written > 32 * N);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(read_under_data_limit(fw.t.path, fw.df.bytes_written, N));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tmp_remove(&fw.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_records_prefix),
		cmocka_unit_test(whole_records_only_and_read_back),
		cmocka_unit_test(write_bytes_cut_record_is_held_back),
		cmocka_unit_test(dev_full_reports_enospc),
		cmocka_unit_test(short_write_truncates_to_record_boundary),
		cmocka_unit_test(open_refuses_symlink),
		cmocka_unit_test(file_open_reads_beyond_memory_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
