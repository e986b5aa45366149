#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Flight-recorder benchmark: -F against normal recording, snapshot time,
memory per second of window.

usage: sudo bench/flight_bench.py [--build build] [--loops 200000] [--runs 5]

1. Overhead: `perf bench sched pipe -l LOOPS` untraced, under `ftf-bpf -a`
   (writing the whole trace) and under `ftf-bpf -F 2s -a` (keeping 2 s),
   interleaved, RUNS times each: median wall time and its ratio to
   untraced, events lost.
2. Snapshot time: while the same workload runs under `-F 2s -a` and `-F
   10s -a` (the window full), SIGUSR1, and the time until ftf-bpf prints
   that the snapshot's file is closed (the child that writes it prints the
   line when done): median over RUNS.
3. Memory: the bytes the window holds (the summary's "MB held") over the
   window's seconds and over the events it holds.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TOTAL_RE = re.compile(r"Total time:\s*([\d.]+)\s*\[sec\]")


def pipe_cmd(loops):
    return ["perf", "bench", "sched", "pipe", "-l", str(loops)]


def run_pipe(loops):
    p = subprocess.run(pipe_cmd(loops), capture_output=True, text=True, check=True)
    return float(TOTAL_RE.search(p.stdout)[1])


def start_tracer(tool, args):
    p = subprocess.Popen([tool, *args], stderr=subprocess.PIPE, text=True)
    while True:
        line = p.stderr.readline()
        if not line:
            raise RuntimeError("ftf-bpf did not start")
        if "Ctrl-C" in line:
            return p


def traced(tool, args, loops):
    p = start_tracer(tool, args)
    t = run_pipe(loops)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=300)[1]
    m = re.search(r"LOST: (\d+)", err)
    return t, int(m[1]) if m else 0, err


def snapshot_time(tool, window, loops, tmp):
    """SIGUSR1 once the window is full; seconds until the snapshot line."""
    out = os.path.join(tmp, f"snap{window}.fxt")
    p = start_tracer(tool, ["-F", f"{window}s", "-a", "-o", out])
    # its own process group: perf bench sched pipe forks a partner that
    # would outlive a kill of the parent alone
    load = subprocess.Popen(pipe_cmd(loops * 100), stdout=subprocess.DEVNULL,
                            start_new_session=True)
    time.sleep(window + 1)
    t0 = time.monotonic()
    p.send_signal(signal.SIGUSR1)
    took = None
    while True:
        line = p.stderr.readline()
        if not line:
            break
        if "snapshot" in line and "SIGUSR1" in line:
            took = time.monotonic() - t0
            break
    os.killpg(load.pid, signal.SIGKILL)
    load.wait()
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=300)[1]
    held = re.search(r"([\d.]+) MB held", err)
    snap = out.replace(".fxt", "-1.fxt")
    return took, float(held[1]) if held else None, os.path.getsize(snap) if os.path.exists(snap) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--loops", type=int, default=200000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    tool = os.path.join(a.build, "src", "ftf-bpf")
    res = {"untraced": [], "ftf-bpf -a": [], "ftf-bpf -F 2s -a": []}
    lost = {k: 0 for k in res}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.runs):
            res["untraced"].append(run_pipe(a.loops))
            t, l, _ = traced(tool, ["-a", "-o", os.path.join(tmp, "full.fxt")], a.loops)
            res["ftf-bpf -a"].append(t)
            lost["ftf-bpf -a"] += l
            t, l, _ = traced(tool, ["-F", "2s", "-a", "-o", os.path.join(tmp, "f.fxt")], a.loops)
            res["ftf-bpf -F 2s -a"].append(t)
            lost["ftf-bpf -F 2s -a"] += l
        base = statistics.median(res["untraced"])
        print(f"perf bench sched pipe -l {a.loops}, {a.runs} interleaved runs, medians:")
        for k, v in res.items():
            m = statistics.median(v)
            print(f"  {k:20s} {m:8.3f} s  {m / base:5.2f}x  (min {min(v):.3f} max {max(v):.3f})  lost {lost[k]}")
        for window in (2, 10):
            took, held = [], []
            size = 0
            for _ in range(max(1, a.runs // 2)):
                t, h, size = snapshot_time(tool, window, a.loops, tmp)
                if t is not None:
                    took.append(t)
                if h is not None:
                    held.append(h)
            if took:
                print(f"  -F {window}s -a, busy: SIGUSR1 to snapshot closed: median {statistics.median(took):.3f} s "
                      f"(min {min(took):.3f} max {max(took):.3f}); snapshot {size / 1e6:.1f} MB; "
                      f"window held {statistics.median(held):.1f} MB = {statistics.median(held) / window:.1f} MB per second")


if __name__ == "__main__":
    sys.exit(main())
