#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Functions ftf-bpf must refuse to probe (run as root).

usage: test_guards.py FTF_BPF FTF_DUMP GUARD_TARGET OUTDIR

- setjmp and its kin return twice: a uretprobe on them breaks the probed
  program, so a spec naming only them is an error (one line, non-zero exit,
  no trace file), and a glob that also matches them skips them with a
  warning and traces the rest.
- A function whose first instruction has a LOCK prefix cannot be probed on
  x86 (the kernel takes the probe, then never fires it): refused alone,
  skipped from a glob, and the glob's other function is traced exactly
  (guard_target calls each N times).
- The tracer's own calls are never recorded: under -a -u libc:write with a
  live status line (which the tracer writes with libc's write() while the
  probes are attached), guard_target's N writes are all recorded and none
  of the tracer's.
"""
import collections
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, Tracer, check, run_main, skip_unless_root  # noqa: E402

N = 200


def refused_alone_skipped_from_glob(tool, out, lone, glob, cmd, why, skipped):
    """-u LONE is refused with one line containing WHY, non-zero exit and no
    trace file; -u GLOB (which also matches it) succeeds and names SKIPPED
    in a warning."""
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run([tool, "-o", out, "-u", lone, "--"] + cmd,
                       capture_output=True, text=True, timeout=60)
    print("  said:", p.stderr.strip())
    check(p.returncode != 0, f"-u {lone} is refused (exit {p.returncode})")
    check(len(p.stderr.strip().splitlines()) == 1 and why in p.stderr,
          f"one line saying why ({why!r})")
    check(not os.path.exists(out), "no trace file is left")
    p = subprocess.run([tool, "-o", out, "-u", glob, "--"] + cmd,
                       capture_output=True, text=True, timeout=60)
    print("  said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"-u {glob} still traces the rest (exit {p.returncode}: {p.stderr.strip()[-200:]})")
    check("skipping" in p.stderr and skipped in p.stderr, f"the skipped {skipped} is named in a warning")


def lock_prefix(tool, ftf_dump, target, outdir):
    out = os.path.join(outdir, "guards-lock.fxt")
    refused_alone_skipped_from_glob(tool, out, f"{target}:ftfb_locked", f"{target}:ftfb_*",
                                    [target, str(N)], "LOCK", "ftfb_locked")
    t = Trace(ftf_dump, out)
    names = collections.Counter((e[4], e[5]) for e in t.events if e[5] in ("DurationBegin", "DurationEnd"))
    check(names == {("ftfb_plain", "DurationBegin"): N, ("ftfb_plain", "DurationEnd"): N},
          f"exactly {N} calls of ftfb_plain and none of ftfb_locked: {dict(names)}")


def self_exclusion(tool, ftf_dump, target, outdir):
    out = os.path.join(outdir, "guards-self.fxt")
    tr = Tracer(tool, ["-a", "--no-sched", "--status", "-u", "libc:write", "--args", "3", "-o", out])
    time.sleep(1.5)  # (a status line is written every second)
    r = subprocess.run([target, str(N)], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"guard_target ran (exit {r.returncode})")
    wl = int(r.stdout.split()[1])
    time.sleep(1.5)
    tr.signal(signal.SIGINT)
    rc = tr.wait()
    check(rc == 0, f"ftf-bpf stopped cleanly on SIGINT (exit {rc})")
    check(tr.stderr.count("\r") >= 2 or tr.stderr.count("events/s") >= 2,
          "the tracer wrote status lines while the probes were attached")
    t = Trace(ftf_dump, out)
    begins = collections.Counter(e[1] for e in t.events if e[5] == "DurationBegin" and e[4] == "write")
    # (its one-byte writes; stdout's flush at exit is one more write)
    ones = sum(1 for e in t.events if e[5] == "DurationBegin" and e[4] == "write" and e[1] == wl
               and "arg2: int64(1)" in e[6])
    check(ones == N, f"guard_target's {N} one-byte write() calls are recorded (got {ones})")
    check(begins[tr.p.pid] == 0, f"none of the tracer's own (pid {tr.p.pid}): {begins[tr.p.pid]}")


def main_test(tool, outdir):
    out = os.path.join(outdir, "guards.fxt")
    refused_alone_skipped_from_glob(tool, out, "libc:_setjmp", "libc:*jmp*", ["/bin/true"],
                                    "returns twice", "setjmp")


def main():
    skip_unless_root()
    tool, ftf_dump, target, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)

    def all_cases():
        main_test(tool, outdir)
        lock_prefix(tool, ftf_dump, target, outdir)
        self_exclusion(tool, ftf_dump, target, outdir)
    run_main(all_cases)


if __name__ == "__main__":
    main()
