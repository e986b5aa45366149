/* SPDX-License-Identifier: MIT */
/*
 * cfi_run.h - an FDE's call frame instructions, run once from its start
 * to its end, as the rows the BPF stack walker follows (bpf/unwind.h).
 *
 * Only the rules the walker uses are kept: the CFA's, the caller's rbp,
 * rbx
 * and the return address; any other register's rule is read and
 * dropped, so a register number of any size costs nothing. The meaning
 * of each instruction is DWARF 5's (section 6.4.2) as elfutils' libdw
 * reads it for x86-64, whose ABI starts rbp and the return address at
 * "same value" and the CFA undefined.
 */
#ifndef FTFB_CFI_RUN_H
#define FTFB_CFI_RUN_H

#include <stdint.h>

#include "eh_frame.h"

/* The rule of a register the walker follows. */
struct ftfb_cfi_reg {
	uint8_t kind; /* FTFB_CFI_REG_* */
	int64_t off;  /* AT_CFA: saved at CFA + off */
};

enum {
	FTFB_CFI_REG_SAME,   /* same value (the ABI's start) */
	FTFB_CFI_REG_UNDEF,  /* undefined (unspecified, an empty expression) */
	FTFB_CFI_REG_AT_CFA, /* saved at CFA + off */
	FTFB_CFI_REG_OTHER,  /* in a register, a value, an expression */
	FTFB_CFI_REG_IN_RDI, /* in rdi (the return address in __vfork) */
};

/* The rules at one address. */
struct ftfb_cfi_state {
	uint8_t cfa_kind; /* FTFB_CFI_CFA_* */
	uint64_t cfa_reg; /* REG, EXPR_REG */
	int64_t cfa_off;  /* REG, EXPR_REG; EXPR_PLT: its N */
	struct ftfb_cfi_reg rbp, rbx, ra;
};

enum {
	FTFB_CFI_CFA_UNDEF,
	FTFB_CFI_CFA_REG,      /* register + offset */
	FTFB_CFI_CFA_INVALID,  /* an offset or register set on an expression */
	FTFB_CFI_CFA_EXPR_REG, /* an expression that is one breg */
	FTFB_CFI_CFA_EXPR_PLT, /* a PLT entry's expression (unwind_table.h) */
	FTFB_CFI_CFA_EXPR,     /* another expression */
};

/* One row's rules as the walker takes them (bpf/unwind.h's types). */
struct ftfb_cfi_rule {
	int cfa_type, rbp_type;
	int64_t cfa_off, rbp_off;
	int rbx_kind;	 /* FTFB_CFI_REG_*: SAME, AT_CFA, or another */
	int64_t rbx_off; /* AT_CFA: saved at CFA + rbx_off */
};

/* Receives the rows of an FDE in address order: a nonzero return stops
 * the run and is returned. */
typedef int (*ftfb_cfi_row_fn)(void *arg, uint64_t pc,
			       const struct ftfb_cfi_rule *r);

/* The state a CIE's FDEs start from: the ABI's, then the CIE's initial
 * instructions. -EINVAL when they are invalid (elfutils then finds no
 * frame for any of its FDEs). */
int ftfb_cfi_cie_state(const struct ftfb_ehf_buf *ehf, const struct ftfb_cie *c,
		       struct ftfb_cfi_state *s);

/* Polled every few thousand instructions: nonzero stops the run. */
typedef int (*ftfb_cfi_poll_fn)(void *arg);

/* Gives row(pc) for each row of fde from its start up to limit (the next
 * FDE's start): a row where an instruction moves past the row's address;
 * where the FDE ends before limit, or an instruction is invalid, a row of
 * rule 0 ("no CFI") and no more. init is the CIE's state (NULL: invalid
 * CIE); signal that the CIE is a signal frame's. */
int ftfb_cfi_fde_rows(const struct ftfb_ehf_buf *ehf, const struct ftfb_cie *c,
		      const struct ftfb_cfi_state *init,
		      const struct ftfb_fde *fde, uint64_t limit,
		      ftfb_cfi_row_fn row, ftfb_cfi_poll_fn poll, void *arg);

#endif
