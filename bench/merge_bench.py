#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ftf-merge throughput against plain copies of the same bytes.

usage: bench/merge_bench.py [--build build] [--trace T.fxt] [--seconds 3] [--runs 3]

Records a busy system-wide trace (ftf-bpf -a for SECONDS beside `perf bench
sched pipe`) unless --trace is given, gzips a copy with ftf-merge itself,
then times, interleaved, RUNS times each (medians, wall clock):

  cat A A > out                 the floor: reading and writing the bytes
  ftf-dump --check A            reading and decoding every record (one input)
  ftf-merge A A -o out.fxt      two inputs, plain
  ftf-merge A A -o out.fxt.gz   two inputs, gzip output
  ftf-merge Z Z -o out.fxt.gz   gzip inputs and output

MB/s is megabytes of (decompressed) input records per second.
"""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t


def record(build, out, seconds):
    tracer = subprocess.Popen([os.path.join(build, "src", "ftf-bpf"), "-a", "-q", "-o", out,
                               "-d", f"{seconds}s"])
    time.sleep(1.0)
    # its own process group: perf bench forks, and both must go
    load = subprocess.Popen(["perf", "bench", "sched", "pipe", "-l", "100000000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    tracer.wait()
    os.killpg(load.pid, signal.SIGKILL)
    load.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--trace")
    ap.add_argument("--seconds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    merge = os.path.join(a.build, "tools", "ftf-merge")
    dump = os.path.join(a.build, "tools", "ftf-dump")
    with tempfile.TemporaryDirectory() as tmp:
        trace = a.trace
        if not trace:
            if os.geteuid() != 0:
                sys.exit("merge_bench.py: recording a trace needs root (or give --trace)")
            trace = os.path.join(tmp, "busy.fxt")
            record(a.build, trace, a.seconds)
        gz = os.path.join(tmp, "busy.fxt.gz")
        subprocess.run([merge, "-q", trace, "-o", gz], check=True)
        size = os.path.getsize(trace)
        out = os.path.join(tmp, "out")
        configs = [
            ("cat A A > out", lambda: timed(["sh", "-c", f'cat "{trace}" "{trace}" > "{out}"']), 2),
            ("ftf-dump --check A", lambda: timed([dump, "--check", trace]), 1),
            ("ftf-merge A A -o .fxt", lambda: timed([merge, "-q", trace, trace, "-o", out + ".fxt"]), 2),
            ("ftf-merge A A -o .fxt.gz", lambda: timed([merge, "-q", trace, trace, "-o", out + ".fxt.gz"]), 2),
            ("ftf-merge Z Z -o .fxt.gz", lambda: timed([merge, "-q", gz, gz, "-o", out + ".fxt.gz"]), 2),
        ]
        times = {name: [] for name, _, _ in configs}
        for _ in range(a.runs):
            for name, fn, _ in configs:
                times[name].append(fn())
        floor = statistics.median(times[configs[0][0]])
        print(f"input: {size / 1e6:.1f} MB of records ({os.path.getsize(gz) / 1e6:.1f} MB gzipped), "
              f"{a.runs} interleaved runs, medians")
        print(f"{'config':28} {'time s':>8} {'MB/s':>8} {'x floor':>8}")
        for name, _, copies in configs:
            t = statistics.median(times[name])
            print(f"{name:28} {t:8.3f} {copies * size / 1e6 / t:8.1f} {t / floor:8.2f}")


if __name__ == "__main__":
    main()
