#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a program exec'd from a file no run has seen: the first samples
come before its unwind table is loaded. They are sent with a copy of the
user stack and finished in userspace once the table is there
(bpf/stackcopy.h, src/stacks/native/stack_finish.c), so they must be as
whole as the later ones, which the BPF walker walks itself.

freshwl (tests/unwind/freshwl.c, -O0, noinline) spins in
main -> fresh_a -> fresh_b -> fresh_spin; objdump shows those calls. Its
file is copied to a new path first (a new inode: no table built for it),
and FTFB_FAULT_SLOW_UW_BUILD_S=1 makes every table build take a second
more, so about the first second of its samples (at 999 Hz: hundreds)
stop "tables not loaded yet" in the kernel. Checked:
  - the summary says that many stacks were copied and finished;
  - at least 95% of freshwl's samples hold the chain, whole from _start
    (its CFI ends there), none stopped "not loaded yet" (before the
    copies: about a third of them);
  - the samples of the first 0.5 s (finished in userspace) and of the
    last 0.5 s (walked in BPF) with fresh_spin as their innermost user
    frame have the same user stack: both walks read the rows alike.

usage: test_stack_copy.py FTF_BPF FRESHWL OUTDIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
CHAIN = ["_start", "main", "fresh_a", "fresh_b", "fresh_spin"]
# (longer than the four table builds a fresh run waits for, a second each
# with the fault: sh, freshwl, libc, ld.so; at 2.5 s the process was gone
# before freshwl's table when they came in that order)
SPIN_S = 8


def calls(path):
    """(caller, callee) pairs of freshwl's direct calls, from objdump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    pairs, fn = set(), None
    for line in out.splitlines():
        m = re.match(r"[0-9a-f]+ <(\w+)>:", line)
        if m:
            fn = m[1]
        m = re.search(r"\bcall\s+[0-9a-f]+ <(\w+)>", line)
        if m and fn:
            pairs.add((fn, m[1]))
    return pairs


def user(frames):
    return [(fn, p) for fn, p in frames if p != "[kernel.kallsyms]"]


def holds(frames, chain):
    names = iter(fn for fn, _ in frames)
    return all(any(n == want for n in names) for want in chain)


def stopped(frames):
    return [fn for fn, _ in frames if fn and fn.startswith("[unwind stopped")]


def sorted_out(trace, path, chain, what):
    """The on-CPU samples of trace with a frame in file path (by time),
    those whole from _start through chain, those stopped "not loaded
    yet"; says how many, and shows a few of the others."""
    _, samples = decode_samples(read_ftf(trace)[1])
    mine = [s for s in samples if s["kind"] == "on-CPU samples" and
            any(p == path for _, p in user(s["frames"]))]
    mine.sort(key=lambda s: s["ts"])
    good = [s for s in mine if holds(user(s["frames"]), chain) and not stopped(s["frames"])
            and user(s["frames"])[0][0] == "_start"]
    not_loaded = [s for s in mine if "[unwind stopped: tables not loaded yet]" in stopped(s["frames"])]
    print(f"  {what}: {len(mine)} on-CPU samples, {len(good)} whole with the chain, "
          f"{len(not_loaded)} stopped 'not loaded yet'")
    for s in [s for s in mine if s not in good][:5]:
        print("    not:", " <- ".join(f"{fn or path}" for fn, path in reversed(user(s["frames"]))))
    return mine, good, not_loaded


def main():
    skip_unless_root()
    tool, wl, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    print("stack copy: samples taken before their table is loaded")
    pairs = calls(wl)
    for c in [("main", "fresh_a"), ("fresh_a", "fresh_b"), ("fresh_b", "fresh_spin")]:
        check(c in pairs, f"objdump: {c[0]} calls {c[1]}")
    fresh = os.path.join(os.path.realpath(outdir), f"freshwl-{os.getpid()}")
    shutil.copy(wl, fresh)  # (a new inode: no table of it exists)
    out = os.path.join(outdir, "stack-copy.fxt")
    args = ["-g", "--freq", str(FREQ), "-o", out, "--", "sh", "-c", f"exec {fresh} {SPIN_S}"]
    print("  run: FTFB_FAULT_SLOW_UW_BUILD_S=1 FTF_BPF_UNWIND_CACHE=off", tool, " ".join(args))
    # (no table cache: freshwl's new copy has the build id of the last
    # run's, whose table the cache would hand over before any sample)
    env = dict(os.environ, FTFB_FAULT_SLOW_UW_BUILD_S="1", FTF_BPF_UNWIND_CACHE="off")
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=200, env=env)
    os.unlink(fresh)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    m = re.search(r"user stacks copied \(tables not loaded yet\): (\d+); finished in userspace "
                  r"once loaded: (\d+) complete", p.stderr)
    check(m is not None, "the summary counts the stacks copied")
    copied, finished = int(m[1]), int(m[2])
    check(copied >= 100, f"at least 100 samples came before the table ({copied})")
    check(finished >= 0.9 * copied, f"at least 90% of them finished whole ({finished} of {copied})")

    mine, good, not_loaded = sorted_out(out, fresh, CHAIN, "freshwl")
    check(len(mine) >= 500, "freshwl was sampled (at least 500 samples)")
    check(len(good) >= 0.95 * len(mine), "at least 95% of them whole, from _start through the chain")
    check(len(not_loaded) <= 0.01 * len(mine), "at most 1% stopped 'not loaded yet'")

    t0, t1 = mine[0]["ts"], mine[-1]["ts"]
    tps = (t1 - t0) / SPIN_S if t1 > t0 else 1

    def spin_stacks(lo, hi):
        return {tuple(fn for fn, _ in user(s["frames"])) for s in good
                if lo <= s["ts"] <= hi and user(s["frames"])[-1][0] == "fresh_spin"}
    early, late = spin_stacks(t0, t0 + 0.5 * tps), spin_stacks(t1 - 0.5 * tps, t1)
    print(f"  user stacks ending in fresh_spin: first 0.5 s {sorted(early)}, last 0.5 s {sorted(late)}")
    check(early and early == late, "the same stack in the first half second (finished in userspace) "
          "as in the last (walked by BPF)")


if __name__ == "__main__":
    run_main(main)
