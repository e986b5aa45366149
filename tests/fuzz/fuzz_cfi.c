// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the unwind table builder (cfi_table.c, cfi_run.c,
 * eh_frame.c, all compiled into the target with its coverage): the input
 * is a binary's .eh_frame_hdr and .eh_frame,
 *   u16 hdr_len (little-endian), hdr_len bytes of .eh_frame_hdr, the rest
 *   .eh_frame, placed where the header says it is.
 * The build returns 0 with rows in address order, of the types
 * bpf/unwind.h defines, or a negative errno with a message and no rows;
 * it never crashes, reads out of bounds or leaks, and its time is linear
 * in the input (the test's -timeout catches a quadratic one).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct ftfb_uw_table_built *t, int rc, const char *err)
{
	if (rc) {
		if (rc > 0 || !err[0] || t->rows || t->n)
			abort();
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct ftfb_uw_row *r = &t->rows[i];

		if ((i && r->pc <= t->rows[i - 1].pc) ||
		    FTFB_UW_CFA_TYPE(r) > FTFB_UW_CFA_LAST ||
		    FTFB_UW_RBP_TYPE(r) > FTFB_UW_RBP_LOST)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftfb_uw_build_opts o = {.max_rows = 1u << 20};
	struct ftfb_uw_table_built t;
	struct ftfb_ehf_buf hdr, ehf;
	uint8_t *copy;
	uint16_t hlen;
	char err[256] = "";
	int rc;

	if (size < 2)
		return 0;
	memcpy(&hlen, data, 2);
	if (hlen > size - 2)
		return 0;
	/* a copy of its own size, so that ASan sees any read past it */
	if (!(copy = malloc(size - 2 ? size - 2 : 1)))
		return 0;
	memcpy(copy, data + 2, size - 2);
	hdr = (struct ftfb_ehf_buf){
		.p = copy, .size = hlen, .vaddr = 0x10000000};
	ehf = (struct ftfb_ehf_buf){.p = copy + hlen, .size = size - 2 - hlen};
	memset(&t, 0, sizeof(t));
	/* (no header: .eh_frame read through, as a static program's) */
	if (!hlen)
		ehf.vaddr = 0x10000000;
	if (!hlen || ftfb_cfi_hdr_frame(&hdr, &ehf.vaddr) == 0) {
		rc = ftfb_cfi_table(&hdr, &ehf, &o, &t, err, sizeof(err),
				    "fuzz");
		check(&t, rc, err);
		free(t.rows);
	}
	free(copy);
	return 0;
}
