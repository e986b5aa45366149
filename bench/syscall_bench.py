#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""System call benchmark: ftf-bpf --syscalls against perf trace and bpftrace.

usage: sudo bench/syscall_bench.py [--build build] [--calls 1000000] [--runs 5]

The workload (build/bench/getppid-loop) makes CALLS getppid() system calls
in a tight loop and prints the loop's own time. Configurations,
interleaved, RUNS rounds:

  untraced                the loop alone (the baseline)
  ftf-bpf --syscalls      every system call of the command, as slices
  ftf-bpf --syscalls=read the getppid calls are not in the list
  perf trace              perf trace -o FILE (its default event set)
  bpftrace                a timestamp per call: raw_syscalls sys_enter and
                          sys_exit, @s[tid] = nsecs / sum(nsecs - @s[tid])

For each: the median added cost per call ((time - untraced) / CALLS) with
min..max, the BPF programs' run time per call (kernel.bpf_stats_enabled=1)
for ftf-bpf, the output bytes per call and the events lost.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

LOOP_RE = re.compile(r"(\d+) calls (\d+) ns")


def loop_ns(out):
    m = LOOP_RE.search(out)
    if not m:
        raise RuntimeError("getppid-loop printed no time:\n" + out)
    return int(m[2])


def bpf_runtime(names):
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True).stdout
    return sum(p.get("run_time_ns", 0) for p in json.loads(out or "[]") if p.get("name") in names)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{cmd[0]} failed:\n{p.stderr[-2000:]}")
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    tool = os.path.join(a.build, "src", "ftf-bpf")
    loop = os.path.join(a.build, "bench", "getppid-loop")
    n = str(a.calls)
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    have_bpftrace = shutil.which("bpftrace")
    res = {k: [] for k in ("untraced", "ftf-bpf --syscalls", "ftf-bpf --syscalls=read", "perf trace", "bpftrace")}
    bpf_ns, size, lost = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.fxt")
        for _ in range(a.runs):
            res["untraced"].append(loop_ns(run([loop, n]).stdout))
            before = bpf_runtime({"ftfb_sys_enter", "ftfb_sys_exit"})
            p = run([tool, "--syscalls", "--no-sched", "-o", out, "--", loop, n])
            res["ftf-bpf --syscalls"].append(loop_ns(p.stdout))
            bpf_ns.append((bpf_runtime({"ftfb_sys_enter", "ftfb_sys_exit"}) - before) / a.calls)
            size["ftf-bpf --syscalls"] = os.path.getsize(out)
            m = re.search(r"LOST: (\d+)", p.stderr)
            lost["ftf-bpf --syscalls"] = lost.get("ftf-bpf --syscalls", 0) + (int(m[1]) if m else 0)
            p = run([tool, "--syscalls=read", "--no-sched", "-o", out, "--", loop, n])
            res["ftf-bpf --syscalls=read"].append(loop_ns(p.stdout))
            size["ftf-bpf --syscalls=read"] = os.path.getsize(out)
            pt = os.path.join(tmp, "perf.trace")
            p = run(["perf", "trace", "-o", pt, "--", loop, n])
            res["perf trace"].append(loop_ns(p.stdout))
            size["perf trace"] = os.path.getsize(pt)
            if have_bpftrace:
                prog = ("tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @s[tid] = nsecs; } "
                        "tracepoint:raw_syscalls:sys_exit /pid == cpid && @s[tid]/ { @d = sum(nsecs - @s[tid]); }")
                p = run(["bpftrace", "-e", prog, "-c", f"{loop} {n}"])
                res["bpftrace"].append(loop_ns(p.stdout))
    base = statistics.median(res["untraced"])
    print(f"{a.calls} getppid() calls, {a.runs} interleaved runs, medians "
          f"(untraced loop: {base / a.calls:.0f} ns per call):")
    for k, v in res.items():
        if not v:
            print(f"  {k:26s} not run (not installed)")
            continue
        added = [(x - base) / a.calls for x in v]
        extra = ""
        if k in size:
            extra += f"  {size[k] / a.calls:.1f} bytes/call"
        if k in lost:
            extra += f"  lost {lost[k]}"
        if k == "ftf-bpf --syscalls":
            extra += f"  BPF {statistics.median(bpf_ns):.0f} ns/call"
        print(f"  {k:26s} +{statistics.median(added):6.0f} ns/call (min {min(added):.0f} max {max(added):.0f}){extra}")


if __name__ == "__main__":
    sys.exit(main())
