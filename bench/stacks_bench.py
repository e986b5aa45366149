#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stack sampling benchmark: ftf-bpf --stacks against perf record -g.

usage: sudo bench/stacks_bench.py [--build build] [--iters 2000000]
                                  [--freq 999] [--runs 5] [--pipe 100000]
(--iters 0 or --pipe 0 leaves that part out)

The workload (build/bench/cpu-loop) spins ITERS x 1000 multiply-adds 16
calls deep and prints its own wall time. Configurations, interleaved,
RUNS rounds, all at the same sampling frequency:

  untraced                       the loop alone (the baseline)
  ftf-bpf -g --no-sched          stack samples only
  ftf-bpf -g                     stack samples and the scheduling
  perf record -g -F FREQ         frame-pointer call chains, perf.data

For each: the median slowdown against untraced (min..max) of the loop's
own CPU time (CLOCK_PROCESS_CPUTIME_ID: the sampling interrupts are
charged to the task they interrupt, and the wall time swings with the
load of a shared machine), the samples
of the run, the output bytes per sample (whole file / samples), the
samples lost, and for ftf-bpf the BPF run time per on-CPU sample
(kernel.bpf_stats_enabled=1, from its summary) and the bytes of its Perfetto packets per
sample (what the samples themselves cost in the file).

Then the off-CPU side, on `perf bench sched pipe -l PIPE` (two processes
blocking on a pipe in turn, traced as commands): untraced, ftf-bpf --
(scheduling), ftf-bpf -g -- (with a stack at every block), perf sched
record -g (scheduling events with call chains, of every CPU): the
slowdown of its total time, the off-CPU stacks and the file's bytes per
context switch it recorded.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile


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


def loop_bench(tool, loop, a):
    n = str(a.iters)
    names = ["untraced", "ftf-bpf -g --no-sched", "ftf-bpf -g", "perf record -g"]
    res = {k: dict(ns=[], samples=[], lost=0, bytes=[], pkt=[], bpf=[],
                   extra=["--no-sched"] if "no-sched" in k else []) for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.fxt")
        pdata = os.path.join(tmp, "perf.data")
        for _ in range(a.runs):
            res["untraced"]["ns"].append(loop_ns(run([loop, n]).stdout))
            for k in ("ftf-bpf -g --no-sched", "ftf-bpf -g"):
                r = res[k]
                p, samples, lost, pkt = ftf(tool, a, out, loop, n, r)
                r["ns"].append(loop_ns(p.stdout))
                r["samples"].append(samples)
                r["lost"] += lost
                r["bytes"].append(os.path.getsize(out) / max(samples, 1))
                r["pkt"].append(pkt)
                m = re.search(r"([\d.]+) ns per on-CPU sample", p.stderr)
                if m:
                    r["bpf"].append(float(m[1]))
            r = res["perf record -g"]
            p = run(["perf", "record", "-g", "-F", str(a.freq), "-o", pdata, "--", loop, n])
            r["ns"].append(loop_ns(p.stdout))
            m = re.search(r"\((\d+) samples\)", p.stderr)
            samples = int(m[1]) if m else 0
            r["samples"].append(samples)
            r["bytes"].append(os.path.getsize(pdata) / max(samples, 1))
            st = run(["perf", "report", "-i", pdata, "--stats"]).stdout
            m = re.search(r"LOST events:\s+(\d+)", st)
            r["lost"] += int(m[1]) if m else 0
    base = statistics.median(res["untraced"]["ns"])
    print(f"cpu-loop {a.iters} ({base / 1e9:.3f} s of CPU untraced), --freq {a.freq}, "
          f"medians of {a.runs} interleaved runs")
    print(f"{'':24} {'slowdown (min..max)':22} {'samples':>8} {'bytes/sample':>13} "
          f"{'packet B/sample':>16} {'BPF ns/sample':>14} {'lost':>5}")
    for k in names:
        r = res[k]
        sl = [x / base for x in r["ns"]]
        pkt = f"{statistics.median(r['pkt']):.1f}" if r["pkt"] else "-"
        bpf = f"{statistics.median(r['bpf']):.0f}" if r["bpf"] else "-"
        smp = f"{statistics.median(r['samples']):.0f}" if r["samples"] else "-"
        byt = f"{statistics.median(r['bytes']):.1f}" if r["bytes"] else "-"
        lost = str(r["lost"]) if k != "untraced" else "-"
        print(f"{k:24} {statistics.median(sl):.3f}x ({min(sl):.3f}..{max(sl):.3f})"
              f"{'':2} {smp:>8} {byt:>13} {pkt:>16} {bpf:>14} {lost:>5}")


def pipe_time(out):
    m = re.search(r"Total time:\s*([\d.]+)\s*\[sec\]", out)
    if not m:
        raise RuntimeError("perf bench printed no time:\n" + out)
    return float(m[1])


def pipe_bench(tool, a):
    bench = ["perf", "bench", "sched", "pipe", "-l", str(a.pipe)]
    names = ["untraced", "ftf-bpf --", "ftf-bpf -g --", "perf sched record -g"]
    res = {k: dict(t=[], stacks=[], bps=[]) for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.fxt")
        pdata = os.path.join(tmp, "perf.data")
        for _ in range(a.runs):
            res["untraced"]["t"].append(pipe_time(run(bench).stdout))
            for k, extra in (("ftf-bpf --", []), ("ftf-bpf -g --", ["-g"])):
                p = run([tool, *extra, "-o", out, "--", *bench])
                res[k]["t"].append(pipe_time(p.stdout))
                m = re.search(r"(\d+) context switches", p.stderr)
                cs = int(m[1]) if m else 0
                m = re.search(r"(\d+) off-CPU stacks", p.stderr)
                res[k]["stacks"].append(int(m[1]) if m else 0)
                res[k]["bps"].append(os.path.getsize(out) / max(cs, 1))
            p = run(["perf", "sched", "record", "-g", "-o", pdata, "--", *bench])
            res["perf sched record -g"]["t"].append(pipe_time(p.stdout))
            st = run(["perf", "report", "-i", pdata, "--stats"]).stdout
            m = re.search(r"sched:sched_switch stats:\s+SAMPLE events:\s+(\d+)", st)
            res["perf sched record -g"]["bps"].append(os.path.getsize(pdata) / max(int(m[1]) if m else 1, 1))
    base = statistics.median(res["untraced"]["t"])
    print(f"\nperf bench sched pipe -l {a.pipe} ({base:.3f} s untraced), medians of {a.runs} interleaved runs")
    print(f"{'':24} {'slowdown (min..max)':22} {'off-CPU stacks':>15} {'bytes/switch':>13}")
    for k in names:
        r = res[k]
        sl = [x / base for x in r["t"]]
        stk = f"{statistics.median(r['stacks']):.0f}" if r["stacks"] else "-"
        bps = f"{statistics.median(r['bps']):.1f}" if r["bps"] else "-"
        print(f"{k:24} {statistics.median(sl):.3f}x ({min(sl):.3f}..{max(sl):.3f})"
              f"{'':2} {stk:>15} {bps:>13}")


if __name__ == "__main__":
    main()
