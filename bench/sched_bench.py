#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scheduling-trace benchmark: ftf-bpf against perf sched and trace-cmd.

usage: sudo bench/sched_bench.py [--build build] [--loops 200000] [--runs 5]
                                [--rings N] [--ftf-only]

Runs `perf bench sched pipe -l LOOPS` (two processes ping-ponging over a
pipe: 2 context switches and 2 wakeups per loop at least), interleaved,
RUNS times in each configuration:

  untraced                 the workload alone (the baseline)
  ftf-bpf -a               system-wide scheduling trace
  ftf-bpf -a, .fxt.gz      the same written gzipped (-o X.fxt.gz), and the
                           tracer's CPU time against the uncompressed one
  ftf-bpf -a --rings N     (with --rings N) the rings read by N threads
  perf sched record        system-wide (perf's default for sched record)
  trace-cmd record         -e sched_switch -e sched_wakeup (if ftrace works)

and prints, per configuration, the median wall time of the workload and its
ratio to the untraced median (the slowdown), the context switches captured
per second, the events lost, and the output bytes per context switch (the
whole file, all records included, over the switches it holds), the
tracer's CPU time and that of its busiest thread (read from /proc just
before the stop): what limits how many events per second it keeps up with.
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

TOTAL_RE = re.compile(r"Total time:\s*([\d.]+)\s*\[sec\]")


def workload_cmd(loops):
    return ["perf", "bench", "sched", "pipe", "-l", str(loops)]


def workload_time(out):
    m = TOTAL_RE.search(out)
    if not m:
        raise RuntimeError("perf bench printed no total time:\n" + out)
    return float(m[1])


def run_untraced(loops, tmp):
    p = subprocess.run(workload_cmd(loops), capture_output=True, text=True, check=True)
    return {"time": workload_time(p.stdout)}


def wait_ready(proc, marker, timeout=30):
    deadline = time.time() + timeout
    lines = []
    while time.time() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if marker in line:
            return lines
    raise RuntimeError("tracer did not start: " + "".join(lines))


