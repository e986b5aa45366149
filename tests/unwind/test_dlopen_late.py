#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on code mapped after the process's unwind entry was read, while the
table loader is busy: a library dlopen'd as another one's table is being
built. The walker finds no mapping for its addresses until the loader
reads the process's maps again, which waits for the build in progress;
its samples in that wait are sent with a copy of the stack and finished
once the entry and the library's table are there, so they are as whole
as the others (bpf/unwind.h, FTFB_UW_PROC_FINAL).

dlopenwl (tests/unwind/dlopenwl.c, -O0) waits for a line, then dlopens
library A and spins in it for SPIN_A CPU seconds, then B for SPIN_B.
Both are new copies of dlspin (tests/unwind/dlspin.c, -O2 without frame
pointers: no rbp chain to guess through), so no table of them exists,
and FTFB_FAULT_SLOW_UW_BUILD_S=1 makes each build take a second more:
B is mapped while A's build runs. Checked, for B's samples:
  - objdump: main calls through a pointer, dls_outer calls dls_inner;
  - at least 95% whole, from _start through main, dls_outer, dls_inner
    (before: the second the loader was busy stopped "address in no
    mapping" or skipped frames, about a third of them);
  - at most 1% stopped "not loaded yet".

usage: test_dlopen_late.py FTF_BPF DLOPENWL DLSPIN OUTDIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Tracer, check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import calls, sorted_out  # noqa: E402

FREQ = 499
SPIN_A, SPIN_B = 0.3, 3
CHAIN = ["_start", "main", "dls_outer", "dls_inner"]


def main():
    skip_unless_root()
    tool, wl, lib, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    print("dlopen late: code mapped after the unwind entry was read")
    check(("dls_outer", "dls_inner") in calls(lib), "objdump: dls_outer calls dls_inner")
    base = os.path.join(os.path.realpath(outdir), f"dlspin-{os.getpid()}")
    a, b = base + "-a.so", base + "-b.so"
    for p in (a, b):
        shutil.copy(lib, p)  # (new inodes: no table of them exists)
    out = os.path.join(outdir, "dlopen-late.fxt")
    os.environ.update(FTFB_FAULT_SLOW_UW_BUILD_S="1", FTF_BPF_UNWIND_CACHE="off")
    print("  (FTFB_FAULT_SLOW_UW_BUILD_S=1 FTF_BPF_UNWIND_CACHE=off)")
    w = subprocess.Popen([wl, a, str(SPIN_A), b, str(SPIN_B)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    tr = Tracer(tool, ["-g", "--freq", str(FREQ), "-o", out, "-p", str(w.pid)])
    stdout, _ = w.communicate(input="go\n", timeout=120)
    code = tr.wait()
    for p in (a, b):
        os.unlink(p)
    print("  dlopenwl printed:\n    " + stdout.strip().replace("\n", "\n    "))
    check(w.returncode == 0 and stdout.count("spun") == 2, "dlopenwl spun in both libraries")
    check(code == 0, f"exit 0 (got {code})")

    mine, good, not_loaded = sorted_out(out, b, CHAIN, "in B")
    m = re.search(r"user stacks copied \(tables not loaded yet\): (\d+)", tr.stderr)
    check(m is not None and int(m[1]) > 0, "the summary counts stacks copied")
    check(len(mine) >= 0.5 * SPIN_B * FREQ, f"B was sampled (at least {int(0.5 * SPIN_B * FREQ)})")
    check(len(good) >= 0.95 * len(mine), "at least 95% of them whole, from _start through the chain")
    check(len(not_loaded) <= 0.01 * len(mine), "at most 1% stopped 'not loaded yet'")


if __name__ == "__main__":
    run_main(main)
