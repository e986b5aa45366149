#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a program in ld.so's lazy binding: every sample under a call
through the PLT is in _dl_runtime_resolve_xsavec (or its xsave or
fxsave twin) or below it (_dl_fixup, the symbol lookup), and that
trampoline's CFA is rbx plus 32 (readelf -wF): rbx is followed from the
registers and through the rbx each frame below saved (the tables'
rows), where before every such stack stopped "unsupported CFI rule".

The run: `ftf-bpf -g -- env LD_BIND_NOT=1 lazywl 1.5` (LD_BIND_NOT:
ld.so resolves each call again, tests/unwind/lazywl.c). Checked:
  - objdump: lazywl's work calls strtol, memset and labs through the
    PLT, and the binary is not bound at once (no BIND_NOW);
  - samples through the trampoline: at least 30% of those expected at
    the frequency for its CPU time (it spends most of it there);
  - at least 90% of them whole, from _start through main, work and the
    trampoline (of those not finished from a copy, see below); and at
    least 10% of them with ld.so's _dl_fixup below it, whole (rbx read
    where _dl_fixup and the frames below saved it);
  - no more stopped "unsupported CFI rule" than the stacks the summary
    says were copied (tables not loaded yet) and finished in userspace,
    whose walk over a copy has no rbx of the frames below its stop
    (before: nearly all of them stopped so).

usage: test_lazy_binding.py FTF_BPF LAZYWL OUTDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import stopped, user  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 499
CPU_S = 1.5
RESOLVE = re.compile(r"^_dl_runtime_resolve_(xsavec|xsave|fxsave)$")


def plt_calls(path):
    """The functions lazywl's work calls through the PLT (objdump)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    body = re.search(r"<work>:\n(.*?)\n\n", out, re.S)
    return set(re.findall(r"\bcall\s+[0-9a-f]+ <(\w+)@plt>", body[1])) if body else set()


def bound_now(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    return re.search(r"\(FLAGS\)\s.*\bBIND_NOW\b|\(FLAGS_1\)\s.*\bNOW\b|\(BIND_NOW\)", out) is not None


def main():
    skip_unless_root()
    tool, lazywl, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    print("lazy binding: stacks through _dl_runtime_resolve (CFA = rbx + 32)")
    got = plt_calls(lazywl)
    check({"strtol", "memset", "labs"} <= got, f"objdump: work calls strtol, memset, labs through the PLT ({sorted(got)})")
    check(not bound_now(lazywl), "lazywl is bound lazily (no BIND_NOW)")
    out = os.path.join(outdir, "lazy-binding.fxt")
    cmd = [tool, "-g", "--freq", str(FREQ), "-o", out, "--", "env", "LD_BIND_NOT=1", lazywl, str(CPU_S)]
    print("  " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + r.stderr.strip().replace("\n", "\n    "))
    check(r.returncode == 0, f"exit 0 (got {r.returncode})")

    _, samples = decode_samples(read_ftf(out)[1])
    mine = sorted((s for s in samples if s["kind"] == "on-CPU samples" and
                   any(RESOLVE.match(fn or "") for fn, _ in user(s["frames"]))), key=lambda s: s["ts"])
    m = re.search(r"user stacks copied \(tables not loaded yet\): (\d+)", r.stderr)
    copied = int(m[1]) if m else 0

    def whole(s):
        names = [fn for fn, _ in user(s["frames"])]
        at = next(i for i, n in enumerate(names) if RESOLVE.match(n or ""))
        return (not stopped(s["frames"]) and names[0] == "_start" and at >= 2 and
                names[at - 2:at] == ["main", "work"]), names[at + 1:at + 2] == ["_dl_fixup"]

    marks = [whole(s) for s in mine]
    good = sum(1 for w, _ in marks if w)
    deep = sum(1 for w, fixup in marks if w and fixup)
    unsupported = [s for s in mine if "[unwind stopped: unsupported CFI rule]" in stopped(s["frames"])]
    print(f"  {len(mine)} samples through the trampoline, {good} whole from _start through main, work; "
          f"{deep} of them with _dl_fixup below it; {len(unsupported)} stopped 'unsupported CFI rule', "
          f"{copied} stacks copied")
    for s in [s for s, (w, _) in zip(mine, marks) if not w][:5]:
        print("    not:", " <- ".join(f"{fn or path}" for fn, path in reversed(user(s["frames"]))))
    check(len(mine) >= 0.3 * CPU_S * FREQ, f"sampled through the trampoline (at least {int(0.3 * CPU_S * FREQ)})")
    # (those finished from a copy may stop at the trampoline: see below)
    walked = len(mine) - min(len(unsupported), copied)
    check(good >= 0.9 * walked, "at least 90% of them whole, from _start through main, work "
          "(of those not finished from a copy)")
    check(deep >= 0.1 * len(mine), "at least 10% whole with _dl_fixup below the trampoline")
    check(len(unsupported) <= copied,
          "no more stopped 'unsupported CFI rule' than stacks copied before the tables were loaded")


if __name__ == "__main__":
    run_main(main)
