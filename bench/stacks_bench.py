#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stack sampling benchmark: ftf-bpf --stacks against perf record -g
(frame pointers) and perf record --call-graph dwarf (a copy of the
stack's top 8 KiB per sample, unwound afterwards with elfutils).

usage: sudo bench/stacks_bench.py [--build build] [--iters 2000000]
                                  [--freq 999] [--runs 5] [--pipe 100000]
(--iters 0 or --pipe 0 leaves that part out)

The workloads (build/bench/cpu-loop, with frame pointers, and
cpu-loop-nofp, the same built -O2 -fomit-frame-pointer as Debian builds
its packages) spin ITERS x 1000 multiply-adds 16 calls deep and print
their own times. Configurations, interleaved, RUNS rounds, all at the
same sampling frequency, on each workload:

  untraced                       the loop alone (the baseline)
  ftf-bpf -g --no-sched          stack samples only
  ftf-bpf -g                     stack samples and the scheduling
  perf record -g -F FREQ         frame-pointer call chains, perf.data
  perf record --call-graph dwarf the same with copied stacks

"complete" is the share of the loop's samples whose outermost user frame
is in the program's entry function (_start): the stack was unwound from
the sampled instruction all the way out.

For each: the median slowdown against untraced (min..max) of the loop's
own CPU time (CLOCK_PROCESS_CPUTIME_ID: the sampling interrupts are
charged to the task they interrupt, and the wall time swings with the
load of a shared machine), the samples
of the run, the output bytes per sample (whole file / samples), the
samples lost, and for ftf-bpf the BPF run time per on-CPU sample
(kernel.bpf_stats_enabled=1, from its summary) and the bytes of its Perfetto packets per
sample (what the samples themselves cost in the file).

Then the off-CPU side, on `perf bench sched pipe -l PIPE` (two processes
blocking on a pipe in turn, traced as commands; Debian's perf, built
without frame pointers): untraced, ftf-bpf -- (scheduling), ftf-bpf -g --
(with a stack at every block), perf sched record -g (scheduling events
with frame-pointer call chains, of every CPU), perf record -e
sched:sched_switch --call-graph dwarf: the slowdown of its total time,
the stacks recorded, those lost, the file's bytes per context switch
(per sample for perf dwarf) and the complete share as above.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
from test_stacks import fields, get, get_all, read_ftf  # noqa: E402


def entry_offset(path):
    """The file offset of path's entry point (its _start)."""
    out = subprocess.run(["readelf", "-hlW", path], capture_output=True, text=True).stdout
    m = re.search(r"Entry point address:\s+0x([0-9a-f]+)", out)
    if not m:
        return None  # (not an ELF file, or gone since: a build's output)
    entry = int(m[1], 16)
    for m in re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+) 0x[0-9a-f]+ R E", out):
        off, vaddr, size = (int(x, 16) for x in m.groups())
        if vaddr <= entry < vaddr + size:
            return entry - vaddr + off
    return entry


def at_entry(path, rel, entries):
    """rel (a file offset in path) is inside path's _start."""
    if path not in entries:
        entries[path] = entry_offset(path) if os.path.exists(path) else None
    e = entries[path]
    return e is not None and e <= rel < e + 0x40


def ftf_complete(out, comm_pids=None):
    """(samples, complete ones) of an ftf-bpf trace: the outermost user
    frame in its program's _start."""
    _, stream = read_ftf(out)
    paths, maps, frames, stacks, entries, pids = {}, {}, {}, {}, {}, {}
    n = done = 0
    for _, pkt in fields(stream):
        seq, inter = get(pkt, 10), get(pkt, 12)
        if inter:
            for num, v in fields(inter):
                iid = (seq, get(v, 1))
                if num == 17:
                    paths[iid] = get(v, 2).decode()
                elif num == 19:
                    maps[iid] = "/".join(paths[(seq, p)] for p in get_all(v, 7))
                elif num == 6:
                    frames[iid] = (maps[(seq, get(v, 3))], get(v, 4, 0))
                elif num == 7:
                    stacks[iid] = [frames[(seq, x)] for x in get_all(v, 2)]
                elif num == 48:  # task context: pid 2
                    pids[iid] = get(v, 2)
        ss = get(pkt, 135)  # StackSample: task context iid 2, callstack iid 6
        if ss is None or (comm_pids is not None and pids[(seq, get(ss, 2))] not in comm_pids):
            continue
        user = [f for f in stacks[(seq, get(ss, 6))] if f[0] != "[kernel.kallsyms]"]
        n += 1
        done += bool(user) and at_entry(user[0][0], user[0][1], entries)
    return n, done


