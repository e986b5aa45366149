#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Unwind tables of crafted CFI (gen_cfi.py), as a hostile binary's owner
could write it, checked against the rows the generator's numbers give:

  many: N CFA changes in one FDE: N + 1 rows, each with its offset. The
        table is built under a CPU-time limit of 10 s (200,000 changes
        take 0.1 s): a reader that re-runs the FDE for each row (elfutils,
        before) needed about a minute of CPU for them.
  hugereg: a rule for DWARF register 40,000,000 (and 1,000,000,000) must
        leave the other rules as they are; built under a 256 MB address
        space limit (elfutils allocated 320 MB per row for it; before, the
        rows after it were "no CFI"). Sanitizer builds reserve terabytes
        of shadow memory: there, the rows are checked without the limit.

usage: test_cfi_crafted.py UW_DUMP MANY_SO N HUGEREG_SO
"""
import random
import resource
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gen_cfi import cfa_offset  # noqa: E402

NONE, RSP, RBP = 0, 1, 2
SAME, AT_CFA = 0, 1


def symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True,
                         text=True, check=True).stdout
    return {f[2]: int(f[0], 16) for f in (line.split() for line in out.splitlines())
            if len(f) == 3}


def sanitized(exe):
    ldd = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    return "libasan" in ldd or "libubsan" in ldd


def dump(uw_dump, path, limit):
    """{pc: (cfa_type, cfa_off, rbp_type, rbp_off)} of uw_dump's table, built
    under the resource limit (resource, value)."""
    def pre():
        if limit:
            resource.setrlimit(limit[0], (limit[1], limit[1]))
    out = subprocess.run([uw_dump, path], capture_output=True, text=True, preexec_fn=pre)
    if out.returncode:
        print(f"FAIL uw_dump {path}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    rows = {}
    for line in out.stdout.splitlines():
        f = line.split()
        # (the CFA's and rbp's rules: these FDEs give rbx none)
        rows[int(f[0], 16)] = tuple(int(x) for x in f[1:5])
    return rows


def check_many(uw_dump, path, n):
    base = symbols(path)["cfi_many"]
    rows = dump(uw_dump, path, (resource.RLIMIT_CPU, 10))
    if rows is None:
        return False
    mine = {pc - base: r for pc, r in rows.items() if base <= pc <= base + n}
    ok = len(mine) == n + 1
    print(f"many: {len(mine)} rows in cfi_many, want {n + 1}")
    # row k: the nop k-1 has run, so the CFA offset is cfa_offset(k - 1)
    rnd = random.Random(1)
    for k in [0, 1, 2, n // 2, n - 1, n] + rnd.sample(range(1, n + 1), 50):
        want = (RSP, 8 if k == 0 else cfa_offset(k - 1), SAME, 0)
        if mine.get(k) != want:
            print(f"  cfi_many+{k}: table {mine.get(k)}, want {want}")
            ok = False
    return ok


def check_hugereg(uw_dump, path):
    syms = symbols(path)
    limit = None if sanitized(uw_dump) else (resource.RLIMIT_AS, 256 << 20)
    rows = dump(uw_dump, path, limit)
    if rows is None:
        return False
    want = {0: (RSP, 8, SAME, 0), 1: (RSP, 16, AT_CFA, -16),
            4: (RBP, 16, AT_CFA, -16), 6: (RSP, 8, SAME, 0), 7: (NONE, 0, SAME, 0)}
    ok = True
    for fn in ["cfi_hugereg", "cfi_hugereg_invalid"]:
        base = syms[fn]
        got = {pc - base: r for pc, r in rows.items() if base <= pc <= base + 7}
        print(f"{fn}: {got}")
        if got != want:
            print(f"  want {want}")
            ok = False
    return ok


def main():
    uw_dump, many, n, hugereg = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ok = check_many(uw_dump, many, n)
    ok = check_hugereg(uw_dump, hugereg) and ok
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
