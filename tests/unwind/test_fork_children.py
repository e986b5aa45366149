#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on forked children that never exec and live a few milliseconds (a
shell's subshells, a pre-forking server's workers): each starts with a
copy of its parent's unwind entry (bpf/unwind.bpf.h, ftfb_uw_fork), so
its first samples walk whole. Before, a child had no entry until the
loader read its maps, and most such children were gone by then: their
samples stopped "not loaded yet" (bench/HISTORY.md: 389 of 390 samples
of `$(...)` subshells).

forkwl (tests/unwind/forkwl.c, -O0) waits for a line, then forks N
children one after the other, each spinning SECS of CPU time in
main -> fork_a -> fork_spin and exiting at once; it prints how many.
With MODE exec, each child execs forkwl again to spin (a new image: its
entry comes from the loader a few ms after the exec; the samples before
are copied, and finished at the child's exit event from the entry it
exited with, uw_exited: before, they went on "not loaded yet").
Traced with -p (its children with it). Checked, for the children's
on-CPU samples:
  - forkwl forked all N (its own count), and the children were sampled
    (at least a quarter of N * SECS * FREQ: margin for a loaded machine);
  - at least 90% walked to the end, not stopped, with at least the 4
    user frames of main <- __libc_start_call_main <- __libc_start_main
    <- _start (a sample in fork's return or _exit is in main; the
    children may be gone before their frames are named: the walk is
    what is checked here).

usage: test_fork_children.py fork|exec FTF_BPF FORKWL OUTDIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Tracer, check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import stopped, user  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
N, SECS = 60, 0.01
DEPTH = 4


def in_exec(frames):
    return any(fn == "do_execveat_common.isra.0" or fn == "do_execveat_common"
               for fn, p in frames if p == "[kernel.kallsyms]")


def main():
    skip_unless_root()
    mode, tool, wl, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    print(f"{mode} children: short-lived children walked from their first sample")
    out = os.path.join(outdir, f"{mode}-children.fxt")
    w = subprocess.Popen([wl, str(N), str(SECS)] + (["exec"] if mode == "exec" else []),
                         stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    tr = Tracer(tool, ["-g", "--freq", str(FREQ), "-o", out, "-p", str(w.pid)])
    stdout, _ = w.communicate(input="go\n", timeout=120)
    code = tr.wait()
    print("  forkwl printed:", stdout.strip())
    check(stdout.strip() == f"forked {N}", f"forkwl forked {N} children")
    check(code == 0, f"exit 0 (got {code})")

    _, samples = decode_samples(read_ftf(out)[1])
    # (a sample inside execve has the old image's registers, its memory
    # gone: no user stack to walk, for any tracer)
    kids = [s for s in samples if s["kind"] == "on-CPU samples" and s["pid"] != w.pid
            and user(s["frames"]) and not in_exec(s["frames"])]
    whole = [s for s in kids if not stopped(s["frames"]) and len(user(s["frames"])) >= DEPTH]
    print(f"  children: {len(kids)} on-CPU samples in {len({s['pid'] for s in kids})} processes, "
          f"{len(whole)} walked whole")
    for s in [s for s in kids if s not in whole][:5]:
        print("    not:", " <- ".join(f"{fn or path}" for fn, path in reversed(user(s["frames"]))))
    want = int(0.25 * N * SECS * FREQ)
    check(len(kids) >= want, f"the children were sampled (at least {want})")
    check(len(whole) >= 0.9 * len(kids), "at least 90% of their samples walked whole")


if __name__ == "__main__":
    run_main(main)
