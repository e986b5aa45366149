#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The flight recorder (-F) end to end, on flightwl (three threads call
tick() every millisecond; thread "rare" calls rare() once, 80 ms, at a
known moment; the workload prints the time of every tick() call).

usage: test_flight.py MODE FTF_BPF FTF_DUMP FLIGHTWL OUTDIR
MODE: trigger | usr1 | stopwrite | errors | memory | diskfull

Expectations come from the workload's own timestamps (CLOCK_MONOTONIC,
which --clock mono makes the trace's time base too), never from ftf-bpf's
output alone.
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Fail, Trace, Tracer, check, ends_on_record_boundary, run_main, skip_unless_root  # noqa: E402


def parse_workload(out):
    lines = out.split("\n")
    m = re.match(r"rare (\d+) (\d+) (\d+)", lines[0])
    if not m:
        raise Fail(f"flightwl printed no rare line: {lines[:1]}")
    rare = (int(m[1]), int(m[2]), int(m[3]))
    ticks, i = {}, 1
    while i < len(lines) and lines[i].startswith("tick "):
        _, tid, n = lines[i].split()
        ticks[int(tid)] = [int(x) for x in lines[i + 1:i + 1 + int(n)]]
        i += 1 + int(n)
    return rare, ticks


def snapshot(ftf_dump, path):
    check(os.path.exists(path), f"{os.path.basename(path)} was written")
    t = Trace(ftf_dump, path)
    check(ends_on_record_boundary(path), f"{os.path.basename(path)} ends on a record boundary")
    check(t.check_code == 0, f"ftf-dump --check accepts {os.path.basename(path)} ({t.check_out.strip()[:200]})")
    bad = t.nameless()
    check(not bad, f"every thread and process in it is named ({len(bad)} not: {bad[:6]})")
    return t


def begins(t, name):
    """(ts, tid, before_window) of the name's slice begins."""
    return [(e[0], e[2], "before_window" in e[6]) for e in t.events
            if e[4] == name and e[5] == "DurationBegin"]


def count_per_interval(ts, begins_sorted):
    """How many of the sorted begins fall in [ts[i], ts[i+1]) for each
    i (the last interval is open-ended)."""
    counts, j = [0] * len(ts), 0
    for i in range(len(ts)):
        end = ts[i + 1] if i + 1 < len(ts) else float("inf")
        while j < len(begins_sorted) and begins_sorted[j] < end:
            if begins_sorted[j] >= ts[i]:
                counts[i] += 1
            j += 1
    return counts


def mode_trigger(tool, ftf_dump, wl, outdir):
    """-F 2s --trigger 'rare>50ms' --post 500ms: the first snapshot holds
    the rare call, 1.5 s of tick() calls before its end and 0.5 s after,
    exactly those the workload made in that span, on threads with the
    right names."""
    out = os.path.join(outdir, "flight.fxt")
    for n in (1, 2):
        p = os.path.join(outdir, f"flight-{n}.fxt")
        if os.path.exists(p):
            os.unlink(p)
    args = ["-F", "2s", "--clock", "mono", "-u", "tick", "-u", "rare", "--trigger", "rare>50ms",
            "--post", "500ms", "-o", out, "--", wl, "6", "3.5"]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    check("exited with status" not in p.stderr, "the workload exited with status 0 (its list of calls is whole)")
    (rtid, rb, re_), ticks = parse_workload(p.stdout)
    check(re.search(r"snapshot \S*flight-1\.fxt: .*rare\(\) took (8\d|9\d|1\d\d)\.\d+ ms", p.stderr),
          "the trigger's snapshot is announced with the call's duration")
    check("flight-2.fxt" in p.stderr and "stop (command exited)" in p.stderr,
          "the stop writes the last window as snapshot 2")
    t = snapshot(ftf_dump, os.path.join(outdir, "flight-1.fxt"))
    r = begins(t, "rare")
    check(len(r) == 1 and r[0][1] == rtid and not r[0][2], f"one rare() slice, on thread {rtid}: {r}")
    check("rare" in t.thread_names(rtid), f"thread {rtid} is named 'rare': {t.thread_names(rtid)}")
    ends = [e for e in t.events if e[4] == "rare" and e[5] == "DurationEnd"]
    check(len(ends) == 1 and ends[0][0] - r[0][0] >= 80_000_000,
          f"it lasts at least 80 ms ({(ends[0][0] - r[0][0]) / 1e6 if ends else None} ms)")
    check(rb <= r[0][0] <= re_, "its begin lies within the workload's own times of the call")
    b = begins(t, "tick")
    inside = [x for x in b if not x[2]]
    first, last = min(x[0] for x in inside), max(x[0] for x in inside)
    rare_end = ends[0][0]
    before, after = (rare_end - first) / 1e9, (last - rare_end) / 1e9
    check(0.45 <= after <= 1.2, f"--post 500ms: the tick() calls go on {after:.3f} s after the rare call's end")
    check(1.7 <= before + after <= 2.05,
          f"and reach back {before:.3f} s before it: {before + after:.3f} s in all (window 2 s)")
    total = 0
    for tid, ts in ticks.items():
        got = sorted(x[0] for x in inside if x[1] == tid)
        total += len(got)
        check(all(ts[0] <= g for g in got), f"thread {tid}: no tick() slice before the workload's first call")
        # The workload takes its time just before each call and calls
        # one at a time, so call i enters in [ts[i], ts[i+1]): count the
        # slices in each such interval. Every interval well inside the
        # snapshot's span (100 ms from its edges, where the window's cut
        # may fall between a call's time and its entry, or between CPUs'
        # batches) holds exactly one; none anywhere holds two.
        per_call = count_per_interval(ts, got)
        lo, hi = first + 100_000_000, last - 100_000_000
        inner = [i for i in range(len(ts) - 1) if lo <= ts[i] and ts[i + 1] <= hi]
        missing = [ts[i] for i in inner if per_call[i] != 1]
        check(len(inner) > 500 and not missing,
              f"thread {tid}: one tick() slice for each of the {len(inner)} calls inside the span "
              f"(not one for: {missing[:5]})")
        twice = [ts[i] for i, n in enumerate(per_call) if n > 1]
        check(not twice, f"thread {tid}: no call has two slices ({twice[:5]})")
        names = t.thread_names(tid)
        check(any(n.startswith("freq") for n in names), f"thread {tid} is named freqN: {names}")
    check(total > 3 * 1000, f"{total} tick() slices in all (three threads, about 2 s at most 1 kHz)")
    early = [x for x in b if x[2]]
    check(all(x[0] == min(y[0] for y in b) for x in early),
          f"calls open at the window's start begin at it, marked before_window ({len(early)})")


