#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a stripped program: its frames are named BINARY+0xOFFSET (the
file's name and the file offset), in the trace and in the summary's top
list, so that they can be symbolized later.

The workload is bench's cpu-loop-nofp (spin under 16 calls of nest under
main), copied with `strip` (nm then finds no symbol in the copy). The
functions' places come from `nm -S` of the unstripped file, turned into
file offsets by its program headers (readelf -l). Of the copy's on-CPU
samples, at least 90% must have a leaf frame named
"cpu-loop-stripped+0x..." whose offset is inside spin and a caller
named the same way inside nest; the summary's top on-CPU list must
start with such a name inside spin.

usage: test_unnamed.py FTF_BPF FTF_DUMP CPU_LOOP OUTDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Trace, check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 99
NAME = "cpu-loop-stripped"


def file_ranges(path, funcs):
    """{function: (first, end) file offsets} from nm -S and readelf -l."""
    nm = subprocess.run(["nm", "-S", path], capture_output=True, text=True, check=True).stdout
    ph = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True).stdout
    loads = [tuple(int(x, 16) for x in m.groups()) for m in
             re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)", ph)]
    out = {}
    for m in re.finditer(r"^([0-9a-f]+) ([0-9a-f]+) [tT] (\w+)$", nm, re.M):
        addr, size, name = int(m[1], 16), int(m[2], 16), m[3]
        if name not in funcs:
            continue
        for off, vaddr, filesz in loads:
            if vaddr <= addr < vaddr + filesz:
                out[name] = (addr - vaddr + off, addr - vaddr + off + size)
    return out


def offset_of(frame_name):
    m = re.fullmatch(re.escape(NAME) + r"\+0x([0-9a-f]+)", frame_name or "")
    return int(m[1], 16) if m else None


def inside(off, rng, ret=False):
    """off (minus 1 for a return address: the call's last byte) in rng."""
    return off is not None and rng[0] <= off - ret < rng[1]


def main():
    skip_unless_root()
    tool, ftf_dump, loop, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    exe = os.path.join(outdir, NAME)
    subprocess.run(["strip", "-o", exe, loop], check=True)
    nm = subprocess.run(["nm", exe], capture_output=True, text=True)
    check("no symbols" in nm.stderr, f"nm finds no symbol in the stripped copy ({nm.stderr.strip()})")
    rng = file_ranges(loop, {"spin", "nest"})
    print(f"  nm -S of {loop}, as file offsets: " + ", ".join(f"{k} {a:#x}..{b:#x}" for k, (a, b) in rng.items()))
    check(set(rng) == {"spin", "nest"}, "spin and nest found in the unstripped file")

    out = os.path.join(outdir, "unnamed.fxt")
    args = ["-g", "--freq", str(FREQ), "-o", out, "--", exe, "1500000"]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    on = [[fn for fn, path in s["frames"] if path != "[kernel.kallsyms]"] for s in samples
          if s["kind"] == "on-CPU samples" and any(path == exe for _, path in s["frames"])]
    good = [f for f in on if len(f) >= 2 and inside(offset_of(f[-1]), rng["spin"]) and
            inside(offset_of(f[-2]), rng["nest"], ret=True)]
    print(f"  {len(on)} on-CPU samples in the stripped copy, {len(good)} with a leaf {NAME}+0x... inside spin "
          f"under one inside nest")
    for f in [f for f in on if f not in good][:5]:
        print("    not:", " <- ".join(str(x) for x in reversed(f[-4:])))
    check(len(on) >= 50, "the loop was sampled (at least 50 samples)")
    check(len(good) >= 0.9 * len(on), "at least 90% of them named by file offsets inside spin and nest")

    m = re.search(r"top on-CPU functions.*\n\s+(\d+) samples\s+(\S+)", p.stderr)
    first = m[2] if m else None
    check(inside(offset_of(first), rng["spin"]),
          f"the summary's top on-CPU list starts with {NAME}+0x... inside spin ({first})")


if __name__ == "__main__":
    run_main(main)
