#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g names the frames of processes gone before their samples are
translated. The symbolizer reads a process's maps when it translates its
first sample, and a child living a few tens of milliseconds has exited by
then: its stacks, walked whole in the kernel, kept no names at all
(bench/HISTORY.md: 11-14% of the stacks of -a beside make -j2; here 48 of
631 samples of forkwl's children named before). Now the maps the unwind
loader read while it lived (src/stacks/native/maps_memo.h), or, for a
child that never exec'd, its parent's at the fork, name them.

Two workloads, each traced with -p (its children with it):
  - forkwl (tests/unwind/forkwl.c, -O0) forks N children one after the
    other, each spinning SECS of CPU time in main -> fork_a -> fork_spin
    and exiting: children that never exec;
  - sh runs freshwl (tests/unwind/freshwl.c, -O0) N times for SECS of CPU
    time each, main -> fresh_a -> fresh_b -> fresh_spin: children that
    exec.
Checked against each workload's own count of children: the children
were sampled (at least a quarter of N * SECS * FREQ: margin for a loaded
machine), at least 90% of their on-CPU samples have a name for every
user frame (the rest: the dynamic loader's _start, which has none), and
at least 80% hold the chain (the others are in fork, exec or exit).

usage: test_gone_names.py FTF_BPF FORKWL FRESHWL OUTDIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Tracer, check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import holds, user  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
N, SECS = 30, 0.08


def traced(tool, argv, out):
    """Runs argv (it waits for a line first) under -g -p; its stdout and
    the on-CPU samples of its children."""
    w = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    tr = Tracer(tool, ["-g", "--freq", str(FREQ), "-o", out, "-p", str(w.pid)])
    stdout, _ = w.communicate(input="go\n", timeout=120)
    code = tr.wait()
    check(code == 0, f"exit 0 (got {code})")
    _, samples = decode_samples(read_ftf(out)[1])
    return stdout.strip(), [s for s in samples if s["kind"] == "on-CPU samples" and
                            s["pid"] != w.pid and user(s["frames"])]


def all_named(s):
    """Every user frame of s has a function name (the walker's stop, if
    any, aside): none is a mapping + offset or [anon] + address."""
    return all(fn and not fn.startswith("[") and "+0x" not in fn
               for fn, _ in user(s["frames"]) if not (fn or "").startswith("[unwind stopped"))


def named(what, kids, chain):
    good = [s for s in kids if all_named(s)]
    held = [s for s in kids if holds(user(s["frames"]), chain)]
    print(f"  {what}: {len(kids)} on-CPU samples in {len({s['pid'] for s in kids})} "
          f"processes, {len(good)} with every frame named, {len(held)} with "
          f"{' <- '.join(reversed(chain))}")
    for s in [s for s in kids if s not in good][:4]:
        print("    not:", " <- ".join(f"{fn or p}" for fn, p in reversed(user(s["frames"]))))
    want = int(0.25 * N * SECS * FREQ)
    check(len(kids) >= want, f"the children were sampled (at least {want})")
    check(len(good) >= 0.9 * len(kids), "at least 90% of their samples have every frame named")
    check(len(held) >= 0.8 * len(kids), "at least 80% of them hold the chain (the spin)")


def main():
    skip_unless_root()
    tool, forkwl, freshwl, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    print("gone names: frames of children gone before their samples are named")
    said, kids = traced(tool, [forkwl, str(N), str(SECS)], os.path.join(outdir, "gone-fork.fxt"))
    print("  forkwl printed:", said)
    check(said == f"forked {N}", f"forkwl forked {N} children")
    named("forked children", kids, ["main", "fork_a", "fork_spin"])

    script = f'read x; i=0; while [ $i -lt {N} ]; do {freshwl} {SECS} >/dev/null; ' \
             f'i=$((i+1)); done; echo ran $i'
    said, kids = traced(tool, ["sh", "-c", script], os.path.join(outdir, "gone-exec.fxt"))
    print("  sh printed:", said)
    check(said == f"ran {N}", f"sh ran freshwl {N} times")
    named("exec'd children", kids, ["main", "fresh_a", "fresh_b", "fresh_spin"])


if __name__ == "__main__":
    run_main(main)
