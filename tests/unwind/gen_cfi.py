#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the assembly of crafted CFI, as a hostile binary's owner could:

  gen_cfi.py many N OUT.s   one function, cfi_many, of N one-byte nops and
                            a ret, its CFA offset changed after each nop:
                            N + 1 rows in one FDE (cfa_offset(i) below)
  gen_cfi.py hugereg OUT.s  two functions whose CFI also gives a rule to
                            a huge DWARF register number: cfi_hugereg
                            (40,000,000: elfutils allocates 320 MB of
                            rules for it) and cfi_hugereg_invalid
                            (1,000,000,000: more than elfutils takes)

test_cfi_crafted.py works out the rows from the same numbers.
"""
import sys


def cfa_offset(i):
    """The CFA offset (from rsp) after the i-th nop of cfi_many: always a
    different one from the row before, and within a table row's 16 bits."""
    return 16 + 8 * (i % 4000)


def many(n):
    out = ["\t.text", "\t.globl cfi_many", "\t.type cfi_many, @function",
           "cfi_many:", "\t.cfi_startproc"]
    for i in range(n):
        out += ["\tnop", f"\t.cfi_def_cfa_offset {cfa_offset(i)}"]
    out += ["\tret", "\t.cfi_endproc", "\t.size cfi_many, .-cfi_many"]
    return out


# push %rbp (1 byte); mov %rsp, %rbp (3); nop (1); pop %rbp (1); ret (1):
# rows at +0 (rsp+8), +1 (rsp+16, rbp at CFA-16), +4 (rbp+16, rbp at
# CFA-16), +6 (rsp+8, rbp same), and the FDE ends at +7
def hugereg_fn(name, directive):
    return [f"\t.globl {name}", f"\t.type {name}, @function", f"{name}:",
            "\t.cfi_startproc",
            "\tpush %rbp", "\t.cfi_def_cfa_offset 16", "\t.cfi_offset %rbp, -16",
            directive,
            "\tmov %rsp, %rbp", "\t.cfi_def_cfa_register %rbp",
            "\tnop",
            "\tpop %rbp", "\t.cfi_def_cfa %rsp, 8", "\t.cfi_restore %rbp",
            "\tret", "\t.cfi_endproc", f"\t.size {name}, .-{name}",
            "\tnop"]  # (so the next function does not start at +7)


def hugereg():
    return (["\t.text"] + hugereg_fn("cfi_hugereg", "\t.cfi_offset 40000000, -24")
            + hugereg_fn("cfi_hugereg_invalid", "\t.cfi_undefined 1000000000"))


def main():
    if sys.argv[1] == "many":
        lines, path = many(int(sys.argv[2])), sys.argv[3]
    else:
        lines, path = hugereg(), sys.argv[2]
    lines.append('\t.section .note.GNU-stack,"",@progbits')
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
