#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a program that exits before its own table is built: its samples
are held as copies of their stacks, and at its exit they wait on with
the entry and the mappings its image ended with
(src/stacks/native/stack_finish.c), until the table is built and found
by its file. Before, they went on at the exit as they were, stopped
"tables not loaded yet" (an `ar` loading LLVM's plugin, a first `cc1`).

freshwl (tests/unwind/freshwl.c, -O0) is copied to a new file (no table
of it exists) and run for 0.3 CPU seconds under
`sh -c 'FRESHWL 0.3; sleep 4'`, with FTFB_FAULT_SLOW_UW_BUILD_S=2 and
FTFB_FAULT_SLOW_UW_BUILD_OF=freshwl-exit (the build of its table two
seconds late, after it exited; the loader reads its maps at once) and
FTF_BPF_UNWIND_CACHE=off. Checked:
  - at least 100 of freshwl's samples (999 Hz for 0.3 CPU s);
  - at least 90% of them whole from _start through main, fresh_a,
    fresh_b, fresh_spin and named (before: 1 of 320 finished);
  - the summary counts them finished, not left as they were.

usage: test_exit_before_table.py FTF_BPF FRESHWL OUTDIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import sorted_out, user  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
CHAIN = ["_start", "main", "fresh_a", "fresh_b", "fresh_spin"]


def show_others(trace):
    """A few of the trace's on-CPU samples, with their mappings' paths
    (to tell frames unnamed from frames named after another file)."""
    _, samples = decode_samples(read_ftf(trace)[1])
    on = [s for s in samples if s["kind"] == "on-CPU samples"]
    print(f"  the trace's on-CPU samples: {len(on)}; the first few, user frames:")
    for s in on[:4] + on[len(on) // 2:len(on) // 2 + 4]:
        print("    ", " <- ".join(f"{fn}@{p}" for fn, p in reversed(user(s["frames"]))))


def main():
    skip_unless_root()
    tool, wl, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    print("exit before table: copies wait past their process's exit")
    fresh = os.path.join(os.path.realpath(outdir), f"freshwl-exit-{os.getpid()}")
    shutil.copy(wl, fresh)  # (a new inode: no table built for it)
    out = os.path.join(outdir, "exit-before-table.fxt")
    env = dict(os.environ, FTFB_FAULT_SLOW_UW_BUILD_S="2", FTF_BPF_UNWIND_CACHE="off",
               FTFB_FAULT_SLOW_UW_BUILD_OF="freshwl-exit")
    print("  (FTFB_FAULT_SLOW_UW_BUILD_S=2 FTFB_FAULT_SLOW_UW_BUILD_OF=freshwl-exit "
          "FTF_BPF_UNWIND_CACHE=off)")
    r = subprocess.run([tool, "-g", "--freq", str(FREQ), "-o", out, "--", "sh", "-c",
                        f"{fresh} 0.3; sleep 4"], capture_output=True, text=True, env=env,
                       timeout=120)
    os.unlink(fresh)
    print("  ftf-bpf said (exit %d):\n    %s" % (r.returncode, r.stderr.strip().replace("\n", "\n    ")))
    check(r.returncode == 0, f"exit 0 (got {r.returncode})")
    m = re.search(r"finished in userspace once loaded: (\d+) complete", r.stderr)
    print("  " + (m[0] if m else "no summary line of copies"))
    mine, good, _ = sorted_out(out, fresh, CHAIN, "freshwl")
    if len(mine) < 100:
        show_others(out)
    check(len(mine) >= 100, "at least 100 samples of freshwl, named")
    check(len(good) >= 0.9 * len(mine), "at least 90% of them whole, from _start through the chain")
    check(m is not None and int(m[1]) >= len(good) * 0.9,
          "the summary counts them finished in userspace")


if __name__ == "__main__":
    run_main(main)
