#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a stripped Go program: frames named from .gopclntab, Go's own
function table, and stacks whole to Go's start of a stack.

gowl (tests/unwind/gowl.go) is built here with `go build -ldflags='-s -w'`
(no .symtab, as Debian ships its Go programs: readelf must find none) and
traced with `ftf-bpf -g -- gowl-stripped 1.5` (it spins until it used
1.5 s of CPU and prints its own spin chain, from Go's runtime.Callers).

Every frame of the trace in gowl-stripped must be named as `go tool
addr2line` (Go's debug/gosym, an independent reader of the same table)
names its address: the frame's file offset (its rel_pc) turned into an
address by the program headers (readelf -l), or that address minus one
(a caller's frame is looked up at its return address minus one; the
trace does not say which frames were leaves), or, for an address in no
function (addr2line's "?"), NAME+0xOFFSET. Of the on-CPU samples, at
least 95% must be whole (the outermost user frame runtime.goexit,
runtime.mstart or runtime.rt0_go, no "[unwind stopped: ...]"), as for
the unstripped program (test_runtimes.py go), and at least 80% must hold
the spin chain the program printed.

usage: test_go_stripped.py FTF_BPF FTF_DUMP SRCDIR OUTDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_runtimes import go_whole, holds, need, run_g, show, user_frames  # noqa: E402
from test_stacks import decode_samples, fields, get  # noqa: E402

FREQ = 99
CPU_S = 1.5
NAME = "gowl-stripped"


def build(src, outdir):
    go = need("go", "golang-go")
    exe = os.path.join(outdir, NAME)
    env = dict(os.environ, GOCACHE=os.path.join(outdir, "gocache"), GOPATH=os.path.join(outdir, "gopath"),
               GO111MODULE="off", GOFLAGS="")
    ver = subprocess.run([go, "version"], capture_output=True, text=True).stdout.strip()
    print(f"  {ver}: go build -ldflags='-s -w' -o {exe} {src}")
    subprocess.run([go, "build", "-ldflags=-s -w", "-o", exe, src], env=env, check=True, timeout=600)
    sections = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True, check=True).stdout
    check(".symtab" not in sections and ".gopclntab" in sections, "the program has .gopclntab and no .symtab")
    return go, exe


def frames_in(stream, path):
    """{(name, rel_pc)} of the trace's interned frames in mapping path."""
    out, seqs = set(), {}
    for num, pkt in fields(stream):
        inter = get(pkt, 12)
        if num != 1 or not inter:
            continue
        q = seqs.setdefault(get(pkt, 10), dict(names={}, paths={}, maps={}))
        for n, v in fields(inter):
            if n == 5:
                q["names"][get(v, 1)] = get(v, 2).decode()
            elif n == 17:
                q["paths"][get(v, 1)] = get(v, 2).decode()
            elif n == 19:
                q["maps"][get(v, 1)] = "/".join(q["paths"][p] for n2, p in fields(v) if n2 == 7)
            elif n == 6 and q["maps"].get(get(v, 3)) == path:
                out.add((q["names"].get(get(v, 2, 0), ""), get(v, 4, 0)))
    return out


def addresses(exe, offs):
    """{file offset: address} through the PT_LOAD headers."""
    ph = subprocess.run(["readelf", "-lW", exe], capture_output=True, text=True, check=True).stdout
    loads = [tuple(int(x, 16) for x in m.groups()) for m in
             re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)", ph)]
    return {o: next((va + o - fo for fo, va, sz in loads if fo <= o < fo + sz), None) for o in offs}


def addr2line(go, exe, addrs):
    """{address: function} from `go tool addr2line` (two lines each)."""
    addrs = sorted(addrs)
    inp = "".join(f"{a:#x}\n" for a in addrs)
    out = subprocess.run([go, "tool", "addr2line", exe], input=inp, capture_output=True, text=True,
                         check=True, timeout=300).stdout.splitlines()
    return dict(zip(addrs, out[0::2]))


def main():
    skip_unless_root()
    tool, ftf_dump, srcdir, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    print("stripped Go program")
    go, exe = build(os.path.join(srcdir, "gowl.go"), outdir)
    out = os.path.join(outdir, "go-stripped.fxt")
    p, stream = run_g(tool, ftf_dump, out, [exe, str(CPU_S)], FREQ, "gowl")
    spin = list(reversed(re.search(r"spin chain: (.*)", p.stdout)[1].split()))
    frames = frames_in(stream, exe)
    where = addresses(exe, {pc for _, pc in frames} | {pc - 1 for _, pc in frames})
    names = addr2line(go, exe, {a for a in where.values() if a is not None})
    # (a stale return address past runtime.mcall may point outside every
    # function: then both say so, addr2line "?", the frame NAME+0x...)
    wrong = [(n, pc) for n, pc in frames
             if n not in (names.get(where[pc]), names.get(where[pc - 1])) and
             not (n == f"{NAME}+{pc:#x}" and names.get(where[pc]) == "?")]
    print(f"  {len(frames)} frames in {NAME}, {len(frames) - len(wrong)} named as go tool addr2line names them")
    for n, pc in sorted(wrong)[:8]:
        print(f"    {n} at offset {pc:#x}: addr2line says {names.get(where[pc])} / {names.get(where[pc - 1])}")
    check(len(frames) >= 10, "at least 10 distinct frames in the program")
    check(not wrong, "every frame named as go tool addr2line names it")

    _, samples = decode_samples(stream)
    pid = next((s["pid"] for s in samples if "main.spinOuter" in user_frames(s)), None)
    check(pid is not None, "some sample holds main.spinOuter")
    on = [user_frames(s) for s in samples if s["pid"] == pid and s["kind"] == "on-CPU samples"]
    whole = [f for f in on if go_whole(f)]
    spun = [f for f in on if holds(f, spin)]
    print(f"  on CPU: {len(on)} samples, {len(whole)} whole ({100 * len(whole) / max(len(on), 1):.1f}%), "
          f"{len(spun)} with the spin chain {' -> '.join(spin)}")
    show("not whole", [f for f in on if not go_whole(f)])
    check(len(on) >= 50, "the spinning goroutine was sampled (at least 50 samples)")
    check(len(whole) >= 0.95 * len(on), "at least 95% whole, from runtime.goexit/mstart/rt0_go")
    check(len(spun) >= 0.8 * len(on), "at least 80% hold the chain the program printed")


if __name__ == "__main__":
    run_main(main)