def perf_complete(pdata, comm):
    """(samples, complete ones) of comm's samples in a perf.data."""
    out = subprocess.run(["perf", "script", "-i", pdata, "-F", "comm,ip,dsoff"], capture_output=True,
                         text=True).stdout
    n = done = 0
    entries = {}
    for block in out.split("\n\n"):
        lines = [ln for ln in block.strip().splitlines() if ln.strip()]
        if not lines or not lines[0].startswith(comm):
            continue
        n += 1
        m = re.search(r"\((/[^)]*)\+0x([0-9a-f]+)\)", lines[-1])
        done += bool(m) and at_entry(m[1], int(m[2], 16), entries)
    return n, done


def loop_ns(out):
    """The loop's own CPU time (its wall time swings with the load of a
    shared machine; the samples' cost is charged to the interrupted
    loop)."""
    m = re.search(r"loop (\d+) ns cpu (\d+) ns", out)
    if not m:
        raise RuntimeError("cpu-loop printed no time:\n" + out)
    return int(m[2])


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{cmd[0]} failed:\n{p.stderr[-2000:]}")
    return p


def ftf(tool, args, out, loop, n, r):
    p = run([tool, "-g", "--freq", str(args.freq), *r["extra"], "-o", out, "--", loop, n])
    m = re.search(r"stacks: (\d+) on-CPU samples \((\d+) lost\).*?([\d.]+) bytes per sample", p.stderr)
    if not m:
        raise RuntimeError("no stacks summary:\n" + p.stderr)
    return p, int(m[1]), int(m[2]), float(m[3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--iters", type=int, default=2000000)
    ap.add_argument("--freq", type=int, default=999)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pipe", type=int, default=100000)
    a = ap.parse_args()
    tool = os.path.join(a.build, "src", "ftf-bpf")
    loop = os.path.join(a.build, "bench", "cpu-loop")
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    if a.iters:
        loop_bench(tool, loop, a)
    if a.pipe:
        pipe_bench(tool, a)


PERF_CONFIGS = {"perf record -g": ["-g"], "perf record dwarf": ["--call-graph", "dwarf"]}


def perf_lost(pdata):
    st = run(["perf", "report", "-i", pdata, "--stats"]).stdout
    return sum(int(m[1]) for m in re.finditer(r"LOST(?:_SAMPLES)? events:\s+(\d+)", st))


def perf_loop_run(a, r, k, loop, n, pdata):
    p = run(["perf", "record", *PERF_CONFIGS[k], "-F", str(a.freq), "-o", pdata, "--", loop, n])
    r["ns"].append(loop_ns(p.stdout))
    m = re.search(r"\((\d+) samples\)", p.stderr)
    samples = int(m[1]) if m else 0
    r["samples"].append(samples)
    r["bytes"].append(os.path.getsize(pdata) / max(samples, 1))
    r["lost"] += perf_lost(pdata)
    got, done = perf_complete(pdata, os.path.basename(loop)[:15])
    r["complete"].append(done / max(got, 1))


def ftf_loop_run(tool, a, r, loop, n, out):
    p, samples, lost, pkt = ftf(tool, a, out, loop, n, r)
    r["ns"].append(loop_ns(p.stdout))
    r["samples"].append(samples)
    r["lost"] += lost
    r["bytes"].append(os.path.getsize(out) / max(samples, 1))
    r["pkt"].append(pkt)
    m = re.search(r"([\d.]+) ns per on-CPU sample", p.stderr)
    if m:
        r["bpf"].append(float(m[1]))
    got, done = ftf_complete(out)
    r["complete"].append(done / max(got, 1))


def loop_bench(tool, loop, a):
    for wl in (loop, loop + "-nofp"):
        loop_bench_one(tool, wl, a)


def loop_bench_one(tool, loop, a):
    n = str(a.iters)
    names = ["untraced", "ftf-bpf -g --no-sched", "ftf-bpf -g", *PERF_CONFIGS]
    res = {k: dict(ns=[], samples=[], lost=0, bytes=[], pkt=[], bpf=[], complete=[],
                   extra=["--no-sched"] if "no-sched" in k else []) for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.fxt")
        pdata = os.path.join(tmp, "perf.data")
        for _ in range(a.runs):
            res["untraced"]["ns"].append(loop_ns(run([loop, n]).stdout))
            for k in ("ftf-bpf -g --no-sched", "ftf-bpf -g"):
                ftf_loop_run(tool, a, res[k], loop, n, out)
            for k in PERF_CONFIGS:
                perf_loop_run(a, res[k], k, loop, n, pdata)
    base = statistics.median(res["untraced"]["ns"])
    print(f"{os.path.basename(loop)} {a.iters} ({base / 1e9:.3f} s of CPU untraced), --freq {a.freq}, "
          f"medians of {a.runs} interleaved runs")
    print(f"{'':24} {'slowdown (min..max)':22} {'samples':>8} {'bytes/sample':>13} "
          f"{'packet B/sample':>16} {'BPF ns/sample':>14} {'lost':>5} {'complete':>9}")
    for k in names:
        print_row(k, res[k], base)
    print()


def med(v, fmt):
    return fmt.format(statistics.median(v)) if v else "-"


def print_row(k, r, base):
    sl = [x / base for x in r["ns"]]
    lost = str(r["lost"]) if k != "untraced" else "-"
    print(f"{k:24} {statistics.median(sl):.3f}x ({min(sl):.3f}..{max(sl):.3f})"
          f"{'':2} {med(r['samples'], '{:.0f}'):>8} {med(r['bytes'], '{:.1f}'):>13} "
          f"{med(r['pkt'], '{:.1f}'):>16} {med(r['bpf'], '{:.0f}'):>14} {lost:>5} "
          f"{med([100 * c for c in r['complete']], '{:.1f}%'):>9}")


def pipe_time(out):
    m = re.search(r"Total time:\s*([\d.]+)\s*\[sec\]", out)
    if not m:
        raise RuntimeError("perf bench printed no time:\n" + out)
    return float(m[1])


def pipe_ftf(tool, bench, out, extra, r):
    p = run([tool, *extra, "-o", out, "--", *bench])
    r["t"].append(pipe_time(p.stdout))
    m = re.search(r"(\d+) context switches", p.stderr)
    cs = int(m[1]) if m else 0
    r["bps"].append(os.path.getsize(out) / max(cs, 1))
    if extra:
        m = re.search(r"(\d+) off-CPU stacks.*?\((\d+) lost\)", p.stderr)
        r["stacks"].append(int(m[1]) if m else 0)
        r["lost"] += int(m[2]) if m else 0
        got, done = ftf_complete(out)
        r["complete"].append(done / max(got, 1))


def pipe_perf(bench, pdata, k, r):
    if k == "perf sched record -g":
        p = run(["perf", "sched", "record", "-g", "-o", pdata, "--", *bench])
    else:
        p = run(["perf", "record", "-e", "sched:sched_switch", "--call-graph", "dwarf", "-o", pdata,
                 "--", *bench])
    r["t"].append(pipe_time(p.stdout))
    st = run(["perf", "report", "-i", pdata, "--stats"]).stdout
    m = re.search(r"sched:sched_switch stats:\s+SAMPLE events:\s+(\d+)", st)
    samples = int(m[1]) if m else 0
    r["stacks"].append(samples)
    r["bps"].append(os.path.getsize(pdata) / max(samples, 1))
    r["lost"] += perf_lost(pdata)
    got, done = perf_complete(pdata, "sched-pipe")
    r["complete"].append(done / max(got, 1))


def pipe_bench(tool, a):
    bench = ["perf", "bench", "sched", "pipe", "-l", str(a.pipe)]
    names = ["untraced", "ftf-bpf --", "ftf-bpf -g --", "perf sched record -g",
             "perf record dwarf (switch)"]
    res = {k: dict(t=[], stacks=[], bps=[], lost=0, complete=[]) for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.fxt")
        pdata = os.path.join(tmp, "perf.data")
        for _ in range(a.runs):
            res["untraced"]["t"].append(pipe_time(run(bench).stdout))
            pipe_ftf(tool, bench, out, [], res["ftf-bpf --"])
            pipe_ftf(tool, bench, out, ["-g"], res["ftf-bpf -g --"])
            for k in names[3:]:
                pipe_perf(bench, pdata, k, res[k])
    base = statistics.median(res["untraced"]["t"])
    print(f"perf bench sched pipe -l {a.pipe} ({base:.3f} s untraced), medians of {a.runs} interleaved runs")
    print(f"{'':27} {'slowdown (min..max)':22} {'stacks':>8} {'lost':>7} {'bytes/switch':>13} "
          f"{'complete':>9}")
    for k in names:
        r = res[k]
        sl = [x / base for x in r["t"]]
        lost = str(r["lost"]) if r["stacks"] else "-"
        print(f"{k:27} {statistics.median(sl):.3f}x ({min(sl):.3f}..{max(sl):.3f})"
              f"{'':2} {med(r['stacks'], '{:.0f}'):>8} {lost:>7} {med(r['bps'], '{:.1f}'):>13} "
              f"{med([100 * c for c in r['complete']], '{:.1f}%'):>9}")


if __name__ == "__main__":
    main()