def mode_usr1(tool, ftf_dump, wl, outdir):
    """Three SIGUSR1, with --max-snapshots 3: three snapshots; the stop's
    one is counted, not written."""
    out = os.path.join(outdir, "usr1.fxt")
    for n in range(1, 6):
        p = os.path.join(outdir, f"usr1-{n}.fxt")
        if os.path.exists(p):
            os.unlink(p)
    tr = Tracer(tool, ["-F", "1s", "--max-snapshots", "3", "-u", "tick", "-o", out, "--", wl, "5", "4"])
    for _ in range(3):
        time.sleep(0.8)
        tr.signal(signal.SIGUSR1)
    rc = tr.wait()
    check(rc == 0, f"exit 0 (got {rc})")
    for n in (1, 2, 3):
        t = snapshot(ftf_dump, os.path.join(outdir, f"usr1-{n}.fxt"))
        check(len(begins(t, "tick")) > 500, f"snapshot {n} holds tick() calls")
        check(f"usr1-{n}.fxt: SIGUSR1" in tr.stderr, f"the summary lists snapshot {n} (SIGUSR1)")
    check(not os.path.exists(os.path.join(outdir, "usr1-4.fxt")), "no fourth snapshot")
    check("1 more snapshots asked for and not written (--max-snapshots 3)" in tr.stderr,
          "the stop's snapshot is counted as not written")


