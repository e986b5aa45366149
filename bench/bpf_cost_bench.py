#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""BPF cost of stacks (issue 34, "cheaper stacks"): the kernel's run time
of each of the tracer's BPF programs, per run, and `perf bench sched
pipe` under `ftf-bpf -a -g`, for a baseline binary and the build's, side
by side.

usage: sudo bench/bpf_cost_bench.py [--build build] [--baseline PATH]
           [--rounds 3] [--duration 10] [--pipe 50000] [--no-load]

The load (started once, kept for all rounds unless --no-load): `xz -9`
of the tracer's binary in a loop and a CPython loop of recursive calls
(the process the `-p` configuration traces).

Part 1, BPF time per run (kernel.bpf_stats_enabled=1, set for the run
and put back): each round runs, for each binary in turn (the order
alternates), `ftf-bpf -a -g` and `ftf-bpf -g -p PYTHON` for DURATION
seconds. Near the end of each run the programs of that tracer (the
prog_id of each BPF file descriptor it holds, from /proc/PID/fdinfo: the
other tracers on the machine load programs of the same names) are read
with `bpftool prog show`: run_time_ns / run_cnt for each. Then from the
tracer's summary: on-CPU samples and off-CPU stacks taken, whence
"ns per on-CPU sample" (ftfb_cpu_sample's time / its runs) and "ns per
off-CPU stack" (ftfb_offcpu_switch's whole time, with the switches that
take no stack, / the stacks taken: an upper bound), and the shares of the
stacks at blocks found again from chains seen before (the summary's).

Part 2, `perf bench sched pipe -l PIPE` (two processes blocking on a pipe
in turn: a context switch and an off-CPU stack each time) untraced and
beside `ftf-bpf -a -g` of each binary, interleaved, ROUNDS x 2 runs of
each: the medians of its wall time ("Total time") and of the CPU time of
its processes (user + system, the BPF programs' time is in it), and their
ratio to untraced.

Every figure is the median of the rounds; the load average is printed
with each run: the wall times swing with whatever else runs on the
machine, the CPU times much less.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

PY_LOOP = """
import time
def f(n):
    return 1 if n < 2 else f(n - 1) + f(n - 2)
while True:
    f(18)
"""


class Load:
    """xz -9 in a loop and a CPython process; stop() ends them."""

    def __init__(self, tool):
        self.xz = subprocess.Popen(["sh", "-c", f"while :; do xz -9 -c {tool} >/dev/null; done"],
                                   start_new_session=True)
        self.py = subprocess.Popen([sys.executable, "-c", PY_LOOP], start_new_session=True)

    def stop(self):
        for p in (self.xz, self.py):
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def prog_ids_of(pid):
    """The ids of the BPF programs process pid holds a descriptor of."""
    ids = set()
    fdinfo = f"/proc/{pid}/fdinfo"
    try:
        fds = os.listdir(fdinfo)
    except OSError:  # (it has exited)
        return ids
    for fd in fds:
        try:
            with open(os.path.join(fdinfo, fd)) as f:
                m = re.search(r"^prog_id:\s+(\d+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m[1]))
    return ids


def prog_stats(ids):
    """{program name: (run_cnt, run_time_ns)} of the programs ids."""
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True).stdout
    res = {}
    for p in json.loads(out or "[]"):
        if p["id"] in ids:
            cnt, ns = res.get(p.get("name", "?"), (0, 0))
            res[p.get("name", "?")] = (cnt + p.get("run_cnt", 0), ns + p.get("run_time_ns", 0))
    return res


def summary_counts(err):
    """(on-CPU samples, off-CPU stacks) from ftf-bpf's summary."""
    m = re.search(r"stacks: (\d+) on-CPU samples.*?, (\d+) off-CPU stacks", err)
    return (int(m[1]), int(m[2])) if m else (0, 0)


def found_again(err):
    """The summary's shares of the stacks at blocks found again from
    chains seen before (kernel, user), "" from a tracer without them."""
    m = re.search(r"found again .*: kernel \d+ of \d+ \(([\d.]+)%\), user \d+ of \d+ \(([\d.]+)%\)", err)
    return f", found again: kernel {m[1]}%, user {m[2]}%" if m else ""


def wait_started(p, tool):
    """Reads p's stderr up to the line that says it traces."""
    seen = []
    for line in p.stderr:
        seen.append(line)
        if "tracing" in line:
            return
    p.kill()
    sys.exit(f"{tool} did not start: {''.join(seen[-5:])}")


def trace_run(tool, args, secs, out):
    """One tracer run of secs seconds (-d): its programs' stats, read
    every 0.2 s until it exits (the last read before its programs go),
    and its summary's counts."""
    p = subprocess.Popen([tool, *args, "-d", f"{secs}s", "-o", out], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    wait_started(p, tool)
    ids = set()
    stats = {}
    while p.poll() is None:
        # (again each time: the stack programs may come after the line)
        ids |= prog_ids_of(p.pid) if p.poll() is None else set()
        now = prog_stats(ids)
        if sum(c for c, _ in now.values()) >= sum(c for c, _ in stats.values()):
            stats = now
        time.sleep(0.2)
    err = p.stderr.read()
    on, off = summary_counts(err)
    return {"progs": stats, "on": on, "off": off, "load": os.getloadavg()[0], "again": found_again(err)}


def per_run(stats, name):
    cnt, ns = stats.get(name, (0, 0))
    return ns / cnt if cnt else 0.0


def show_trace(label, k, r):
    st = r["progs"]
    on = st.get("ftfb_cpu_sample", (0, 0))[1] / max(r["on"], 1)
    off = st.get("ftfb_offcpu_switch", (0, 0))[1] / r["off"] if r["off"] else 0.0
    r["ns_on"], r["ns_off"] = on, off
    r["ns_switch"] = per_run(st, "ftfb_offcpu_switch")
    print(f"  {label:<10} {k:<9} load {r['load']:5.1f}: {r['on']} samples {on:8.0f} ns/sample, "
          f"{r['off']} off-CPU stacks {off:8.0f} ns/stack, {r['ns_switch']:6.0f} ns/switch{r['again']}",
          flush=True)


def pipe_run(tool, loops, scratch):
    """perf bench sched pipe, beside `tool -a -g` unless tool is None:
    (wall seconds, CPU seconds of its processes)."""
    tracer = None
    if tool:
        tracer = subprocess.Popen([tool, "-a", "-g", "-o", os.path.join(scratch, "p.fxt")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_started(tracer, tool)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(["perf", "bench", "sched", "pipe", "-l", str(loops)],
                         capture_output=True, text=True).stdout
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    if tracer:
        tracer.send_signal(signal.SIGINT)
        tracer.communicate()
    m = re.search(r"Total time:\s+([\d.]+)", out)
    if not m:
        sys.exit(f"perf bench sched pipe: no total time in:\n{out}")
    return float(m[1]), ru.ru_utime - ru0.ru_utime + ru.ru_stime - ru0.ru_stime


def part_trace(a, tools, pypid, scratch):
    res = {(c, k): [] for c in ("-a -g", "-g -p") for k in tools}
    for rnd in range(a.rounds):
        order = list(tools) if rnd % 2 == 0 else list(tools)[::-1]
        for conf, args in (("-a -g", ["-a", "-g"]), ("-g -p", ["-g", "-p", str(pypid)])):
            for k in order:
                r = trace_run(tools[k], args, a.duration, os.path.join(scratch, "t.fxt"))
                show_trace(conf, k, r)
                res[(conf, k)].append(r)
    print("medians, BPF ns per run of each program (runs in the last round):")
    names = sorted({n for rows in res.values() for r in rows for n in r["progs"]})
    for (conf, k), rows in res.items():
        print(f"  {conf:<6} {k:<9} ns/sample {statistics.median(r['ns_on'] for r in rows):7.0f}"
              f"  ns/off-CPU stack {statistics.median(r['ns_off'] for r in rows):7.0f}"
              f"  ns/switch {statistics.median(r['ns_switch'] for r in rows):6.0f}")
        for n in names:
            med = statistics.median(per_run(r["progs"], n) for r in rows)
            if med:
                print(f"      {n:<22} {med:9.0f} ns/run  ({rows[-1]['progs'][n][0]} runs)")


def part_pipe(a, tools, scratch):
    confs = {"untraced": None, **tools}
    res = {c: [] for c in confs}
    for rnd in range(2 * a.rounds):
        order = list(confs) if rnd % 2 == 0 else list(confs)[::-1]
        for c in order:
            wall, cpu = pipe_run(confs[c], a.pipe, scratch)
            res[c].append((wall, cpu))
            print(f"  pipe {c:<9} wall {wall:6.3f} s  cpu {cpu:6.3f} s  load {os.getloadavg()[0]:5.1f}", flush=True)
    w0 = statistics.median(x[0] for x in res["untraced"])
    c0 = statistics.median(x[1] for x in res["untraced"])
    print(f"medians, perf bench sched pipe -l {a.pipe} (ratio to untraced):")
    for c, rows in res.items():
        w = statistics.median(x[0] for x in rows)
        cpu = statistics.median(x[1] for x in rows)
        label = "untraced" if c == "untraced" else f"ftf-bpf -a -g, {c}"
        print(f"  {label:<22} wall {w:6.3f} s ({w / w0:4.2f}x)  cpu {cpu:6.3f} s ({cpu / c0:4.2f}x)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--baseline", help="the ftf-bpf binary to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--pipe", type=int, default=50000, help="perf bench sched pipe loops (0: no part 2)")
    ap.add_argument("--no-load", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bpf_cost_bench.py: needs root (BPF): run it with sudo")
    tools = {"build": os.path.join(a.build, "src", "ftf-bpf")}
    if a.baseline:
        tools = {"baseline": os.path.abspath(a.baseline), **tools}
    for t in tools.values():
        if not os.access(t, os.X_OK):
            sys.exit(f"bpf_cost_bench.py: {t} is not an executable")
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    scratch = tempfile.mkdtemp(prefix="bpf-cost-bench.")
    load = None
    try:
        if not a.no_load:
            load = Load(tools["build"])
        print(f"load: {'none' if a.no_load else 'xz -9 loop + CPython loop'}; {os.cpu_count()} cpus; "
              f"load average {os.getloadavg()[0]:.1f}")
        time.sleep(0 if a.no_load else 3)
        part_trace(a, tools, load.py.pid if load else os.getpid(), scratch)
        if a.pipe:
            part_pipe(a, tools, scratch)
    finally:
        if load:
            load.stop()
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run(["sysctl", "-q", f"kernel.bpf_stats_enabled={old}"])


if __name__ == "__main__":
    main()
