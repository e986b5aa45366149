#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A binary over the table budget (issue 32): cfi_caller (cfi_caller.c)
spends nearly all its CPU time in libcfi_many.so (gen_cfi.py many 200000: one FDE
of 200,001 rows), traced with -g and a budget of ROWS rows a binary
(FTFB_FAULT_UW_MAX_ROWS, for tests: the default takes millions).
libcfi_many.so has twice the budget's rows and libc, ld.so and cfi_caller
far fewer (uw_dump's count of each is printed), so:

- the summary names the library, once, in one line:
  "unwind tables: PATH skipped: CFI over budget (more than ROWS rows)";
- every on-CPU stack of the caller whose leaf is in cfi_many ends right
  after it with the frame "[unwind stopped: CFI over budget]" (not "no
  CFI", nor a frame-pointer guess), bar those taken before the table was
  refused ("tables not loaded yet"), and those are at least 90%.

usage: test_cfi_budget.py FTF_BPF FTF_DUMP CALLER LIB UW_DUMP OUTDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Trace, check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

ROWS = 100000
FREQ = 99
SECONDS = 2
STOP = "[unwind stopped: CFI over budget]"
NOT_LOADED = "[unwind stopped: tables not loaded yet]"
NO_MAPPING = "[unwind stopped: address in no mapping]"


def rows_of(uw_dump, path):
    out = subprocess.run([uw_dump, path], capture_output=True, text=True, check=True).stdout
    return len(out.splitlines())


def test(tool, ftf_dump, caller, lib, uw_dump, outdir):
    lib = os.path.realpath(lib)
    for path, small in [(lib, False), ("/lib/x86_64-linux-gnu/libc.so.6", True),
                        ("/lib64/ld-linux-x86-64.so.2", True), (caller, True)]:
        n = rows_of(uw_dump, path)
        print(f"  uw_dump: {n} rows in {path}")
        check(n < ROWS if small else n > ROWS, f"{path}: {'under' if small else 'over'} the budget")
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "cfi-budget.fxt")
    args = [tool, "-g", "--freq", str(FREQ), "-o", out, "--", caller, lib, str(SECONDS)]
    print("  run:", " ".join(args))
    p = subprocess.run(args, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, FTFB_FAULT_UW_MAX_ROWS=str(ROWS)))
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    m = re.search(r"caller tid=(\d+) calls=(\d+) cpu_ns=(\d+)", p.stdout)
    tid, cpu_s = int(m[1]), int(m[3]) / 1e9

    lines = re.findall(r"^ +unwind tables: (.*) skipped: (.*)$", p.stderr, re.M)
    mine = [why for path, why in lines if path == lib]
    check(mine == [f"CFI over budget (more than {ROWS} rows)"],
          f"the summary names {lib} once, over budget (lines: {lines})")
    check(len(lines) == 1, "and no other binary")

    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    on = [[f for f in s["frames"] if f[1] != "[kernel.kallsyms]"]
          for s in samples if s["kind"] == "on-CPU samples" and s["tid"] == tid]
    inlib = [f for f in on if f and f[-1][0] == "cfi_many" and "libcfi_many" in f[-1][1]]
    stopped = [f for f in inlib if len(f) == 2 and f[0][0] == STOP]
    # (before the loader has the process's mappings, the walker knows
    # neither the library's table nor its mapping: "not loaded yet" or
    # "address in no mapping", 1 sample in 196 at most seen; the 90%
    # check below bounds them)
    waiting = [f for f in inlib if f[0][0] in (NOT_LOADED, NO_MAPPING)]
    expect = cpu_s * FREQ
    print(f"  caller: {len(on)} on-CPU samples, {len(inlib)} in cfi_many: {len(stopped)} end with "
          f"{STOP!r}, {len(waiting)} before the mapping or table was known ({cpu_s:.3f} s of CPU: about {expect:.0f} expected)")
    for f in [f for f in inlib if f not in stopped + waiting][:5]:
        print("    not:", " <- ".join(fn for fn, _ in reversed(f)))
    check(len(inlib) >= 0.5 * expect, "the caller's samples are in cfi_many")
    check(len(stopped) + len(waiting) == len(inlib),
          f"each stack in cfi_many ends right after it with {STOP!r} (or before its mapping or table was known)")
    check(len(stopped) >= 0.9 * len(inlib), "at least 90% with the over-budget frame")


if __name__ == "__main__":
    skip_unless_root()
    run_main(lambda: test(*sys.argv[1:7]))
