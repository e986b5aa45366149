#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--events benchmark: block requests (--events=io) against perf record -e
'block:*' and a bpftrace biolatency-style script, and the wakers' stacks
(-g --events=waker) against -g alone, perf record and bpftrace.

usage: sudo bench/events_bench.py [--build build] [--requests 20000]
                                  [--loops 50000] [--runs 3]

I/O: dd writes REQUESTS blocks of 4 KiB with O_DIRECT to a loop device the
script makes (a disk with no file system: one request per block) and
prints its own time. Wakeups: `perf bench sched pipe -l LOOPS` (two tasks
waking each other through a pipe, 2 wakeups a loop) prints its own time.
Configurations interleaved, RUNS rounds; for each the median slowdown
against the untraced run of the same round, the output bytes per event
(per request, or per wakeup) and the events lost.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

DD_RE = re.compile(r"copied, ([\d.]+) s")
PIPE_RE = re.compile(r"Total time: ([\d.]+) \[sec\]")
LOST_RE = re.compile(r"lost: (\d+) events")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd[:3])} failed:\n{p.stderr[-2000:]}")
    return p


def secs(regex, text):
    m = regex.search(text)
    if not m:
        raise RuntimeError("no time in:\n" + text[-2000:])
    return float(m[1])


def lost(stderr):
    m = LOST_RE.search(stderr)
    return int(m[1]) if m else 0


def io_configs(tool, dev, n, tmp):
    """name -> (command, output file or None)"""
    dd = [shutil.which("dd"), "if=/dev/zero", f"of={dev}", "bs=4k", f"count={n}", "oflag=direct"]
    out = os.path.join(tmp, "io.fxt")
    perf = os.path.join(tmp, "io.perf")
    bt = ("tracepoint:block:block_rq_issue { @s[args->dev, args->sector] = nsecs; } "
          "tracepoint:block:block_rq_complete /@s[args->dev, args->sector]/ { "
          "@us = hist((nsecs - @s[args->dev, args->sector]) / 1000); "
          "delete(@s[args->dev, args->sector]); }")
    c = {"untraced": (dd, None),
         "ftf-bpf --events=io --no-sched": ([tool, "--events=io", "--no-sched", "-o", out, "--", *dd], out),
         "ftf-bpf --events=io": ([tool, "--events=io", "-o", out, "--", *dd], out),
         "perf record -e 'block:*'": (["perf", "record", "-q", "-e", "block:*", "-o", perf, "--", *dd], perf)}
    if shutil.which("bpftrace"):
        c["bpftrace biolatency"] = (["bpftrace", "-e", bt, "-c", " ".join(dd)], None)
    return c


def pipe_configs(tool, loops, tmp):
    pb = [shutil.which("perf"), "bench", "sched", "pipe", "-l", str(loops)]
    out = os.path.join(tmp, "wake.fxt")
    perf = os.path.join(tmp, "wake.perf")
    c = {"untraced": (pb, None),
         "ftf-bpf -g": ([tool, "-g", "-o", out, "--", *pb], out),
         "ftf-bpf -g --events=waker": ([tool, "-g", "--events=waker", "-o", out, "--", *pb], out),
         "perf record -e sched:sched_waking -g": (["perf", "record", "-q", "-e", "sched:sched_waking", "-g",
                                                  "-o", perf, "--", *pb], perf)}
    if shutil.which("bpftrace"):
        c["bpftrace waker stacks"] = (["bpftrace", "-e", "tracepoint:sched:sched_waking "
                                       "{ @[kstack, ustack] = count(); }", "-c", " ".join(pb)], None)
    return c


def bench(title, configs, regex, runs, events):
    times = {k: [] for k in configs}
    size, loss = {}, {}
    for _ in range(runs):
        for k, (cmd, out) in configs.items():
            p = run(cmd)
            times[k].append(secs(regex, p.stdout + p.stderr))
            if out:
                size[k] = os.path.getsize(out)
            if k.startswith("ftf-bpf"):
                loss[k] = loss.get(k, 0) + lost(p.stderr)
    base = statistics.median(times["untraced"])
    print(f"{title} ({runs} interleaved runs, medians; untraced {base:.3f} s):")
    for k, v in times.items():
        extra = ""
        if k in size:
            extra += f"  {size[k] / events:.1f} bytes/event"
        if k in loss:
            extra += f"  lost {loss[k]}"
        print(f"  {k:40s} {statistics.median(v):7.3f} s  x{statistics.median(v) / base:.2f} "
              f"(min {min(v):.3f} max {max(v):.3f}){extra}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--loops", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    tool = os.path.join(a.build, "src", "ftf-bpf")
    with tempfile.TemporaryDirectory(dir=a.build) as tmp:
        img = os.path.join(tmp, "disk.img")
        with open(img, "wb") as f:  # allocated: no first-write cost
            os.posix_fallocate(f.fileno(), 0, a.requests * 4096)
        dev = run(["losetup", "--find", "--show", img]).stdout.strip()
        try:
            run(io_configs(tool, dev, a.requests, tmp)["untraced"][0])  # warm-up
            bench(f"{a.requests} O_DIRECT writes of 4 KiB to {dev} (dd)", io_configs(tool, dev, a.requests, tmp),
                  DD_RE, a.runs, a.requests)
        finally:
            subprocess.run(["losetup", "-d", dev])
        bench(f"perf bench sched pipe -l {a.loops} ({2 * a.loops} wakeups)", pipe_configs(tool, a.loops, tmp),
              PIPE_RE, a.runs, 2 * a.loops)


if __name__ == "__main__":
    sys.exit(main())
