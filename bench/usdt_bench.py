#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""USDT benchmark: ftf-bpf against a do-nothing BPF floor and bpftrace.

usage: sudo bench/usdt_bench.py [--build build] [--hits 1000000] [--runs 5]

The workload (build/bench/usdt-loop) hits the probe bench:hit(i, 2i), two
int64 arguments, HITS times and prints the loop's wall time. Each
configuration attaches to that probe, then the workload runs:

  untraced   no probe attached (the probe site is a nop: the baseline)
  floor      bpftrace with an empty program (BPF that does nothing)
  floor+clock  the same reading the clock once (nsecs): an instant's timestamp
  ftf-bpf    ftf-bpf -a --no-sched -u usdt:BIN:bench:hit, default settings
             (an instant with arg0, arg1 per hit in a trace file)
  bpftrace   printf of nsecs, arg0 and arg1 per hit, to a file

Configurations are interleaved, RUNS rounds. For each it prints the median
end-to-end cost per hit ((time - untraced time) / HITS) with the spread
(min..max), the BPF program's own run time per hit from the kernel's BPF
statistics (kernel.bpf_stats_enabled=1), the bytes written per hit and the
hits recorded and lost.
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

LOOP_RE = re.compile(r"(\d+) hits (\d+) ns")


def run_loop(binary, hits):
    p = subprocess.run([binary, str(hits)], capture_output=True, text=True, check=True)
    return int(LOOP_RE.search(p.stdout)[2])


def wait_file(path, marker, proc, timeout=60):
    """bpftrace -o FILE says "Attaching" in the file."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(path) and marker in open(path).read(4096):
            return
        time.sleep(0.05)
    raise RuntimeError("bpftrace did not start")


def bpf_cost(before, hits):
    """Run time per hit of the BPF programs loaded since `before` that ran
    exactly `hits` times (the probe's)."""
    new = [p for i, p in prog_ids().items() if i not in before and p.get("run_cnt", 0) == hits]
    return sum(p.get("run_time_ns", 0) for p in new) / hits, len(new)


def bg_tracer(cmd, marker, a, stream):
    before = prog_ids()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if stream.startswith("file:"):
            wait_file(stream[5:], marker, p)
        else:
            wait_line(p.stdout if stream == "stdout" else p.stderr, marker)
        time.sleep(0.5)
        t = run_loop(a.loop, a.hits)
        cost, nprogs = bpf_cost(before, a.hits)
    finally:
        p.send_signal(2)
        try:
            out, err = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
    return {"time": t, "bpf": cost, "progs": nprogs, "out": out, "err": err}


def cfg_untraced(a):
    return {"time": run_loop(a.loop, a.hits)}


def cfg_floor(a):
    return bg_tracer(["bpftrace", "-e", f"usdt:{a.loop}:bench:hit {{}}"], "Attaching", a, "stdout")


def cfg_floor_clock(a):
    """The floor reading the clock once: an instant's timestamp here."""
    prog = f"usdt:{a.loop}:bench:hit {{ $t = nsecs; }}"
    return bg_tracer(["bpftrace", "-e", prog], "Attaching", a, "stdout")


def cfg_bpftrace(a):
    out = os.path.join(a.tmp, "bt.txt")
    if os.path.exists(out):
        os.unlink(out)
    prog = f'usdt:{a.loop}:bench:hit {{ printf("%llu %lld %lld\\n", nsecs, arg0, arg1); }}'
    r = bg_tracer(["bpftrace", "-o", out, "-e", prog], "Attaching", a, "file:" + out)
    with open(out) as f:
        text = f.read()
    r["recorded"] = sum(1 for line in text.splitlines() if re.match(r"^\d+ \d+ \d+$", line))
    lost = re.findall(r"Lost (\d+) events", text + r["err"])
    r["lost"] = sum(int(x) for x in lost)
    r["bytes"] = os.path.getsize(out)
    return r


def cfg_ftf(a):
    out = os.path.join(a.tmp, "usdt.fxt")
    for f in (out, out + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    r = bg_tracer([a.ftf, "-a", "--no-sched", "-u", f"usdt:{a.loop}:bench:hit", "-o", out],
                  "Ctrl-C", a, "stderr")
    summ = subprocess.run([a.dump, "--summary", out], capture_output=True, text=True).stdout
    m = re.search(r"instant: (\d+)", summ)
    lost = re.search(r"LOST: (\d+)", r["err"])
    r["recorded"] = int(m[1]) if m else 0
    r["lost"] = int(lost[1]) if lost else 0
    r["bytes"] = os.path.getsize(out)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--hits", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    tracer_paths(a, "usdt_bench.py", "BPF, uprobes", "usdt-loop")
    old_stats = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    configs = [("untraced", cfg_untraced), ("ftf-bpf", cfg_ftf)]
    notes = []
    if shutil.which("bpftrace"):
        configs += [("floor", cfg_floor), ("floor+clock", cfg_floor_clock), ("bpftrace", cfg_bpftrace)]
    else:
        notes.append("bpftrace not installed (apt-get install bpftrace): floor and bpftrace skipped")
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
    base = statistics.median(x["time"] for x in results["untraced"])
    print(f"workload: {a.hits} hits of a USDT probe with 2 int64 arguments, {a.runs} interleaved rounds; "
          f"untraced loop {base / a.hits:.2f} ns/hit")
    print(f"{'config':10} {'end-to-end ns/hit (min..max)':>31} {'BPF ns/hit':>11}  notes")
    for name, _ in configs:
        rs = results[name]
        if name == "untraced":
            continue
        if not rs:
            print(f"{name:10} did not run: {errors.get(name, '?')}")
            continue
        per = [(x["time"] - base) / a.hits for x in rs]
        line = (f"{name:10} {statistics.median(per):14.0f} ({min(per):7.0f} ..{max(per):7.0f})"
                f" {statistics.median(x['bpf'] for x in rs):11.0f}")
        if "recorded" in rs[0]:
            line += (f"  recorded {min(x['recorded'] for x in rs)}..{max(x['recorded'] for x in rs)}"
                     f" of {a.hits}, lost up to {max(x['lost'] for x in rs)},"
                     f" {statistics.median(x['bytes'] for x in rs) / a.hits:.1f} bytes/hit")
        print(line)
    bpf = {n: statistics.median(x["bpf"] for x in rs) for n, rs in results.items() if rs and "bpf" in rs[0]}
    for floor in ("floor", "floor+clock"):
        if floor in bpf and "ftf-bpf" in bpf:
            print(f"ftf-bpf's BPF over {floor}: {bpf['ftf-bpf'] - bpf[floor]:+.0f} ns per hit")
    for n in notes:
        print("note:", n)
    for n, e in errors.items():
        print(f"note: {n}: {e}")


if __name__ == "__main__":
    main()