def mode_stopwrite(tool, ftf_dump, wl, outdir):
    """SIGUSR1 then at once SIGINT (or SIGTERM): the snapshot being written
    and the stop's one are both whole."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        name = signal.Signals(sig).name
        out = os.path.join(outdir, f"stop-{name}.fxt")
        for n in (1, 2):
            p = os.path.join(outdir, f"stop-{name}-{n}.fxt")
            if os.path.exists(p):
                os.unlink(p)
        tr = Tracer(tool, ["-F", "2s", "-a", "-u", f"{wl}:tick", "-o", out])
        w = subprocess.Popen([wl, "4", "3"], stdout=subprocess.DEVNULL)
        time.sleep(2.0)
        tr.signal(signal.SIGUSR1)
        time.sleep(0.01)
        tr.signal(sig)
        rc = tr.wait()
        w.wait()
        check(rc == 0, f"{name}: exit 0 (got {rc})")
        for n in (1, 2):
            t = snapshot(ftf_dump, os.path.join(outdir, f"stop-{name}-{n}.fxt"))
            check(len(t.switches) > 0, f"{name}: snapshot {n} holds context switches")


def mode_errors(tool, ftf_dump, wl, outdir):
    """Bad -F input: one line that says what is wrong, a non-zero exit,
    no file and no process started."""
    out = os.path.join(outdir, "flight-err.fxt")
    cases = [
        (["-F", "1s", "-u", "tick", "--trigger", "rare>1ms", "-o", out, "--", wl, "1", "0.5"],
         "--trigger 'rare' matches no function traced with -u: add -u 'rare'"),
        (["-F", "1s", "-u", "tick", "--trigger", "nosuch>1ms", "-o", out, "--", wl, "1", "0.5"],
         "--trigger: "),
        (["-F", "1s", "-a", "-o", "/nonexistent-dir/x.fxt"],
         "cannot write snapshots like /nonexistent-dir/x-1.fxt: folder /nonexistent-dir"),
    ]
    for args, says in cases:
        if os.path.exists(out.replace(".fxt", "-1.fxt")):
            os.unlink(out.replace(".fxt", "-1.fxt"))
        p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        print(f"  {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        check(p.returncode != 0 and len(lines) == 1 and says in lines[0],
              f"one line saying {says!r}, non-zero exit")
        check(not os.path.exists(out.replace(".fxt", "-1.fxt")), "no snapshot written")


def mode_diskfull(tool, ftf_dump, wl, outdir):
    """A snapshot that fills the disk (a 16 KiB tmpfs) is kept cut back to
    its whole records, as the line about it says and as the trace itself is
    on a full disk (it used to say so, then delete the file); the exit
    status is 1. A sleeper waking every millisecond makes the 3 s window
    over 100 KB whatever else the machine does (an idle CI machine gave
    268 events in 3 s, 15 KB, which fit)."""
    mnt = os.path.join(outdir, "flight-tiny")
    os.makedirs(mnt, exist_ok=True)
    subprocess.run(["umount", mnt], capture_output=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", mnt],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"a 16 KiB tmpfs is mounted at {mnt} ({r.stderr.strip()})")
    try:
        out = os.path.join(mnt, "full.fxt")
        snap = os.path.join(mnt, "full-1.fxt")
        sleeper = subprocess.Popen([sys.executable, "-c",
                                    "import time\nfor _ in range(6000): time.sleep(0.001)"])
        tr = Tracer(tool, ["-F", "5s", "-a", "-o", out])
        time.sleep(3)
        tr.signal(signal.SIGUSR1)
        time.sleep(3)  # (the child writes it meanwhile)
        tr.signal(signal.SIGINT)
        rc = tr.wait()
        sleeper.kill()
        sleeper.wait()
        check(rc == 1, f"a failed snapshot makes the exit status 1 (got {rc})")
        said = [ln for ln in tr.stderr.splitlines() if "full-1.fxt failed" in ln]
        check(len(said) == 1 and "No space left" in said[0],
              f"one line says snapshot 1 failed on the full disk ({said})")
        check("holds the whole records written before the error" in said[0],
              "the line says the file keeps the whole records written")
        check(os.path.exists(snap), f"{os.path.basename(snap)} is there, as the line says")
        size = os.path.getsize(snap)
        check(0 < size <= 16 * 1024, f"it holds what fit ({size} bytes)")
        check(ends_on_record_boundary(snap), "it ends on a record boundary")
        t = Trace(ftf_dump, snap)
        check(t.dump_code == 0, f"the reader reads the whole file ({t.dump_err.strip()[:200]})")
        check(not re.search(r"undefined|before (its )?definition|magic", t.check_out),
              f"every reference defined, magic first ({t.check_out.strip()[:200]})")
        check(not [f for f in os.listdir(mnt) if ".part" in f], "no temporary file is left")
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)


def vm_rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def mode_memory(tool, ftf_dump, syswl, outdir):
    """-F 1s through a burst of system calls (syswl N: 2 threads, 2.5 N
    calls each, 2 events per call), then 6 s without: the recorder gives
    back what the window no longer holds, so ftf-bpf's RSS (VmRSS in
    /proc, sampled every 0.2 s) falls back from its peak. Margins are wide:
    the burst must raise RSS by 4 MB at least, and at the end RSS must be
    under the baseline plus half the burst's rise."""
    n = 150000
    out = os.path.join(outdir, "memory.fxt")
    tr = Tracer(tool, ["-F", "1s", "-f", "--syscalls", "-o", out, "--", "sh", "-c",
                       f"sleep 2; {syswl} {n} > /dev/null; echo burst-over >&2; sleep 6"])
    samples = []
    while tr.p.poll() is None:
        kb = vm_rss_kb(tr.p.pid)
        if kb:
            samples.append(kb)
        time.sleep(0.2)
    rc = tr.wait()
    check(rc == 0, f"exit 0 (got {rc})")
    check(len(samples) > 20, f"RSS sampled {len(samples)} times")
    base = min(samples[:5])
    peak = max(samples)
    end = samples[-3]
    print(f"  VmRSS (MB): base {base / 1024:.1f}, peak {peak / 1024:.1f}, end {end / 1024:.1f}")
    check(peak - base >= 4 * 1024, f"the burst raised RSS by {(peak - base) / 1024:.1f} MB (at least 4)")
    check(end <= base + (peak - base) / 2,
          f"6 s after the burst RSS {end / 1024:.1f} MB is back under base + half the rise "
          f"({(base + (peak - base) / 2) / 1024:.1f} MB)")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, wl, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    fn = {"trigger": mode_trigger, "usr1": mode_usr1, "stopwrite": mode_stopwrite,
          "errors": mode_errors, "memory": mode_memory, "diskfull": mode_diskfull}[mode]
    run_main(lambda: fn(tool, ftf_dump, wl, outdir))


if __name__ == "__main__":
    main()
