/* SPDX-License-Identifier: MIT */
/*
 * prologue_rows.h - rows for the functions of a binary that its CFI does
 * not cover, from their symbols and their first instructions.
 *
 * musl builds its C library without unwind tables: in a static musl
 * program the user's code has CFI and libc's has none, so every stack
 * stopped "no CFI" at libc_start_main_stage2, under main, one frame
 * short of _start. For a function no FDE covers, its prologue (pushes,
 * sub $N, %rsp, mov %rsp, %rbp, and the register moves between them)
 * says where its return address is once it has run: a row of type
 * FTFB_UW_CFA_RSP_RET (or RBP) for the rest of the function, which the
 * walker follows only at a return address (a call site: the epilogue's
 * pops never hold one); the prologue's own bytes get exact rows. The
 * function at the ELF entry point (_start), the kernel's first frame,
 * gets an END row when no FDE covers it. Only in static programs
 * (ET_EXEC, no interpreter): see prologue_rows.c's is_static. In other
 * binaries, only the .init and .fini sections (crti.o's _init and _fini,
 * which have no CFI): read_init_fini.
 */
#ifndef FTFB_PROLOGUE_ROWS_H
#define FTFB_PROLOGUE_ROWS_H

#include <gelf.h>

#include "eh_frame.h"
#include "uw_built.h"

/* The bytes of elf at [vaddr, vaddr + size) as loaded (fewer at the end
 * of a segment): false when in none. */
typedef bool (*ftfb_code_fn)(Elf *elf, uint64_t vaddr, uint64_t size,
			     struct ftfb_ehf_buf *out);

/* Adds to t (built from elf's CFI, rows sorted) the rows of the
 * functions in elf's symbol tables that no FDE covers, their code read
 * by code: 0, or -ENOMEM, -E2BIG (more than max_rows in all), -ERANGE,
 * leaving t as it was. */
int ftfb_prologue_rows(Elf *elf, ftfb_code_fn code,
		       struct ftfb_uw_table_built *t, size_t max_rows);

#endif
