// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the libftf reader: decode every record of the
 * input (going on after content errors, as ftf-dump does) and format each
 * one as text, so that every field the reader hands out is touched.
 * ASan/UBSan turn an out-of-bounds read or undefined behaviour into a
 * crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftf/reader.h"
#include "record_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ftf_reader r;
	struct ftf_record rec;
	char text[512];
	uint8_t *copy;
	int ret;

	/* An exact-size copy, so a read one byte past the end is caught. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	/* One table allocation for the whole run: a 512 KiB calloc per
	 * input made the run syscall-bound. */
	if ((r.strings ? ftf_reader_reset(&r, copy, size) :
			 ftf_reader_init(&r, copy, size)) < 0) {
		free(copy);
		return 0;
	}
	while ((ret = ftf_reader_next(&r, &rec)) != 0) {
		if (ret < 0) {
			if (r.fatal)
				break;
			continue;
		}
		if (rec.offset + rec.size_words * 8 > size)
			abort(); /* a record outside the data */
		ftf_record_text(text, sizeof(text), &rec);
	}
	free(copy);
	return 0;
}