def thread_cpu_s(pid):
    """CPU seconds (user + system) of each thread of pid, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def run_ftf(loops, tmp, build, gz=False, rings=1):
    out = os.path.join(tmp, "ftf.fxt.gz" if gz else "ftf.fxt")
    for f in (out, out + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    tracer = subprocess.Popen([os.path.join(build, "src", "ftf-bpf"), "-a", "--rings", str(rings), "-o", out],
                              stderr=subprocess.PIPE, text=True)
    wait_ready(tracer, "Ctrl-C")
    p = subprocess.run(workload_cmd(loops), capture_output=True, text=True, check=True)
    time.sleep(0.3)  # (what the rings hold is read, before the threads' times)
    busiest = max(thread_cpu_s(tracer.pid).values())
    tracer.send_signal(2)
    err = tracer.stderr.read()
    # the tracer's own CPU time (user + system), whole run, from wait4
    _, status, ru = os.wait4(tracer.pid, 0)
    tracer.returncode = os.waitstatus_to_exitcode(status)
    if tracer.returncode != 0:
        raise RuntimeError("ftf-bpf failed: " + err)
    summ = subprocess.run([os.path.join(build, "tools", "ftf-dump"), "--summary", out],
                          capture_output=True, text=True, check=True).stdout
    switches = int(re.search(r"context switch: (\d+)", summ)[1])
    wakeups = int(re.search(r"thread wakeup: (\d+)", summ)[1])
    m = re.search(r"LOST: (\d+)", err)
    lost = int(m[1]) if m else 0
    span = trace_span_s(summ)
    return {"time": workload_time(p.stdout), "bytes": os.path.getsize(out),
            "switches": switches, "events": switches + wakeups, "lost": lost,
            "span": span, "cpu": ru.ru_utime + ru.ru_stime, "busiest": busiest}


def trace_span_s(summary):
    tps = int(re.search(r"ticks_per_second: (\d+)", summary)[1])
    first = int(re.search(r"first_ts: (\d+)", summary)[1])
    last = int(re.search(r"last_ts: (\d+)", summary)[1])
    return (last - first) / tps


def run_perf(loops, tmp):
    out = os.path.join(tmp, "perf.data")
    p = subprocess.run(["perf", "sched", "record", "-o", out, "--"] + workload_cmd(loops),
                       capture_output=True, text=True, check=True)
    stats = subprocess.run(["perf", "report", "-i", out, "--stats"],
                           capture_output=True, text=True).stdout
    script = subprocess.run(["perf", "script", "-i", out, "-F", "event"],
                            capture_output=True, text=True).stdout
    switches = script.count("sched:sched_switch")
    wakeups = script.count("sched:sched_wakeup")
    lost = 0
    for m in re.finditer(r"LOST(?:_SAMPLES)? events:\s+(\d+)", stats):
        lost += int(m[1])
    span = None
    return {"time": workload_time(p.stdout + p.stderr), "bytes": os.path.getsize(out),
            "switches": switches, "events": switches + wakeups, "lost": lost, "span": span}


def run_tracecmd(loops, tmp):
    out = os.path.join(tmp, "trace.dat")
    p = subprocess.run(["trace-cmd", "record", "-q", "-e", "sched_switch", "-e", "sched_wakeup",
                        "-o", out] + workload_cmd(loops), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("trace-cmd record failed: " + (p.stderr.strip().splitlines() or ["?"])[-1])
    rep = subprocess.run(["trace-cmd", "report", "-i", out], capture_output=True, text=True).stdout
    switches = len(re.findall(r"sched_switch:", rep))
    wakeups = len(re.findall(r"sched_wakeup:", rep))
    stat = subprocess.run(["trace-cmd", "report", "--stat", "-i", out], capture_output=True, text=True).stdout
    lost = sum(int(m[1]) for m in re.finditer(r"overrun:\s*(\d+)", stat))
    return {"time": workload_time(p.stdout + p.stderr), "bytes": os.path.getsize(out),
            "switches": switches, "events": switches + wakeups, "lost": lost, "span": None}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--loops", type=int, default=200000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rings", type=int, default=1,
                    help="also ftf-bpf -a --rings N (N > 1)")
    ap.add_argument("--ftf-only", action="store_true",
                    help="only untraced, ftf-bpf -a and ftf-bpf -a -o X.fxt.gz")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("sched_bench.py: needs root (BPF, perf and ftrace): run it with sudo")
    if not os.path.exists(os.path.join(a.build, "src", "ftf-bpf")):
        sys.exit(f"sched_bench.py: {a.build}/src/ftf-bpf not built: run meson setup {a.build} && ninja -C {a.build}")
    if not os.path.ismount("/sys/kernel/tracing"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"])
    configs = [("untraced", lambda tmp: run_untraced(a.loops, tmp)),
               ("ftf-bpf -a", lambda tmp: run_ftf(a.loops, tmp, a.build)),
               ("ftf-bpf -a, .fxt.gz", lambda tmp: run_ftf(a.loops, tmp, a.build, gz=True))]
    if a.rings > 1:
        configs.append((f"ftf-bpf -a --rings {a.rings}", lambda tmp: run_ftf(a.loops, tmp, a.build, rings=a.rings)))
    if not a.ftf_only:
        configs.append(("perf sched record", lambda tmp: run_perf(a.loops, tmp)))
    if shutil.which("trace-cmd") and not a.ftf_only:
        configs.append(("trace-cmd record", lambda tmp: run_tracecmd(a.loops, tmp)))
    results = {name: [] for name, _ in configs}
    errors = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.runs):
            for name, fn in configs:
                if name in errors:
                    continue
                try:
                    results[name].append(fn(tmp))
                except (RuntimeError, subprocess.CalledProcessError) as e:
                    errors[name] = str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)
            print(f"run {r + 1}/{a.runs} done", file=sys.stderr)
    base = statistics.median(x["time"] for x in results["untraced"])
    print(f"workload: perf bench sched pipe -l {a.loops}, {a.runs} interleaved runs, medians")
    print(f"{'config':20} {'time s':>8} {'slowdown':>9} {'switches/s':>11} {'lost':>6} {'bytes/switch':>13} {'file bytes':>11}"
          f" {'tracer cpu s':>12} {'busiest thr s':>13}")
    for name, _ in configs:
        if name in errors and not results[name]:
            print(f"{name:20} did not run: {errors[name]}")
            continue
        rs = results[name]
        t = statistics.median(x["time"] for x in rs)
        line = f"{name:20} {t:8.3f} {t / base:8.2f}x"
        if name != "untraced":
            sw = statistics.median(x["switches"] for x in rs)
            lost = max(x["lost"] for x in rs)
            bps = statistics.median(x["bytes"] / max(1, x["switches"]) for x in rs)
            size = statistics.median(x["bytes"] for x in rs)
            line += f" {sw / t:11.0f} {lost:6d} {bps:13.1f} {size:11.0f}"
            if "cpu" in rs[0]:
                line += f" {statistics.median(x['cpu'] for x in rs):12.3f}"
                line += f" {statistics.median(x['busiest'] for x in rs):13.2f}"
        print(line)
    if results.get("ftf-bpf -a, .fxt.gz") and results.get("ftf-bpf -a"):
        plain = statistics.median(x["cpu"] for x in results["ftf-bpf -a"])
        gz = results["ftf-bpf -a, .fxt.gz"]
        extra = statistics.median(x["cpu"] for x in gz) - plain
        events = statistics.median(x["events"] for x in gz)
        print(f"gzip: {extra:.3f} s more tracer CPU than uncompressed (medians), "
              f"{extra * 1e9 / max(1, events):.1f} ns per event")
    for name, e in errors.items():
        print(f"note: {name}: {e}")


if __name__ == "__main__":
    main()
