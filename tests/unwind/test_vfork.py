#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a program in vfork: glibc's __vfork pops its return address
into rdi before the syscall and pushes it back after (its CFI: "ra in
r5 (rdi)"), so a stack taken while the kernel runs the vfork (the parent
copying itself, or blocked until its child exits) starts where no
return address is on the stack. The walker takes it from the first
frame's rdi (FTFB_UW_CFA_RA_RDI); before, every such stack stopped
"unsupported CFI rule" (a build's gcc driver: 16 of its 398 samples).

vforkwl (tests/unwind/vforkwl.c, -O0) vforks in a loop for 0.3 CPU
seconds. Checked, from the trace:
  - objdump: main calls vfork (through the PLT);
  - at least 20 on-CPU samples with __vfork as their innermost user
    frame, and at least 90% of them whole: _start, main, __vfork;
  - the off-CPU stacks at __vfork (the parent waiting for its child):
    at least 90% of them whole as well;
  - at most 2% of either stopped "unsupported CFI rule" (a sample taken
    before libc's table was loaded is finished in userspace from a copy
    of its stack, which keeps no rdi: 1 of 246 in one run).

usage: test_vfork.py FTF_BPF VFORKWL OUTDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
SPIN_S = 0.3  # (some 8,000 vforks: each is an off-CPU stack)


def user(frames):
    return [(fn, p) for fn, p in frames if p != "[kernel.kallsyms]"]


def whole(frames):
    names = [fn for fn, _ in user(frames)]
    return names[:1] == ["_start"] and "main" in names and names[-1] == "__vfork" and \
        not any(fn and fn.startswith("[unwind stopped") for fn, _ in frames)


def main():
    skip_unless_root()
    tool, wl, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    print("vfork: the return address in rdi")
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", wl], capture_output=True,
                         text=True, check=True).stdout
    body = dis.split("<main>:")[1].split("\n\n")[0] if "<main>:" in dis else ""
    check(re.search(r"call\s+\S+ <vfork@plt>", body) is not None, "objdump: main calls vfork")
    out = os.path.join(outdir, "vfork.fxt")
    # (after 2 s: the tables of libc and ld.so, which sh and sleep map
    # too, are built by then; a stack at a block is not held for them as
    # a sample on CPU is, and on a fresh machine libc's takes a while)
    r = subprocess.run([tool, "-g", "--freq", str(FREQ), "-o", out, "--", "sh", "-c",
                        f"sleep 2; exec {wl} {SPIN_S}"],
                       capture_output=True, text=True, timeout=120)
    print("  " + r.stdout.strip())
    check(r.returncode == 0 and "vforked" in r.stdout, f"exit 0, vforkwl ran (got {r.returncode})")
    _, samples = decode_samples(read_ftf(out)[1])
    for kind, least in (("on-CPU samples", 20), ("off-CPU", 20)):
        mine = [s for s in samples if s["kind"].startswith(kind) and user(s["frames"])
                and user(s["frames"])[-1][0] == "__vfork"]
        good = [s for s in mine if whole(s["frames"])]
        unsupported = [s for s in mine if "[unwind stopped: unsupported CFI rule]"
                       in [fn for fn, _ in s["frames"]]]
        print(f"  {kind}: {len(mine)} stacks at __vfork, {len(good)} whole, "
              f"{len(unsupported)} stopped 'unsupported CFI rule'")
        for s in [s for s in mine if s not in good][:3]:
            print("    not:", " <- ".join(f"{fn}" for fn, _ in reversed(user(s["frames"]))))
        check(len(mine) >= least, f"{kind}: at least {least} stacks at __vfork")
        check(len(good) >= 0.9 * len(mine), f"{kind}: at least 90% of them whole through main")
        check(len(unsupported) <= 0.02 * len(mine),
              f"{kind}: at most 2% stopped 'unsupported CFI rule'")


if __name__ == "__main__":
    run_main(main)
