#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ftf-merge end to end (root): a program's own trace and ftf-bpf's.

usage: test_merge.py MODE FTF_BPF FTF_DUMP FTF_MERGE SELFTRACE OUTDIR
MODE: tsc (ftf-bpf on its TSC clock: one counter, ticks kept) | mono
(ftf-bpf --clock mono: mapped through the two base times)

selftrace writes its own trace with libftf (a calibrated TSC clock, as
ftf-bpf's) of N calls of its noinline step(), each recorded inside the
call, while `ftf-bpf -p PID -u step` traces it. ftf-merge puts the two
together (plain and gzip). In the merged trace, on the program's thread,
each of its own slices must start within 50 us of the uprobe slice of the
same call (a margin for a loaded machine: the uprobe trap and the
program's clock read are a few microseconds apart), end inside it, and
nothing may be lost: N slices of each kind, both named thread records, both
provider names. `cat` of the two would put them tens of milliseconds
apart (each part read at its own ticks per second).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Fail, Trace, Tracer, check, run_main, skip_unless_root  # noqa: E402

N = 200
MARGIN_US = 50.0


def slices(t, tid, name):
    """[(begin, end)] of the begin/end slices named `name` on tid."""
    out, open_ts = [], []
    for ts, pid, etid, cat, ename, kind, args in t.events:
        if etid != tid or ename != name:
            continue
        if kind == "DurationBegin":
            open_ts.append(ts)
        elif kind == "DurationEnd" and open_ts:
            out.append((open_ts.pop(), ts))
    return sorted(out)


def tps_of(path, ftf_dump):
    s = subprocess.run([ftf_dump, "--summary", path], capture_output=True, text=True).stdout
    return int(re.search(r"ticks_per_second: (\d+)", s)[1])


def check_merged(path, ftf_dump, tid):
    t = Trace(ftf_dump, path)
    check(t.check_code == 0, f"ftf-dump --check accepts {os.path.basename(path)} ({t.check_out.strip()})")
    tps = tps_of(path, ftf_dump)
    own, probe = slices(t, tid, "own_step"), slices(t, tid, "step")
    check(len(own) == N and len(probe) == N,
          f"{N} own slices and {N} uprobe slices on thread {tid}: {len(own)}, {len(probe)}")
    starts, ends_inside = [], 0
    for (ob, oe), (pb, pe) in zip(own, probe):
        starts.append((ob - pb) * 1e6 / tps)
        ends_inside += oe <= pe + MARGIN_US * tps / 1e6
    worst = max(abs(d) for d in starts)
    starts.sort()
    print(f"  own start - uprobe start, us: min {starts[0]:.2f}, median {starts[len(starts) // 2]:.2f}, "
          f"max {starts[-1]:.2f}")
    check(worst <= MARGIN_US, f"every own slice starts within {MARGIN_US:.0f} us of its call's uprobe slice "
                              f"(worst {worst:.2f} us, all {N} pairs)")
    check(ends_inside == N, f"and ends inside it ({ends_inside} of {N})")
    check("stepper" in t.thread_names(tid), f"thread {tid} is named 'stepper': {t.thread_names(tid)}")
    providers = [l for l in t.lines if l.startswith("Metadata(content: ProviderInfo")]
    check(any('"selftrace"' in p for p in providers) and any('"ftf-bpf"' in p for p in providers),
          f"both provider names are in the output: {providers}")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, ftf_merge, selftrace, outdir = sys.argv[1:7]
    os.makedirs(outdir, exist_ok=True)
    app = os.path.join(outdir, f"merge-{mode}-app.fxt")
    kern = os.path.join(outdir, f"merge-{mode}-kernel.fxt.gz")
    clock = ["--clock", "mono"] if mode == "mono" else []
    placed = "mapped through its base time" if mode == "mono" else "the same clock"

    def run():
        wl = subprocess.Popen([selftrace, str(N), app], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ids = dict(kv.split("=") for kv in wl.stdout.readline().split())
        pid, tid = int(ids["pid"]), int(ids["tid"])
        print(f"  selftrace pid={pid} tid={tid} clock={ids['clock']}")
        if ids["clock"] != "tsc":
            print("SKIP: no invariant TSC here: the two clocks are not one counter")
            sys.exit(77)
        tr = Tracer(tool, ["-p", str(pid), "-u", "step", "-o", kern] + clock)
        _, err = wl.communicate(input="go\n", timeout=120)
        check(wl.returncode == 0, f"selftrace ran (exit {wl.returncode} {err.strip()})")
        rc = tr.wait()
        check(rc == 0, f"ftf-bpf exited 0 (got {rc})")
        for out in (f"merge-{mode}-both.fxt", f"merge-{mode}-both.fxt.gz"):
            path = os.path.join(outdir, out)
            p = subprocess.run([ftf_merge, app, kern, "-o", path], capture_output=True, text=True)
            print("  ftf-merge said:\n    " + p.stderr.strip().replace("\n", "\n    "))
            check(p.returncode == 0, f"ftf-merge app kernel -o {out} exited 0")
            check(placed in p.stderr, f"ftf-bpf's trace is placed: {placed}")
            check_merged(path, ftf_dump, tid)

    run_main(run)


if __name__ == "__main__":
    main()
