#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Uprobe benchmark: ftf-bpf against a do-nothing BPF floor, bpftrace and perf.

usage: sudo bench/uprobe_bench.py [--build build] [--calls 1000000] [--runs 5]

The workload (build/bench/uprobe-loop) calls an empty noinline function
CALLS times and prints the loop's wall time. Each configuration attaches an
entry and a return probe to that function, then the workload runs:

  untraced   no probe (the baseline)
  floor      bpftrace with empty uprobe + uretprobe programs (BPF that does nothing)
  floor+clock  the same, each program reading the clock once (nsecs): what the
             two timestamps of a slice cost on this machine's clocksource
  ftf-bpf    ftf-bpf -a --no-sched -u BIN:empty_fn (slices into a trace file)
  bpftrace   @s[tid] = nsecs on entry, @d = sum(nsecs - @s[tid]) on return
  perf       perf probe (entry and %return) + perf record

Configurations are interleaved, RUNS rounds. For each it prints the median
end-to-end cost per call ((time - untraced time) / CALLS) with the spread
(min..max) of the runs, and, for BPF ones, the BPF programs' own run time per
call from the kernel's BPF statistics (kernel.bpf_stats_enabled=1:
sum of run_time_ns of the entry and return programs / CALLS), and whether
every call was recorded.
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


def run_loop(binary, calls):
    p = subprocess.run([binary, str(calls)], capture_output=True, text=True, check=True)
    m = LOOP_RE.search(p.stdout)
    return int(m[2])


def bpf_cost(before, calls):
    """Run time per call of the BPF programs loaded since `before`."""
    now = prog_ids()
    # Only the probes on empty_fn run exactly `calls` times (other BPF
    # programs may come and go on the machine meanwhile).
    new = [p for i, p in now.items() if i not in before and p.get("run_cnt", 0) == calls]
    total = sum(p.get("run_time_ns", 0) for p in new)
    counts = sorted(p.get("run_cnt", 0) for p in new)
    return total / calls, counts


def bg_tracer(cmd, marker, binary, calls, stream="stdout"):
    before = prog_ids()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_line(p.stdout if stream == "stdout" else p.stderr, marker)
        time.sleep(0.5)
        t = run_loop(binary, calls)
        cost, counts = bpf_cost(before, calls)
    finally:
        p.send_signal(2)
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
    return {"time": t, "bpf": cost, "counts": counts, "out": out, "err": err}


def cfg_untraced(a):
    return {"time": run_loop(a.loop, a.calls)}


def cfg_floor(a):
    prog = f"uprobe:{a.loop}:empty_fn {{}} uretprobe:{a.loop}:empty_fn {{}}"
    return bg_tracer(["bpftrace", "-e", prog], "Attaching", a.loop, a.calls)


def cfg_floor_clock(a):
    prog = f"uprobe:{a.loop}:empty_fn {{ $t = nsecs; }} uretprobe:{a.loop}:empty_fn {{ $t = nsecs; }}"
    return bg_tracer(["bpftrace", "-e", prog], "Attaching", a.loop, a.calls)


def cfg_bpftrace(a):
    prog = (f"uprobe:{a.loop}:empty_fn {{ @s[tid] = nsecs; }} "
            f"uretprobe:{a.loop}:empty_fn {{ @d = sum(nsecs - @s[tid]); }}")
    return bg_tracer(["bpftrace", "-e", prog], "Attaching", a.loop, a.calls)


