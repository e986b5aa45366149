#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python frames in stack samples (-g on CPython): what they cost.

usage: sudo bench/pystacks_bench.py [--build build] [--python PATH]
                                    [--iters 30000] [--runs 5] [--freqs 99,999]

The workload (bench/py_loop.py) runs a pure-Python loop 12 calls deep
and prints its own CPU time (time.process_time: the sampling interrupts
are charged to the task they interrupt; the wall time swings with the
load of a shared machine). The interpreter: --python, by default pyenv's
3.12 when present (so that perf can name Python frames with -X perf),
else Debian's python3.11. Configurations, interleaved, RUNS rounds, at
each frequency:

  untraced                              the loop alone (the baseline)
  ftf-bpf -g --no-python-stacks         native stacks only
  ftf-bpf -g                            with the Python frames
  perf record -g (python -X perf)       3.12+: perf's own Python frames
                                        (trampolines, /tmp/perf-PID.map)

All ftf-bpf runs use --no-sched (the samples alone). For each: the
median slowdown against untraced (min..max), the samples, the output
bytes per sample (whole file / samples), for ftf-bpf the Perfetto packet
bytes per sample and the BPF run time per on-CPU sample
(kernel.bpf_stats_enabled=1, from its summary), and the samples that
carry Python frames.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_ns(out):
    m = re.search(r"loop \d+ cpu (\d+) ns", out)
    if not m:
        raise RuntimeError("py_loop printed no time:\n" + out)
    return int(m[1])


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{cmd[0]} failed:\n{p.stderr[-2000:]}")
    return p


def default_python():
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(glob.glob(f"{root}/versions/3.12.*/bin/python3.12"))
    return found[-1] if found else "/usr/bin/python3.11"


def ftf_row(r, p, out):
    m = re.search(r"stacks: (\d+) on-CPU samples \((\d+) lost\).*?([\d.]+) bytes per sample", p.stderr)
    if not m:
        raise RuntimeError("no stacks summary:\n" + p.stderr)
    samples = int(m[1])
    r["samples"].append(samples)
    r["lost"] += int(m[2])
    r["pkt"].append(float(m[3]))
    r["bytes"].append(os.path.getsize(out) / max(samples, 1))
    m = re.search(r"([\d.]+) ns per on-CPU sample", p.stderr)
    if m:
        r["bpf"].append(float(m[1]))
    m = re.search(r"(\d+) samples with Python frames", p.stderr)
    r["py"].append(int(m[1]) if m else 0)


def perf_row(r, pdata):
    st = run(["perf", "report", "-i", pdata, "--stats"]).stdout
    m = re.search(r"SAMPLE events:\s+(\d+)", st)
    samples = int(m[1]) if m else 0
    r["samples"].append(samples)
    r["bytes"].append(os.path.getsize(pdata) / max(samples, 1))
    m = re.search(r"LOST events:\s+(\d+)", st)
    r["lost"] += int(m[1]) if m else 0


def one_freq(tool, py, a, freq, with_perf):
    loop = [py, os.path.join(HERE, "py_loop.py"), str(a.iters)]
    names = ["untraced", "ftf-bpf -g --no-python-stacks", "ftf-bpf -g"]
    if with_perf:
        names.append("perf record -g (-X perf)")
    res = {k: dict(ns=[], samples=[], lost=0, bytes=[], pkt=[], bpf=[], py=[]) for k in names}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.fxt")
        pdata = os.path.join(tmp, "perf.data")
        for _ in range(a.runs):
            res["untraced"]["ns"].append(cpu_ns(run(loop).stdout))
            for k, extra in (("ftf-bpf -g --no-python-stacks", ["--no-python-stacks"]),
                             ("ftf-bpf -g", [])):
                p = run([tool, "-g", "--no-sched", "--freq", str(freq), *extra, "-o", out, "--", *loop])
                res[k]["ns"].append(cpu_ns(p.stdout))
                ftf_row(res[k], p, out)
            if with_perf:
                k = "perf record -g (-X perf)"
                p = run(["perf", "record", "-g", "-F", str(freq), "-o", pdata, "--",
                         py, "-X", "perf", *loop[1:]])
                res[k]["ns"].append(cpu_ns(p.stdout))
                perf_row(res[k], pdata)
    base = statistics.median(res["untraced"]["ns"])
    print(f"\n{os.path.basename(py)} py_loop.py {a.iters} ({base / 1e9:.3f} s of CPU untraced), "
          f"--freq {freq}, medians of {a.runs} interleaved runs")
    print(f"{'':32} {'slowdown (min..max)':22} {'samples':>8} {'bytes/sample':>13} "
          f"{'packet B/sample':>16} {'BPF ns/sample':>14} {'with Python':>12} {'lost':>5}")
    for k in names:
        r = res[k]
        sl = [x / base for x in r["ns"]]

        def med(v, f="{:.1f}"):
            return f.format(statistics.median(v)) if v else "-"
        print(f"{k:32} {statistics.median(sl):.3f}x ({min(sl):.3f}..{max(sl):.3f})"
              f"{'':2} {med(r['samples'], '{:.0f}'):>8} {med(r['bytes']):>13} {med(r['pkt']):>16} "
              f"{med(r['bpf'], '{:.0f}'):>14} {med(r['py'], '{:.0f}'):>12} "
              f"{(str(r['lost']) if k != 'untraced' else '-'):>5}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", default=default_python())
    ap.add_argument("--iters", type=int, default=30000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--freqs", default="99,999")
    a = ap.parse_args()
    tool = os.path.join(a.build, "src", "ftf-bpf")
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    ver = run([a.python, "-c", "import sys; print(*sys.version_info[:2])"]).stdout.split()
    with_perf = (int(ver[0]), int(ver[1])) >= (3, 12)
    for f in a.freqs.split(","):
        one_freq(tool, a.python, a, int(f), with_perf)


if __name__ == "__main__":
    main()
