#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""System call benchmark: ftf-bpf --syscalls against a do-nothing BPF
floor, perf trace and bpftrace.

usage: sudo bench/syscall_bench.py [--build build] [--calls 1000000] [--runs 5]

The workload (build/bench/getppid-loop) makes CALLS getppid() system calls
in a tight loop and prints the loop's own time. Configurations,
interleaved, RUNS rounds:

  untraced                the loop alone (the baseline)
  floor                   bpftrace with empty raw_syscalls programs
                          (tracepoint:raw_syscalls:sys_enter {} and
                          sys_exit {}): BPF that does nothing, on the same
                          two tracepoints (bpftrace 0.17's rawtracepoint
                          probes do not attach; a classic tracepoint
                          program's run time, like a tp_btf one's, is the
                          program alone)
  floor+clock             the same, each program reading the clock once
                          (nsecs): what a slice's two timestamps cost here
  ftf-bpf --syscalls      every system call of the loop, as slices (-p PID)
  ftf-bpf --syscalls=read the getppid calls are not in the list
  perf trace              perf trace -o FILE (its default event set)
  bpftrace                a timestamp per call: raw_syscalls sys_enter and
                          sys_exit, @s[tid] = nsecs / sum(nsecs - @s[tid])

For the floor and ftf-bpf the tracer attaches to the waiting loop
(getppid-loop --wait), and the BPF statistics (kernel.bpf_stats_enabled=1)
are read just before and just after the loop, while it is still loaded:
BPF ns per call = the programs' added run time / CALLS. The programs run
for every system call of the machine (they return at once for other
processes), so other work on the machine adds a little to both alike.

For each: the median added cost per call ((time - untraced) / CALLS) with
min..max, BPF ns per call, output bytes per call, the events lost and the
getppid calls in the trace (min..max over the runs).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import prog_ids, tracer_paths, wait_line  # noqa: E402

LOOP_RE = re.compile(r"(\d+) calls (\d+) ns")
FTF_PROGS = {"ftfb_sys_enter", "ftfb_sys_exit"}


def loop_ns(out):
    m = LOOP_RE.search(out)
    if not m:
        raise RuntimeError("getppid-loop printed no time:\n" + out)
    return int(m[2])


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{cmd[0]} failed:\n{p.stderr[-2000:]}")
    return p


def run_time(before, names):
    """Summed run_time_ns of the programs loaded since `before` (ids), by
    name (None: any name)."""
    return sum(p.get("run_time_ns", 0) for i, p in prog_ids().items()
               if i not in before and (names is None or p.get("name") in names))


