#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Functions ftf-bpf must refuse to probe (run as root).

usage: test_guards.py FTF_BPF OUTDIR

- setjmp and its kin return twice: a uretprobe on them breaks the probed
  program, so a spec naming only them is an error (one line, non-zero exit,
  no trace file), and a glob that also matches them skips them with a
  warning and traces the rest.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402


def main_test(tool, outdir):
    out = os.path.join(outdir, "guards.fxt")
    for f in (out, out + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    p = subprocess.run([tool, "-o", out, "-u", "libc:_setjmp", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    print("  said:", p.stderr.strip())
    check(p.returncode != 0, f"-u libc:_setjmp is refused (exit {p.returncode})")
    check(len(p.stderr.strip().splitlines()) == 1 and "returns twice" in p.stderr,
          "one line saying it returns twice")
    check(not os.path.exists(out), "no trace file is left")
    p = subprocess.run([tool, "-o", out, "-u", "libc:*jmp*", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"a glob matching them still traces the rest (exit {p.returncode}: {p.stderr.strip()[-200:]})")
    check("skipping" in p.stderr and "setjmp" in p.stderr, "the skipped functions are named in a warning")


def main():
    skip_unless_root()
    tool, outdir = sys.argv[1:3]
    os.makedirs(outdir, exist_ok=True)
    run_main(lambda: main_test(tool, outdir))


if __name__ == "__main__":
    main()