def cfg_ftf(a):
    out = os.path.join(a.tmp, "ub.fxt")
    for f in (out, out + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    r = bg_tracer([a.ftf, "-a", "--no-sched", "-u", f"{a.loop}:empty_fn", "-o", out],
                  "Ctrl-C", a.loop, a.calls, stream="stderr")
    summ = subprocess.run([a.dump, "--summary", out], capture_output=True, text=True).stdout
    begins = re.search(r"duration begin: (\d+)", summ)
    ends = re.search(r"duration end: (\d+)", summ)
    lost = re.search(r"LOST: (\d+)", r["err"])
    r["recorded"] = (int(begins[1]) if begins else 0, int(ends[1]) if ends else 0)
    r["lost"] = int(lost[1]) if lost else 0
    r["bytes"] = os.path.getsize(out)
    return r


def cfg_perf(a):
    data = os.path.join(a.tmp, "perf.data")
    p = subprocess.run(["perf", "record", "-q", "-o", data, "-e", f"{a.perf_group}:entry",
                        "-e", f"{a.perf_group}:ret__return", "--", a.loop, str(a.calls)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("perf record failed: " + p.stderr.strip()[-200:])
    m = LOOP_RE.search(p.stdout)
    return {"time": int(m[2]), "bytes": os.path.getsize(data)}


def perf_setup(a):
    subprocess.run(["perf", "probe", "-q", "-d", f"{a.perf_group}:*"], capture_output=True)
    for spec in (f"{a.perf_group}:entry=empty_fn", f"{a.perf_group}:ret=empty_fn%return"):
        p = subprocess.run(["perf", "probe", "-q", "-x", a.loop, spec], capture_output=True, text=True)
        if p.returncode != 0:
            return "perf probe failed: " + p.stderr.strip()[-200:]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--calls", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    tracer_paths(a, "uprobe_bench.py", "BPF, uprobes", "uprobe-loop")
    if not os.path.ismount("/sys/kernel/tracing"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"])
    a.perf_group = "ftfbench"
    old_stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    configs = [("untraced", cfg_untraced), ("floor", cfg_floor), ("floor+clock", cfg_floor_clock),
               ("ftf-bpf", cfg_ftf)]
    notes = []
    if shutil.which("bpftrace"):
        configs.append(("bpftrace", cfg_bpftrace))
    else:
        notes.append("bpftrace not installed (apt-get install bpftrace): floor and bpftrace skipped")
        configs = [c for c in configs if not c[0].startswith("floor")]
    perr = perf_setup(a)
    if perr:
        notes.append(perr)
    else:
        configs.append(("perf", cfg_perf))
    results = {n: [] for n, _ in configs}
    errors = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            a.tmp = tmp
            for r in range(a.runs):
                for name, fn in configs:
                    if name in errors:
                        continue
                    try:
                        results[name].append(fn(a))
                    except (RuntimeError, subprocess.CalledProcessError) as e:
                        errors[name] = str(e)
                print(f"round {r + 1}/{a.runs} done", file=sys.stderr)
    finally:
        subprocess.run(["sysctl", "-q", f"kernel.bpf_stats_enabled={old_stats}"])
        if not perr:
            subprocess.run(["perf", "probe", "-q", "-d", f"{a.perf_group}:*"], capture_output=True)
    base = statistics.median(x["time"] for x in results["untraced"])
    print(f"workload: {a.calls} calls of an empty function, {a.runs} interleaved rounds; "
          f"untraced loop {base / a.calls:.1f} ns/call")
    print(f"{'config':10} {'end-to-end ns/call (min..max)':>32} {'BPF ns/call':>12}  notes")
    for name, _ in configs:
        rs = results[name]
        if not rs:
            print(f"{name:10} did not run: {errors.get(name, '?')}")
            continue
        if name == "untraced":
            continue
        per = [(x["time"] - base) / a.calls for x in rs]
        line = f"{name:10} {statistics.median(per):14.0f} ({min(per):7.0f} ..{max(per):7.0f})"
        if "bpf" in rs[0]:
            line += f" {statistics.median(x['bpf'] for x in rs):12.0f}"
        else:
            line += f" {'-':>12}"
        if name == "ftf-bpf":
            rec = rs[-1]["recorded"]
            line += (f"  recorded {rec[0]} begins / {rec[1]} ends of {a.calls} calls, lost "
                     f"{max(x['lost'] for x in rs)}, {statistics.median(x['bytes'] for x in rs) / a.calls:.1f} bytes/call")
        elif "counts" in rs[0]:
            line += f"  run counts {rs[-1]['counts']}"
        if name == "perf":
            line += f"  {statistics.median(x['bytes'] for x in rs) / a.calls:.1f} bytes/call"
        print(line)
    bpf = {n: statistics.median(x["bpf"] for x in rs) for n, rs in results.items() if rs and "bpf" in rs[0]}
    for floor in ("floor", "floor+clock"):
        if floor in bpf and "ftf-bpf" in bpf:
            print(f"ftf-bpf's BPF over {floor}: {bpf['ftf-bpf'] - bpf[floor]:+.0f} ns per call")
    for n in notes:
        print("note:", n)
    for n, e in errors.items():
        print(f"note: {n}: {e}")


if __name__ == "__main__":
    main()