def attached_run(a, tracer_cmd, marker, names):
    """The loop under a tracer attached to it while it waits: its time, the
    BPF run time its calls added, the tracer's stderr."""
    loop = subprocess.Popen([a.loop, str(a.calls), "--wait"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    before = prog_ids()
    tracer = subprocess.Popen([c.replace("PID", str(loop.pid)) for c in tracer_cmd],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_line(tracer.stdout if marker == "Attaching" else tracer.stderr, marker)
        time.sleep(0.3)
        t0 = run_time(before, names)
        loop.stdin.write("go\n")
        loop.stdin.flush()
        t = loop_ns(loop.stdout.readline())
        bpf = run_time(before, names) - t0
        loop.stdin.write("end\n")
        loop.stdin.flush()
        loop.wait(timeout=60)
    finally:
        if loop.poll() is None:
            loop.kill()
        if tracer.poll() is None:
            tracer.send_signal(2)
        _, err = tracer.communicate(timeout=120)
    return t, bpf / a.calls, err


def cfg_floor(a, r, clock=False):
    """Empty raw_syscalls programs; with clock, each reads the clock once
    (what the two timestamps of a system call's slice cost here)."""
    body = "{ $t = nsecs; }" if clock else "{}"
    prog = f"tracepoint:raw_syscalls:sys_enter {body} tracepoint:raw_syscalls:sys_exit {body}"
    t, bpf, _ = attached_run(a, ["bpftrace", "-e", prog], "Attaching", None)
    r["time"].append(t)
    r["bpf"].append(bpf)


def cfg_ftf(a, r, which):
    t, bpf, err = attached_run(a, [a.ftf, which, "--no-sched", "-o", a.out, "-p", "PID"],
                               "Ctrl-C", FTF_PROGS)
    r["time"].append(t)
    r["bpf"].append(bpf)
    r["size"] = os.path.getsize(a.out)
    m = re.search(r"LOST: (\d+)", err)
    r["lost"] = r.get("lost", 0) + (int(m[1]) if m else 0)
    # the summary's count of getppid slices: every call of the loop, or
    # none with --syscalls=read
    m = re.search(r"^\s*(\d+) calls .* getppid$", err, re.M)
    r.setdefault("recorded", []).append(int(m[1]) if m else 0)


def cfg_perf(a, r):
    pt = os.path.join(a.tmp, "perf.trace")
    r["time"].append(loop_ns(run(["perf", "trace", "-o", pt, "--", a.loop, str(a.calls)]).stdout))
    r["size"] = os.path.getsize(pt)


def cfg_bpftrace(a, r):
    prog = ("tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @s[tid] = nsecs; } "
            "tracepoint:raw_syscalls:sys_exit /pid == cpid && @s[tid]/ { @d = sum(nsecs - @s[tid]); }")
    r["time"].append(loop_ns(run(["bpftrace", "-e", prog, "-c", f"{a.loop} {a.calls}"]).stdout))


def configs(a):
    cf = [("untraced", lambda r: r["time"].append(loop_ns(run([a.loop, str(a.calls)]).stdout)))]
    if shutil.which("bpftrace"):
        cf.append(("floor (empty BPF)", lambda r: cfg_floor(a, r)))
        cf.append(("floor+clock (2 reads)", lambda r: cfg_floor(a, r, clock=True)))
    cf += [("ftf-bpf --syscalls", lambda r: cfg_ftf(a, r, "--syscalls")),
           ("ftf-bpf --syscalls=read", lambda r: cfg_ftf(a, r, "--syscalls=read")),
           ("perf trace", lambda r: cfg_perf(a, r))]
    if shutil.which("bpftrace"):
        cf.append(("bpftrace", lambda r: cfg_bpftrace(a, r)))
    return cf


def report(a, res):
    base = statistics.median(res["untraced"]["time"])
    print(f"{a.calls} getppid() calls, {a.runs} interleaved runs, medians "
          f"(untraced loop: {base / a.calls:.0f} ns per call):")
    for k, r in res.items():
        if k == "untraced":
            continue
        if not r["time"]:
            print(f"  {k:26s} did not run: {r.get('error', '?')}")
            continue
        added = [(x - base) / a.calls for x in r["time"]]
        extra = ""
        if "size" in r:
            extra += f"  {r['size'] / a.calls:.1f} bytes/call"
        if "lost" in r:
            extra += f"  lost {r['lost']}"
        if "recorded" in r:
            extra += f"  getppid recorded {min(r['recorded'])}..{max(r['recorded'])}"
        if r["bpf"]:
            extra += f"  BPF {statistics.median(r['bpf']):.0f} ns/call"
        print(f"  {k:26s} +{statistics.median(added):6.0f} ns/call "
              f"(min {min(added):.0f} max {max(added):.0f}){extra}")
    bpf = {k: statistics.median(r["bpf"]) for k, r in res.items() if r["bpf"]}
    for floor in ("floor (empty BPF)", "floor+clock (2 reads)"):
        if floor in bpf and "ftf-bpf --syscalls" in bpf:
            print(f"ftf-bpf --syscalls' BPF over {floor}: {bpf['ftf-bpf --syscalls'] - bpf[floor]:+.0f} ns per call")
    if not shutil.which("bpftrace"):
        print("note: bpftrace not installed (apt-get install bpftrace): floor and bpftrace skipped")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    tracer_paths(a, "syscall_bench.py", "BPF", "getppid-loop")
    old_stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    cf = configs(a)
    res = {k: {"time": [], "bpf": []} for k, _ in cf}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            a.tmp = tmp
            a.out = os.path.join(tmp, "t.fxt")
            for _ in range(a.runs):
                for k, fn in cf:
                    if "error" in res[k]:
                        continue
                    try:
                        fn(res[k])
                    except (RuntimeError, subprocess.SubprocessError, OSError) as e:
                        res[k]["error"] = str(e)[-300:]
    finally:
        subprocess.run(["sysctl", "-q", f"kernel.bpf_stats_enabled={old_stats}"])
    report(a, res)


if __name__ == "__main__":
    sys.exit(main())
