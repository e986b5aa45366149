#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on C++ and Rust programs: their frames carry demangled names, in
the trace and in the summary's top on-CPU list.

The programs are built here: cxxwl.cc with g++ -O2, rustwl.rs with
Debian's rustc -O twice, with legacy mangling (_ZN...17h<hash>E) and
with -C symbol-mangling-version=v0 (_R...). Each spins in spin under
walk under main. The names expected come from the binary's own symbols
(`nm`) demangled by binutils' `c++filt`, less what perf leaves out too:
a legacy Rust name's hash (::h + 16 hex digits) and a v0 name's crate
disambiguator ([hex]); for v0 they must also hold the source's path
(rustwl::geo::Grid, spin; rustwl::geo::walk::<u64>).

Of each program's on-CPU samples in spin, at least 90% must have the
leaf frame named as expected for spin with its caller named as
expected for walk, and the summary's top on-CPU list must start with
spin's name.

usage: test_demangle.py cxx|rust-legacy|rust-v0 FTF_BPF FTF_DUMP SRCDIR OUTDIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Fail, check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples  # noqa: E402
from test_runtimes import run_g, show, user_frames  # noqa: E402

FREQ = 99
STEPS = "1000000000"  # about 1.3 s of CPU here: some 120 samples
RUSTC = "/usr/bin/rustc"  # Debian's (a rustup one on PATH may differ)


def build(mode, srcdir, outdir):
    exe = os.path.join(outdir, "demangle-" + mode)
    if mode == "cxx":
        if not shutil.which("g++"):
            raise Fail("g++ not found: install Debian's g++ (build-essential)")
        cmd = ["g++", "-O2", "-o", exe, os.path.join(srcdir, "cxxwl.cc")]
    else:
        if not os.access(RUSTC, os.X_OK):
            raise Fail(f"{RUSTC} not found: install Debian's rustc (scripts/setup.sh does)")
        cmd = [RUSTC, "-O", "-o", exe, os.path.join(srcdir, "rustwl.rs")]
        if mode == "rust-v0":
            cmd[2:2] = ["-C", "symbol-mangling-version=v0"]
    print("  " + " ".join(cmd))
    subprocess.run(cmd, check=True, timeout=300, env=dict(os.environ, TMPDIR=outdir))
    return exe


def expected_names(exe, mode):
    """{spin, walk: demangled name} from nm and c++filt."""
    nm = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    syms = re.findall(r"^[0-9a-f]+ [tTwW] (\S+)$", nm, re.M)
    dem = subprocess.run(["c++filt"], input="\n".join(syms), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    out = {}
    for raw, name in zip(syms, dem):
        name = re.sub(r"::h[0-9a-f]{16}$", "", name)  # legacy Rust's hash
        name = re.sub(r"\[[0-9a-f]+\]", "", name)  # v0's crate disambiguator
        for fn in ("spin", "walk"):
            if re.search(rf"\b{fn}\b", name) and "geo" in name and raw != name:
                print(f"  nm | c++filt: {raw} -> {name}")
                out[fn] = name
    check(set(out) == {"spin", "walk"}, f"spin and walk found mangled in {exe}")
    return out


def main():
    skip_unless_root()
    mode, tool, ftf_dump, srcdir, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    print(f"demangled names: {mode}")
    exe = build(mode, srcdir, outdir)
    want = expected_names(exe, mode)
    if mode == "rust-v0":
        check(want["spin"] == "<rustwl::geo::Grid>::spin" and want["walk"] == "rustwl::geo::walk::<u64>",
              "c++filt's v0 names are the source's paths")
    out = os.path.join(outdir, f"demangle-{mode}.fxt")
    p, stream = run_g(tool, ftf_dump, out, [exe, STEPS], FREQ)
    _, samples = decode_samples(stream)
    on = [user_frames(s) for s in samples if s["kind"] == "on-CPU samples" and
          any(path == exe for _, path in s["frames"])]
    good = [f for f in on if len(f) >= 2 and f[-1] == want["spin"] and f[-2] == want["walk"]]
    print(f"  {len(on)} on-CPU samples in {os.path.basename(exe)}, {len(good)} with {want['spin']} "
          f"under {want['walk']}")
    show("not", [f for f in on if f not in good])
    check(len(on) >= 50, "the program was sampled (at least 50 samples)")
    check(len(good) >= 0.9 * len(on), "at least 90% of them named as c++filt names them")
    m = re.search(r"top on-CPU functions.*\n\s+(\d+) samples\s+(.+)", p.stderr)
    first = m[2].strip() if m else None
    check(first == want["spin"], f"the summary's top on-CPU list starts with {want['spin']} ({first})")


if __name__ == "__main__":
    run_main(main)
