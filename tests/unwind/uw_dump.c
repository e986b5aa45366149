// SPDX-License-Identifier: MIT
/*
 * uw_dump - prints the unwind table ftf-bpf builds for an ELF file (or,
 * with "--vdso", for this process's vDSO), one row a line:
 *   VADDR CFA_TYPE CFA_OFF RBP_TYPE RBP_OFF
 * (hex virtual address, then the numbers of bpf/unwind.h), for
 * test_unwind_table.py to compare with readelf's own reading of the CFI.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "unwind_table.h"

/* The vDSO's size: its ELF header's section table ends it (the vDSO
 * carries its section headers). */
static size_t vdso_size(const void *image)
{
	const unsigned char *p = image;
	uint64_t shoff;
	uint16_t shentsize, shnum;

	memcpy(&shoff, p + 0x28, 8);
	memcpy(&shentsize, p + 0x3a, 2);
	memcpy(&shnum, p + 0x3c, 2);
	return shoff + (size_t)shentsize * shnum;
}

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
		void *v = (void *)getauxval(AT_SYSINFO_EHDR);

		rc = v ? ftfb_uw_table_from_memory(v, vdso_size(v), &t, err,
						   sizeof(err))
		       : -1;
	} else {
		rc = ftfb_uw_table_from_file(argv[1], &t, err, sizeof(err));
	}
	if (rc) {
		fprintf(stderr, "uw_dump: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < t.n; i++)
		printf("%" PRIx64 " %d %d %d %d\n", t.base + t.rows[i].pc,
		       t.rows[i].cfa_type, t.rows[i].cfa_off,
		       t.rows[i].rbp_type, t.rows[i].rbp_off);
	ftfb_uw_table_free(&t);
	return 0;
}
