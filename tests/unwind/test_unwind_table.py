#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The unwind tables ftf-bpf builds for the BPF stack walker, checked row
by row against binutils' own reading of the same CFI (`readelf -wF`, the
"interpreted" .eh_frame): for every row of every FDE, the table's row at
that address must give the same CFA rule (rsp, rbp or rbx plus an
offset, or a PLT's), the same place for the caller's rbp, the same for
its rbx where a row can hold it (pushed right below rbp, or at its own
offset where rbp is not saved; "lost" elsewhere), and the return address
at CFA-8 (or "end of stack" where
the CFI leaves it undefined); where an FDE ends and no other begins, the
table must say "no CFI", except after glibc's clone and clone3 and where
crti.o's _init or _fini begins.
After clone and clone3: where an FDE ends at a syscall instruction
(objdump -d) with an rsp-based CFA, and within 16 bytes another begins
whose return address is undefined (the child's code), the table must
give the ending FDE's last rules marked CLONE (the walker ends a new
thread's stack there).
_init and _fini: in their sections (.init, .fini), which no FDE covers,
the row at the start must say CFA rsp+8, and each row up to the first
call or jump must say "no CFI" or what objdump's instructions give
(rsp+16 after their `sub $0x8,%rsp`).

usage: test_unwind_table.py UW_DUMP ELF_FILE...
"""
import bisect
import re
import subprocess
import sys

NONE, RSP, RBP, PLT, END, UNSUPP, SIGNAL, CLONE, RSP_RET, RA_RDI, RBX = range(11)
SAME, AT_CFA, LOST = range(3)
RBX_SAME, RBX_BELOW_RBP, RBX_AT_CFA, RBX_LOST = range(4)


def readelf_fdes(path):
    """[(start, end, [(loc, cfa, rbp, ra)], signal)] from readelf -wF."""
    out = subprocess.run(["readelf", "-wF", path], capture_output=True, text=True).stdout
    # (readelf exits 1 over what it cannot follow, e.g. a separate debug
    # file; the .eh_frame it prints is whole)
    out = out.split("Contents of the .debug_frame")[0]
    cies, fdes, cur, cols = {}, [], None, []
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE \"([^\"]*)\"", line)
        if m:
            cur = cies.setdefault(int(m[1], 16), dict(rows=[], signal="S" in m[2]))
            continue
        m = re.match(r"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
        if m:
            cie = cies[int(m[1], 16)]
            cur = dict(start=int(m[2], 16), end=int(m[3], 16), rows=[], cie=cie, signal=cie["signal"])
            fdes.append(cur)
            continue
        if line.strip().startswith("LOC"):
            cols = line.split()[1:]
            continue
        m = re.match(r"^([0-9a-f]{16}) (.*)$", line)
        if m and cur is not None:
            # (a value may be "r10 (r10)": one column)
            vals = dict(zip(cols, re.findall(r"\S+(?: \(\S+\))?", m[2])))
            cur["rows"].append((int(m[1], 16), vals["CFA"], vals.get("rbp", "u"), vals.get("ra", "u"),
                                vals.get("rbx", "u")))
    for f in fdes:
        if not f["rows"] and f["cie"]["rows"]:  # no instructions: the CIE's initial rules
            f["rows"] = [(f["start"],) + f["cie"]["rows"][0][1:]]
    return fdes


def expected(cfa, rbp, ra, signal):
    """The acceptable (cfa_type, cfa_off, rbp_type, rbp_off) for one readelf row."""
    if signal:
        return [(SIGNAL, 0, SAME, 0)]
    if ra == "u":
        return [(END, 0, SAME, 0)]
    m = re.match(r"^(rsp|rbp|rbx)\+(-?\d+)$", cfa)
    # the return address in rdi (glibc's __vfork): followed at a stack's
    # first frame, when the CFA is rsp's
    in_rdi = ra == "r5 (rdi)" and m and m[1] == "rsp"
    if ra != "c-8" and not in_rdi:
        return [(UNSUPP, 0, SAME, 0)]
    if not m:  # "exp" (a PLT entry's expression, or another), or another register
        return [(PLT, 10, None, None), (PLT, 11, None, None), (UNSUPP, 0, SAME, 0)]
    c = (RA_RDI if in_rdi else {"rsp": RSP, "rbp": RBP, "rbx": RBX}[m[1]], int(m[2]))
    if not -32768 <= c[1] <= 32767:  # more than a table row holds
        return [(UNSUPP, 0, SAME, 0)]
    r = re.match(r"^c(-?\d+)$", rbp)
    if r and (int(r[1]) % 8 or not -1024 <= int(r[1]) <= 1016):
        return [c + (LOST, 0)]
    if r:
        return [c + (AT_CFA, int(r[1]))]
    if rbp == "u":  # readelf's "u": unset here (same value) or undefined
        return [c + (SAME, 0), c + (LOST, 0)]
    return [c + (LOST, 0)]


def expected_rbx(rbx, rbp_rule):
    """The (rbx_type, rbx_offset) a row must hold for readelf's rbx column
    rbx, in a row whose rbp rule is rbp_rule ((type, offset), as the table
    has it): rbx pushed right below rbp, or at its own offset where rbp
    is not saved (the row's one offset is then rbx's); anywhere else
    lost."""
    if rbx == "u":
        return (RBX_SAME, 0)
    r = re.match(r"^c(-?\d+)$", rbx)
    if not r or int(r[1]) % 8:
        return (RBX_LOST, 0)
    off = int(r[1])
    if rbp_rule[0] == AT_CFA:
        return (RBX_BELOW_RBP, off) if off == rbp_rule[1] - 8 else (RBX_LOST, 0)
    return (RBX_AT_CFA, off) if -1024 <= off <= 1016 else (RBX_LOST, 0)


def is_syscall(path, addr):
    """Whether objdump disassembles a syscall instruction at addr."""
    out = subprocess.run(["objdump", "-d", f"--start-address={addr:#x}", f"--stop-address={addr + 2:#x}", path],
                         capture_output=True, text=True).stdout
    return re.search(rf"^\s*{addr:x}:\s+0f 05\s+syscall", out, re.M) is not None


def clone_gap(f, fdes, path):
    """The rules a CLONE row at the end of FDE f may hold (a clone's
    syscall before the child's FDE), or []."""
    nxt = sorted((g for g in fdes if f["end"] < g["start"] <= f["end"] + 16), key=lambda g: g["start"])
    if not nxt or not nxt[0]["rows"] or nxt[0]["rows"][0][3] != "u" or not f["rows"]:
        return []
    _, cfa, rbp, ra, _ = f["rows"][-1]
    want = expected(cfa, rbp, ra, f["signal"])
    if want[0][0] != RSP or not is_syscall(path, f["end"]):
        return []
    return [(CLONE,) + w[1:] for w in want]


def init_fini(path):
    """[(name, start, end)] of the .init and .fini sections (readelf -SW)."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    return [(m[1], int(m[2], 16), int(m[2], 16) + int(m[3], 16))
            for m in re.finditer(r"\s(\.init|\.fini)\s+PROGBITS\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)", out)]


def frame_rows(path, start, end):
    """[(address, CFA offset from rsp)] of a section of crti.o's fixed
    frame, from objdump's instructions up to the first that is not an
    endbr64, a `sub`/`add $0x8,%rsp` or one that leaves rsp alone (a mov,
    a test): [] when it does not start so."""
    out = subprocess.run(["objdump", "-d", f"--start-address={start:#x}", f"--stop-address={end:#x}", path],
                         capture_output=True, text=True).stdout
    ins = [(int(a, 16), t.strip()) for a, t in
           re.findall(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S.*)$", out, re.M)]
    rows, off = [], 8
    for pc, text in ins:
        rows.append((pc, off))
        if text.startswith("endbr64") or re.match(r"(mov|test)\s+[^,]*,%r[a-z0-9]+$", text) and "rsp" not in text:
            continue
        m = re.match(r"(sub|add)\s+\$0x8,%rsp$", text)
        if not m:
            break
        off += 8 if m[1] == "sub" else -8
    return rows if len(rows) >= 2 else []


def check_init_fini(path, fdes, at, bad):
    """crti.o's _init and _fini (no FDE covers them): the table's row at
    the start must be their frame's, and every other row there either
    "no CFI" or right; returns the section starts and the addresses
    checked."""
    starts, checked = set(), 0
    for name, start, end in init_fini(path):
        if any(f["start"] < end and start < f["end"] for f in fdes):
            continue
        starts.add(start)
        for pc, off in frame_rows(path, start, end):
            got = at(pc)
            checked += 1
            if got is None or got[:2] != (RSP, off) and (pc == start or got[0] != NONE):
                bad.append(f"  {pc:#x} ({name}, objdump: CFA rsp+{off}): table: {got}")
    return starts, checked


def check_file(dump, path):
    out = subprocess.run([dump, path], capture_output=True, text=True)
    if out.returncode:
        print(f"FAIL {path}: uw_dump: {out.stderr.strip()}")
        return False
    rows = [tuple(int(x, 16) if i == 0 else int(x) for i, x in enumerate(line.split()))
            for line in out.stdout.splitlines()]
    pcs = [r[0] for r in rows]

    def at(pc):
        i = bisect.bisect_right(pcs, pc) - 1
        return rows[i][1:] if i >= 0 else None

    fdes = readelf_fdes(path)
    starts = {f["start"] for f in fdes}
    clones = 0
    bad = []
    sections, checked = check_init_fini(path, fdes, at, bad)
    for f in fdes:
        for loc, cfa, rbp, ra, rbx in f["rows"]:
            if not f["start"] <= loc < f["end"]:
                continue
            got, want = at(loc), expected(cfa, rbp, ra, f["signal"])
            ok = got is not None and any(all(w is None or w == g for w, g in zip(x, got)) for x in want)
            if ok:  # rbx's rule, in the rows that have a CFA
                ok = got[4:] == (expected_rbx(rbx, got[2:4]) if got[0] in (RSP, RBP, PLT, RA_RDI, RBX)
                                 else (RBX_SAME, 0))
            checked += 1
            if not ok:
                bad.append(f"  {loc:#x} readelf: CFA {cfa} rbp {rbp} ra {ra} rbx {rbx}; table: {got}")
        if f["end"] not in starts and f["end"] not in sections and f["end"] > f["start"]:
            got = at(f["end"])
            checked += 1
            gap = clone_gap(f, fdes, path) if got is not None and got[0] == CLONE else []
            if any(all(w is None or w == g for w, g in zip(x, got)) for x in gap):
                clones += 1
            elif got is None or got[0] != NONE:
                bad.append(f"  {f['end']:#x} (end of the FDE at {f['start']:#x}, none after): table: {got}")
    print(f"{path}: {len(fdes)} FDEs, {len(rows)} table rows, {checked} addresses checked, "
          f"{len(bad)} disagree with readelf -wF; {clones} clone gaps")
    for b in bad[:20]:
        print(b)
    return checked > 0 and not bad


def main():
    dump, files = sys.argv[1], sys.argv[2:]
    ok = all([check_file(dump, f) for f in files])
    # the vDSO has no file to give readelf: its table must exist and end
    out = subprocess.run([dump, "--vdso"], capture_output=True, text=True)
    vrows = out.stdout.splitlines()
    print(f"vDSO: {len(vrows)} rows (exit {out.returncode})")
    ok = ok and out.returncode == 0 and len(vrows) >= 2 and vrows[-1].split()[1] == str(NONE)
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
