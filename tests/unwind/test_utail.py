#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a thread whose stack changes under a frame that stays in the
same state: on-CPU walks that end with their thread's last walk's frames
(bpf/utail.bpf.h) must take them only where the stack still holds them.

tailwl (tests/unwind/tailwl.c) spins in turn, about 3 ms of CPU each, in
  _start > ... > main > tail_deep x13 > tail_round > tail_path_a >
      tail_shared > tail_leaf_a
and the same through tail_path_b > tail_shared > tail_leaf_b, whose
tail_shared frame has the same sp and pc on both paths (objdump shows
the calls; the chain is the program's, not the tracer's). Run at 999 Hz
under `ftf-bpf -g --`, built -O2 without frame pointers (frames above
checked by their return addresses) and -O0 with them (CFA from rbp:
every word checked). Checked, for each:
  - at least 1,000 samples in a leaf; at least 95% of them whole from
    _start, every tail_deep level there (a wrong reuse would show
    another count or path);
  - none in tail_leaf_a under tail_path_b, or in tail_leaf_b under
    tail_path_a (with the check of the stack switched off, 458 of
    3,994 were);
  - the summary: at least 30% of the walks ended with the last walk's
    frames, and at least 10 refused, the stack having changed (each
    switch of leaf sampled makes one).

usage: test_utail.py FTF_BPF TAILWL TAILWL_FP OUTDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import calls, stopped, user  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
SPIN_S = 4
DEPTH = 12  # tailwl.c's
LEAF_PATH = {"tail_leaf_a": "tail_path_a", "tail_leaf_b": "tail_path_b"}


def check_calls(wl):
    pairs = calls(wl)
    for c in [("main", "tail_deep"), ("tail_deep", "tail_deep"), ("tail_deep", "tail_round"),
              ("tail_round", "tail_path_a"), ("tail_round", "tail_path_b"),
              ("tail_path_a", "tail_shared"), ("tail_path_b", "tail_shared")]:
        check(c in pairs, f"objdump: {c[0]} calls {c[1]}")


def leaf_samples(trace, wl):
    _, samples = decode_samples(read_ftf(trace)[1])
    out = []
    for s in samples:
        if s["kind"] != "on-CPU samples":
            continue
        names = [fn for fn, p in user(s["frames"]) if p == wl]
        leaf = [fn for fn in names if fn in LEAF_PATH]
        if leaf:
            out.append((leaf[-1], names, s))
    return out


def run_one(tool, wl, outdir, tag):
    print(f"utail: {tag}")
    check_calls(wl)
    out = os.path.join(outdir, f"utail-{tag}.fxt")
    args = ["-g", "--freq", str(FREQ), "-o", out, "--", wl, str(SPIN_S)]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=200)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    wl_real = os.path.realpath(wl)
    leaves = leaf_samples(out, wl_real)
    whole = [x for x in leaves if not stopped(x[2]["frames"]) and
             user(x[2]["frames"])[0][0] == "_start" and x[1].count("tail_deep") == DEPTH + 1]
    wrong = [x for x in leaves if LEAF_PATH[x[0]] not in x[1] or
             any(p in x[1] for leaf, p in LEAF_PATH.items() if leaf != x[0])]
    print(f"  {len(leaves)} samples in a leaf, {len(whole)} whole with {DEPTH + 1} tail_deep, "
          f"{len(wrong)} under the other leaf's path")
    for leaf, names, s in wrong[:3]:
        print("    wrong:", " <- ".join(reversed(names)))
    for leaf, names, s in [x for x in leaves if x not in whole][:3]:
        print("    not whole:", " <- ".join(fn or "?" for fn, _ in reversed(user(s["frames"]))))
    check(len(leaves) >= 1000, "at least 1,000 samples in a leaf")
    check(len(whole) >= 0.95 * len(leaves), "at least 95% of them whole from _start, every level")
    check(not wrong, "none under the other leaf's path")
    m = re.search(r"user stacks ended with frames of their thread's last walk \(checked against "
                  r"the stack\): (\d+) \(([\d.]+)% of those walked\); (\d+) refused", p.stderr)
    check(m is not None, "the summary counts the walks ended with the last walk's frames")
    check(float(m[2]) >= 30, f"at least 30% of the walks did ({m[2]}%)")
    check(int(m[3]) >= 10, f"at least 10 refused, the stack having changed ({m[3]})")


def main():
    skip_unless_root()
    tool, wl, wl_fp, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    run_one(tool, wl, outdir, "nofp")
    run_one(tool, wl_fp, outdir, "fp")


if __name__ == "__main__":
    run_main(main)
