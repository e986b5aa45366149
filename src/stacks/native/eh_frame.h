/* SPDX-License-Identifier: MIT */
/*
 * eh_frame.h - the entries of an ELF binary's .eh_frame (the LSB's
 * exception frames, DWARF's call frame information): CIEs and FDEs, and
 * the encoded pointers and LEB128 numbers they are written with.
 *
 * Every read is bounded by the buffer it reads: the data is whatever the
 * binary's owner wrote.
 */
#ifndef FTFB_EH_FRAME_H
#define FTFB_EH_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DW_EH_PE_*: how a pointer is written (low nibble) and relative to what
 * (bits 4-6); bit 7 is "indirect" */
enum {
	FTFB_PE_ABSPTR = 0x00,
	FTFB_PE_ULEB128 = 0x01,
	FTFB_PE_UDATA2 = 0x02,
	FTFB_PE_UDATA4 = 0x03,
	FTFB_PE_UDATA8 = 0x04,
	FTFB_PE_SLEB128 = 0x09,
	FTFB_PE_SDATA2 = 0x0a,
	FTFB_PE_SDATA4 = 0x0b,
	FTFB_PE_SDATA8 = 0x0c,
	FTFB_PE_PCREL = 0x10,
	FTFB_PE_TEXTREL = 0x20,
	FTFB_PE_DATAREL = 0x30,
	FTFB_PE_FUNCREL = 0x40,
	FTFB_PE_OMIT = 0xff,
};

/* A buffer of the binary and the virtual address of its first byte. */
struct ftfb_ehf_buf {
	const uint8_t *p;
	size_t size;
	uint64_t vaddr;
};

/* A CIE: what its FDEs share. */
struct ftfb_cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;     /* DW_EH_PE_* of the FDEs' addresses */
	bool sized_aug;	     /* "z": FDEs say their augmentation's size */
	bool signal;	     /* "S": a signal trampoline's frames */
	size_t fde_aug_size; /* without "z": the FDEs' augmentation size */
	const uint8_t *ins;  /* the initial instructions */
	const uint8_t *ins_end;
};

/* An FDE: the code [start, end) and its instructions. */
struct ftfb_fde {
	uint64_t start, end;
	uint64_t cie_off; /* its CIE's offset in .eh_frame */
	const uint8_t *ins, *ins_end;
};

/* An unsigned / signed LEB128 number at *p, below end: false when it
 * does not end before end (or is longer than 10 bytes). */
bool ftfb_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
bool ftfb_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);

/* A pointer of encoding enc at *p (inside buf, read up to end): pcrel is
 * relative to its own address in buf, datarel to datarel; textrel and
 * funcrel to 0 (as elfutils reads .eh_frame). false: an encoding the
 * x86-64 toolchains do not write (indirect, aligned), or past end. */
bool ftfb_ehf_ptr(const struct ftfb_ehf_buf *buf, uint8_t enc,
		  const uint8_t **p, const uint8_t *end, uint64_t datarel,
		  uint64_t *out);

/* The CIE at offset off of .eh_frame: 0, or -EINVAL when there is none
 * or it cannot be read. */
int ftfb_ehf_cie(const struct ftfb_ehf_buf *ehf, uint64_t off,
		 struct ftfb_cie *c);

/* The FDE at offset off: first its CIE's offset (cie_off), then, given
 * that CIE, the rest. -EINVAL when it is not an FDE or cannot be read. */
int ftfb_ehf_fde_cie(const struct ftfb_ehf_buf *ehf, uint64_t off,
		     uint64_t *cie_off);
int ftfb_ehf_fde(const struct ftfb_ehf_buf *ehf, uint64_t off,
		 const struct ftfb_cie *c, struct ftfb_fde *f);

/* The offset of the entry after the one at off: 0, or -EINVAL. */
int ftfb_ehf_next(const struct ftfb_ehf_buf *ehf, uint64_t off, uint64_t *next);

#endif
