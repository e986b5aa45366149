#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lost events and the tracer's own CPU under a loaded machine (issue 34:
"nothing lost when everything is on"), for a baseline binary and the
build's, side by side.

usage: sudo bench/ring_loss_bench.py [--build build] --baseline PATH
           [--rounds 3] [--duration 20] [--load full|hog|none]
           [--args "-a -g --syscalls --events=io,mem,irq,waker"]

The load (started once, kept for all rounds):
  full  a build (meson + ninja -j2 of this repository, again and again, in
        a scratch directory), pgbench (-c 8 -j 2, needs a PostgreSQL
        cluster running with a database `bench` made by `pgbench -i`) and
        redis-benchmark (needs redis-server on port 6379), as in the
        issue; the part whose program is missing is replaced by cpu hogs;
  hog   busy loops, two per cpu;
  none  nothing beside the tracer.
The rounds interleave the two binaries (baseline, build, baseline, ...)
so that a change in the load hits both; each line is one run, the last
lines the medians. lost% = lost / (received + lost), from the tool's own
summary; cpu% = the tracer's user + system time over its wall time (of
one cpu); load = the 1-minute load average at the run's end.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def parse_summary(err):
    """(events received, events lost) from ftf-bpf's summary."""
    m = re.search(r"^\s*events:.* (\d+) in all$", err, re.M)
    got = int(m[1]) if m else None
    m = re.search(r"LOST: (\d+) events", err)
    lost = int(m[1]) if m else (0 if "lost: 0 events" in err else None)
    return got, lost


class Load:
    """The processes that load the machine; stop() ends them all."""

    def __init__(self, kind, scratch):
        self.procs = []
        self.scratch = scratch
        self.notes = []
        hogs = 0
        if kind == "hog":
            hogs = 2 * os.cpu_count()
        elif kind == "full":
            self.build_loop()
            if not self.pgbench():
                hogs += 2
            if not self.redis():
                hogs += 2
        for _ in range(hogs):
            self.spawn(["sh", "-c", "while :; do :; done"])
        if hogs:
            self.notes.append(f"{hogs} busy loops")

    def spawn(self, cmd, **kw):
        self.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           start_new_session=True, **kw))

    def build_loop(self):
        src = os.path.join(self.scratch, "src")
        subprocess.run(["git", "-C", REPO, "worktree", "add", "--detach", src, "HEAD"],
                       capture_output=True, check=True)
        self.worktree = src
        b = os.path.join(self.scratch, "b")
        self.spawn(["sh", "-c", f"while :; do rm -rf {b}; meson setup {b} {src} >/dev/null 2>&1; "
                    f"ninja -j2 -C {b} >/dev/null 2>&1; done"])
        self.notes.append("ninja -j2 build of ftf-bpf in a loop")

    def pgbench(self):
        if not shutil.which("pgbench"):
            return False
        ok = subprocess.run(["psql", "-d", "bench", "-c", "select 1"], user="postgres",
                            capture_output=True).returncode == 0
        if not ok:
            return False
        # (as a child of ours, not of su: stop() must reach it)
        self.spawn(["pgbench", "-c", "8", "-j", "2", "-T", "100000", "bench"], user="postgres", cwd="/")
        self.notes.append("pgbench -c 8 -j 2")
        return True

    def redis(self):
        if not shutil.which("redis-benchmark"):
            return False
        if subprocess.run(["redis-cli", "ping"], capture_output=True, text=True).stdout.strip() != "PONG":
            return False
        self.spawn(["sh", "-c", "while :; do redis-benchmark -q -c 20 -n 2000000 -t set,get,incr,lpush >/dev/null; done"])
        self.notes.append("redis-benchmark -c 20")
        return True

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait()
        if getattr(self, "worktree", None):
            subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", self.worktree],
                           capture_output=True)


def one_run(tool, args, secs, out, env=None):
    """Runs the tracer once; a dict of what it measured, or None if it
    did not end within a bound (it is killed)."""
    cmd = [tool, *args, "-d", f"{secs}s", "-o", out]
    t0 = time.monotonic()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, **(env or {})))
    try:
        _, err = p.communicate(timeout=secs + 120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        print(f"  (killed: {tool} still ran {secs + 120} s after its start)")
        return None
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    got, lost = parse_summary(err)
    if got is None or lost is None:
        sys.exit(f"no summary from {' '.join(cmd)} (exit {p.returncode}):\n{err[-2000:]}")
    cpu = ru.ru_utime - ru0.ru_utime + ru.ru_stime - ru0.ru_stime
    return {"lost%": 100.0 * lost / max(got + lost, 1), "lost": lost, "events": got + lost,
            "cpu%": 100.0 * cpu / wall, "load": os.getloadavg()[0], "wall": wall}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--baseline", required=True, help="the ftf-bpf binary to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=20)
    ap.add_argument("--load", choices=("full", "hog", "none"), default="full")
    ap.add_argument("--warmup", type=int, default=15, help="seconds of load before the first run")
    ap.add_argument("--build-env", action="append", default=[], metavar="K=V",
                    help="set in the build binary's environment (an experiment)")
    ap.add_argument("--args", default="-a -g --syscalls --events=io,mem,irq,waker")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("ring_loss_bench.py: needs root (BPF): run it with sudo")
    tools = {"baseline": os.path.abspath(a.baseline), "build": os.path.join(a.build, "src", "ftf-bpf")}
    for t in tools.values():
        if not os.access(t, os.X_OK):
            sys.exit(f"ring_loss_bench.py: {t} is not an executable")
    args = a.args.split()
    scratch = tempfile.mkdtemp(prefix="ring-loss-bench.")
    load = Load(a.load, scratch)
    res = {k: [] for k in tools}
    try:
        print(f"load: {a.load} ({', '.join(load.notes) or 'nothing'}); tracer: {' '.join(args)} "
              f"-d {a.duration}s; {os.cpu_count()} cpus")
        time.sleep(a.warmup if load.procs else 0)
        print(f"{'round':>5} {'binary':<9} {'events':>10} {'lost':>10} {'lost%':>7} {'cpu%':>6} {'load':>5}")
        for r in range(a.rounds):
            order = list(tools) if r % 2 == 0 else list(tools)[::-1]
            for k in order:
                env = dict(kv.split("=", 1) for kv in a.build_env) if k == "build" else None
                x = one_run(tools[k], args, a.duration, os.path.join(scratch, "t.fxt"), env)
                if x is None:
                    continue
                res[k].append(x)
                print(f"{r + 1:>5} {k:<9} {x['events']:>10} {x['lost']:>10} {x['lost%']:>7.2f} "
                      f"{x['cpu%']:>6.1f} {x['load']:>5.1f}", flush=True)
                if os.path.exists(os.path.join(scratch, "t.fxt")):
                    os.unlink(os.path.join(scratch, "t.fxt"))
    finally:
        load.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print("medians:")
    for k, rows in res.items():
        if not rows:
            continue
        med = {f: statistics.median(x[f] for x in rows) for f in ("events", "lost%", "cpu%", "load")}
        print(f"  {k:<9} ({tools[k]}): lost {med['lost%']:.2f}% of {med['events']:.0f} events, "
              f"tracer cpu {med['cpu%']:.1f}%, load {med['load']:.1f}")


if __name__ == "__main__":
    main()
