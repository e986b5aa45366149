// SPDX-License-Identifier: MIT
/*
 * uw_dump - prints the unwind table ftf-bpf builds for an ELF file (or,
 * with "--vdso", for this process's vDSO), one row a line:
 *   VADDR CFA_TYPE CFA_OFF RBP_TYPE RBP_OFF RBX_TYPE RBX_OFF
 * (hex virtual address, then the numbers of bpf/unwind.h; an offset 0
 * where its rule has none), for
 * test_unwind_table.py to compare with readelf's own reading of the CFI.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "unwind_table.h"

int main(int argc, char **argv)
{
	struct ftfb_uw_table_built t;
	char err[256];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: uw_dump ELF_FILE | --vdso\n");
		return 2;
	}
	if (!strcmp(argv[1], "--vdso")) {
		rc = ftfb_uw_table_from_vdso(&t, err, sizeof(err));
	} else {
		rc = ftfb_uw_table_from_file(argv[1], &t, err, sizeof(err));
	}
	if (rc) {
		fprintf(stderr, "uw_dump: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct ftfb_uw_row *r = &t.rows[i];
		int rbp = FTFB_UW_RBP_TYPE(r), rbx = FTFB_UW_RBX_TYPE(r);
		int rbp_off = rbp == FTFB_UW_RBP_AT_CFA ? r->rbp_off8 * 8 : 0;
		int rbx_off = rbx == FTFB_UW_RBX_BELOW_RBP ? rbp_off - 8
			      : rbx == FTFB_UW_RBX_AT_CFA  ? r->rbp_off8 * 8
							   : 0;

		printf("%" PRIx64 " %d %d %d %d %d %d\n", t.base + r->pc,
		       FTFB_UW_CFA_TYPE(r), r->cfa_off, rbp, rbp_off, rbx,
		       rbx_off);
	}
	ftfb_uw_table_free(&t);
	return 0;
}
