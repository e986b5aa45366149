#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a process that maps a library after the loader read its maps and
exits before they are read again (a build's short sh, as, gcc: ld.so
maps libc after the exec that asked for the read). Its samples in the
library find no mapping and are held as copies of their stacks; at its
exit the walker rebuilds its entry from the kernel's list of its
mappings, each file's table found by device and inode
(bpf/uw_refresh.bpf.h), and the symbolizer is given the mappings, so
those samples come out whole and named.

The run: `sh -c 'dlspinwl 0.3; (sleep 1; echo go) | dlopenwl LIB 0.5'`
under `ftf-bpf -g --` with FTFB_FAULT_NO_REREAD=dlopenwl (the loader
never reads dlopenwl's maps a second time, as when it exits first).
dlspinwl (tests/unwind/dlspinwl.c) is linked with LIB
(libdlspinlinked.so, dlspin.c -O2 without frame pointers), so LIB's
table is built from dlspinwl's reads; dlopenwl (-O0) has its maps
read at its exec, then waits a second for its line, dlopens the same
LIB and spins in it for 0.5 CPU seconds, and exits. Checked, for
dlopenwl's samples in LIB:
  - objdump: dls_outer calls dls_inner;
  - at least 90% whole, from _start through main, dls_outer, dls_inner,
    with LIB's frames named from its path (before: every one stopped
    "address in no mapping" or "not loaded yet", its frames unnamed);
  - none stopped "address in no mapping".

usage: test_dlopen_exits.py FTF_BPF DLOPENWL DLSPINWL LIB OUTDIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import calls, sorted_out, stopped  # noqa: E402

FREQ = 499
SPIN = 0.5
CHAIN = ["_start", "main", "dls_outer", "dls_inner"]


def main():
    skip_unless_root()
    tool, dlopenwl, dlspinwl, lib, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    lib = os.path.realpath(lib)
    print("dlopen exits: a library mapped after the maps were read, the process gone first")
    check(("dls_outer", "dls_inner") in calls(lib), "objdump: dls_outer calls dls_inner")
    out = os.path.join(outdir, "dlopen-exits.fxt")
    script = f"{dlspinwl} 0.3 && (sleep 1; echo go) | {dlopenwl} {lib} {SPIN}"
    env = dict(os.environ, FTFB_FAULT_NO_REREAD="dlopenwl", FTF_BPF_UNWIND_CACHE="off")
    print("  (FTFB_FAULT_NO_REREAD=dlopenwl FTF_BPF_UNWIND_CACHE=off)", script)
    r = subprocess.run([tool, "-g", "--freq", str(FREQ), "-o", out, "--", "sh", "-c", script],
                       capture_output=True, text=True, env=env, timeout=120)
    print("  ftf-bpf said:\n    " + r.stderr.strip().replace("\n", "\n    "))
    check(r.returncode == 0, f"exit 0 (got {r.returncode})")
    check(r.stdout.count("spun") == 2, "dlspinwl and dlopenwl both spun in the library")

    # dlopenwl's samples: LIB's frames under dlopenwl's main (dlspinwl's
    # main is its own file's, not dlopenwl's)
    mine, good, _ = sorted_out(out, lib, CHAIN, "in LIB (both programs)")
    theirs = [s for s in mine if any(p == os.path.realpath(dlopenwl) for _, p in s["frames"])]
    whole = [s for s in theirs if s in good]
    no_mapping = [s for s in theirs
                  if "[unwind stopped: address in no mapping]" in stopped(s["frames"])]
    print(f"  dlopenwl's: {len(theirs)} samples in LIB, {len(whole)} whole, "
          f"{len(no_mapping)} stopped 'address in no mapping'")
    check(len(theirs) >= 0.3 * SPIN * FREQ,
          f"dlopenwl was sampled in LIB, named (at least {int(0.3 * SPIN * FREQ)})")
    check(len(whole) >= 0.9 * len(theirs), "at least 90% of them whole, from _start through the chain")
    check(not no_mapping, "none stopped 'address in no mapping'")


if __name__ == "__main__":
    run_main(main)
