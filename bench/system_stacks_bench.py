#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""System-wide stacks during a build (issue 34): `ftf-bpf -a -g` against
`perf record -a --call-graph dwarf` in the same rounds, on a machine
running `make -j2` of a real C project.

usage: sudo bench/system_stacks_bench.py [--build build] [--baseline PATH]
           [--rounds 3] [--duration 20] [--freq 99] [--keep DIR]

The load: GNU libiberty (the C support library of binutils and GCC: 127
C files, each compiled twice by its Makefile, through a `sh -c` per file)
from the sources Debian ships in binutils-source
(/usr/src/binutils/binutils-*.tar.xz; `apt-get install -y binutils-source`).
It is configured once per bench run (its ./configure: many short sh, sed,
cc1, as, ld), then each tracer run starts, at the moment the tracer is
launched, a loop of: a fresh copy of the configured tree, `make -j2` in
it (about 8 s on a quiet 2-core machine), so the window is full of short
cc1, as, sh, make processes whose binaries the tracer meets
for the first time in their life. A project nobody here wrote (not this
repository's sources), and the one that needs no autotools: Debian's
libxcrypt-source and others lack their generated configure scripts.

Rounds interleave the tracers (the order alternates): `ftf-bpf -a -g -d
DURATION` of the build (and of --baseline, an older binary, in the same
rounds), then `perf record -a --call-graph dwarf -F FREQ -k
CLOCK_MONOTONIC -- sleep DURATION` (FREQ defaults to ftf-bpf's -g
frequency, 99 Hz: `ftf-bpf --help`).

"whole", one rule for both tracers, on each sample's user frames (those
below the kernel's; a sample with none, a kernel thread's or the idle
task's, is left out of the user-stack shares, and so is a sample taken
inside execve, do_execveat_common among its kernel frames: the
registers are the old image's and its memory is gone, so neither
tracer can walk it; the bench prints how many), outermost first: the
outermost user frame is the program's entry (named _start, or at its
file's ELF entry point: most Debian binaries are stripped) or glibc's
clone3 (a new thread's start, where glibc's CFI ends), and ftf-bpf did
not mark the stack "[unwind stopped: REASON]". That is what
tests/unwind/test_stack_copy.py and test_edges.py call whole; the bench
checks it gives the test's answer on freshwl's samples before it starts.
"reach libc" is looser: the outermost frame is also allowed to be
__libc_start_call_main, __libc_start_main or start_thread (one frame
short of the entry: perf's elfutils unwinder ends most stacks at
__libc_start_call_main). "unnamed outermost": not marked stopped, but
the outermost frame is in no mapping the trace knows (the process was
gone before its mappings were read: the walk may have been whole, the
frames are unnamed).

A sample's process name is the last name its thread had in the trace
(ftf-bpf: the thread's kernel object records; perf: the last comm perf
script shows for the tid), so a process that forked from make and exec'd
cc1 counts as cc1 in both.

Printed, medians over the rounds (min..max): the on-CPU samples with a
user stack, the whole share and the "reach libc" share, samples lost
(ftf-bpf: its summary's on-CPU "lost"; perf: LOST records of perf report
--stats), start-up (ftf-bpf: launch to its "tracing" line; perf: launch
to its first sample), file bytes per sample (the whole output / the
samples it holds), ftf-bpf's Perfetto bytes per sample and its BPF ns per
on-CPU sample (kernel.bpf_stats_enabled=1 for the run, from its summary);
then per process name with 10 samples or more (all rounds together) the
whole share of each tracer, and the top stop reasons of ftf-bpf.
The 1-minute load average is printed for each run.
"""
import argparse
import collections
import glob
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "integration"))
from test_stacks import fields, get, get_all, read_ftf  # noqa: E402
from stacks_bench import entry_offset, perf_lost  # noqa: E402

KERNEL = "[kernel.kallsyms]"
THREAD_ROOTS = {"clone3", "__clone3"}
LIBC_ROOTS = {"__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl", "start_thread"}
STOP = "[unwind stopped"
# a sample inside execve: the old image's registers, its memory gone; no
# tracer can walk its user stack, so both leave it out of the shares
IN_EXEC = "inside execve"


def exec_frame(name):
    return bool(name) and name.startswith("do_execveat_common")


# ---- the load ----------------------------------------------------------------

def prepare_load(scratch):
    """Unpacks libiberty from binutils-source and configures it once;
    returns the configured tree."""
    tars = sorted(glob.glob("/usr/src/binutils/binutils-*.tar.xz"))
    if not tars:
        sys.exit("system_stacks_bench.py: no /usr/src/binutils/binutils-*.tar.xz: "
                 "apt-get install -y binutils-source")
    top = os.path.basename(tars[-1])[:-len(".tar.xz")]
    parts = ["libiberty", "include", "config", "config.guess", "config.sub", "install-sh",
             "missing", "mkinstalldirs"]
    subprocess.run(["tar", "xJf", tars[-1], "-C", scratch, *(f"{top}/{p}" for p in parts)], check=True)
    tree = os.path.join(scratch, top)
    t0 = time.monotonic()
    subprocess.run(["./configure"], cwd=os.path.join(tree, "libiberty"), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"load: make -j2 of {top}/libiberty (configured in {time.monotonic() - t0:.1f} s), "
          f"a fresh copy each time, in a loop", flush=True)
    return tree


class Build:
    """The build loop, started with start() and ended with stop()."""

    def __init__(self, tree, scratch):
        work = os.path.join(scratch, "work")
        self.cmd = (f"while :; do rm -rf {work}; cp -a {tree} {work} && "
                    f"make -j2 -C {work}/libiberty >/dev/null 2>&1; done")
        self.p = None

    def start(self):
        self.p = subprocess.Popen(["sh", "-c", self.cmd], start_new_session=True)

    def stop(self):
        os.killpg(self.p.pid, signal.SIGKILL)
        self.p.wait()


# ---- the "whole" rule --------------------------------------------------------

class Entries:
    """The file offset of each path's ELF entry point, read once."""

    def __init__(self):
        self.off = {}

    def at(self, path, rel):
        if path not in self.off:
            self.off[path] = entry_offset(path) if path.startswith("/") and os.path.exists(path) else None
        e = self.off[path]
        return e is not None and rel is not None and e <= rel < e + 0x40


def classify(user, stopped, entries):
    """('whole' | 'libc' | 'no'): user = [(name, path, file offset)],
    outermost first, without the stop frame."""
    if not user:
        return "no"
    name, path, rel = user[0]
    root_ok = name == "_start" or name in THREAD_ROOTS or entries.at(path, rel)
    if root_ok and not stopped:
        return "whole"
    if root_ok or name in LIBC_ROOTS:
        return "libc"
    return "no"


# ---- ftf-bpf's samples ---------------------------------------------------------

def ftf_thread_names(dump, out):
    """{tid: the last name of the thread} from the trace's kernel objects."""
    txt = subprocess.run([dump, out], capture_output=True, text=True).stdout
    names = {}
    for m in re.finditer(r'KernelObject\(koid: (\d+), type: thread, name: "((?:[^"\\]|\\.)*)"', txt):
        names[int(m[1])] = m[2]
    return names


def ftf_samples(out):
    """[(pid, tid, user frames outermost first as (name, path, offset),
    stop reason or None)] of the on-CPU samples."""
    _, stream = read_ftf(out)
    seqs, res = {}, []
    for _, pkt in fields(stream):
        q = seqs.setdefault(get(pkt, 10), dict(names={}, paths={}, maps={}, frames={}, stacks={},
                                               tasks={}, tb=None))
        defaults = get(pkt, 59)
        if defaults:
            tb = get(get(get(defaults, 100), 2), 2)
            q["tb"] = tb.decode() if tb else None
        inter = get(pkt, 12)
        if inter:
            for n, v in fields(inter):
                iid = get(v, 1)
                if n == 5:
                    q["names"][iid] = get(v, 2).decode(errors="replace")
                elif n == 17:
                    q["paths"][iid] = get(v, 2).decode(errors="replace")
                elif n == 19:
                    q["maps"][iid] = "/".join(q["paths"][p] for p in get_all(v, 7))
                elif n == 6:
                    q["frames"][iid] = (q["names"].get(get(v, 2, 0)), q["maps"][get(v, 3)], get(v, 4, 0))
                elif n == 7:
                    q["stacks"][iid] = [q["frames"][x] for x in get_all(v, 2)]
                elif n == 48:
                    q["tasks"][iid] = (get(v, 2), get(v, 3))
        ss = get(pkt, 135)
        if ss is None or q["tb"] != "on-CPU samples":
            continue
        pid, tid = q["tasks"][get(ss, 2)]
        frames = q["stacks"][get(ss, 6)]
        stops = [f[0] for f in frames if f[0] and f[0].startswith(STOP)]
        user = [f for f in frames if f[1] != KERNEL and not (f[0] and f[0].startswith(STOP))]
        reason = stops[0][len(STOP) + 2:-1] if stops else None
        if any(f[1] == KERNEL and exec_frame(f[0]) for f in frames):
            reason = IN_EXEC
        res.append((pid, tid, user, reason))
    return res


# The baseline's own unwind cache (when --cache is not given): two
# binaries of different table formats in one cache refuse and rebuild
# each other's files every round (cache format 2 -> 3: 63 of them).
BASELINE_CACHE = "/var/cache/ftf-bpf-bench-baseline"


def ftf_run(tool, dump, a, out, build, baseline=False):
    """One ftf-bpf -a -g run beside the build: a result dict."""
    env = dict(os.environ)
    if a.cache:
        env["FTF_BPF_UNWIND_CACHE"] = a.cache
    elif baseline:
        env["FTF_BPF_UNWIND_CACHE"] = BASELINE_CACHE
    t0 = time.monotonic()
    build.start()
    p = subprocess.Popen([tool, "-a", "-g", "--freq", str(a.freq), "-d", f"{a.duration}s", "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    startup, seen = None, []
    for line in p.stderr:
        seen.append(line)
        if "tracing" in line:
            startup = time.monotonic() - t0
            break
    load = os.getloadavg()[0]
    err = "".join(seen) + p.stderr.read()
    p.wait()
    load = max(load, os.getloadavg()[0])
    build.stop()
    if p.returncode or startup is None:
        sys.exit(f"{tool} failed ({p.returncode}):\n{err[-2000:]}")
    m = re.search(r"stacks: (\d+) on-CPU samples \((\d+) lost\).*?([\d.]+) bytes per sample", err)
    bpf = re.search(r"([\d.]+) ns per on-CPU sample", err)
    names = ftf_thread_names(dump, out)
    r = dict(startup=startup, load=load, samples=int(m[1]), lost=int(m[2]), pkt=float(m[3]),
             bpf=float(bpf[1]) if bpf else None, bytes=os.path.getsize(out) / max(int(m[1]), 1),
             summary=err)
    r["rows"] = [(names.get(tid, f"tid {tid}"), user, reason) for pid, tid, user, reason in ftf_samples(out)]
    return r


# ---- perf's samples ------------------------------------------------------------

HDR = re.compile(r"^(.*?)\s+(\d+)\s+(\d+\.\d+):")
FRAME = re.compile(r"^\s*([0-9a-f]+) (.*) \(([^()]*)\)$")


def perf_samples(pdata):
    """[(tid, comm, time, user frames outermost first)] from perf script."""
    out = subprocess.run(["perf", "script", "-i", pdata, "-F", "comm,tid,time,ip,sym,dsoff"],
                         capture_output=True, text=True, errors="replace").stdout
    res = []
    for block in out.split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln.strip()]
        if not lines:
            continue
        h = HDR.match(lines[0])
        if not h:
            continue
        user, in_exec = [], False
        for ln in lines[1:]:
            f = FRAME.match(ln)
            if f and int(f[1], 16) >= 0xffff800000000000 and exec_frame(f[2]):
                in_exec = True
            if not f or f[3] == "inlined" or int(f[1], 16) >= 0xffff800000000000:
                continue
            dm = re.match(r"(.*)\+0x([0-9a-f]+)$", f[3])
            path, off = (dm[1], int(dm[2], 16)) if dm else (f[3], None)
            user.append((f[2], path, off))
        res.append((int(h[2]), h[1].strip(), float(h[3]), user[::-1], in_exec))
    return res


def perf_run(a, pdata, build):
    t0 = time.monotonic()
    build.start()
    p = subprocess.Popen(["perf", "record", "-q", "-a", "--call-graph", "dwarf", "-F", str(a.freq),
                          "-k", "CLOCK_MONOTONIC", "-o", pdata, "--", "sleep", str(a.duration)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    load = os.getloadavg()[0]
    err = p.communicate()[1]
    load = max(load, os.getloadavg()[0])
    build.stop()
    if p.returncode:
        sys.exit(f"perf record failed ({p.returncode}):\n{err[-2000:]}")
    rows = perf_samples(pdata)
    last = {}
    for tid, comm, _, _, _ in rows:
        # (":TID" when perf met no comm record of it: a name it had
        # before or after wins)
        if not comm.startswith(":") or tid not in last:
            last[tid] = comm
    first = min((t for _, _, t, _, _ in rows), default=None)
    return dict(startup=first - t0 if first else None, load=load, samples=len(rows),
                lost=perf_lost(pdata), pkt=None, bpf=None,
                bytes=os.path.getsize(pdata) / max(len(rows), 1),
                rows=[(last[tid], user, IN_EXEC if in_exec else None)
                      for tid, _, _, user, in_exec in rows])


# ---- the sanity check on freshwl -----------------------------------------------

def sanity(tool, a, scratch, entries):
    """The rule against test_stack_copy.py's on freshwl's samples
    (whole: outermost user frame _start, nothing stopped)."""
    wl = os.path.join(a.build, "tests", "unwind", "freshwl")
    if not os.path.exists(wl):
        sys.exit(f"system_stacks_bench.py: {wl} not built")
    fresh = os.path.join(scratch, "freshwl-copy")
    shutil.copy(wl, fresh)
    out = os.path.join(scratch, "fresh.fxt")
    env = dict(os.environ, FTFB_FAULT_SLOW_UW_BUILD_S="1", FTF_BPF_UNWIND_CACHE="off")
    subprocess.run([tool, "-g", "--freq", "999", "-o", out, "--", "sh", "-c", f"exec {fresh} 4"],
                   capture_output=True, env=env, check=True)
    n = same = 0
    for _, _, user, reason in ftf_samples(out):
        if not any(p == fresh for _, p, _ in user):
            continue
        n += 1
        test_whole = user[0][0] == "_start" and reason is None
        same += test_whole == (classify(user, reason, entries) == "whole")
    print(f"sanity: freshwl, {n} samples: the rule agrees with test_stack_copy.py's on {same}", flush=True)
    if n == 0 or same != n:
        sys.exit("system_stacks_bench.py: the rule disagrees with the test's")


# ---- the report ----------------------------------------------------------------

def tally(r, entries):
    """Fills r's user-stack counts: whole, libc, per name, stop reasons."""
    r["user"] = r["whole"] = r["libc"] = r["unnamed"] = r["in_exec"] = 0
    r["by"] = collections.defaultdict(lambda: [0, 0])
    r["stops"] = collections.Counter()
    r["stops_by"] = collections.defaultdict(collections.Counter)
    for comm, user, reason in r["rows"]:
        if not user:
            continue
        if reason == IN_EXEC:
            r["in_exec"] += 1
            continue
        c = classify(user, reason, entries)
        r["user"] += 1
        r["whole"] += c == "whole"
        r["libc"] += c != "no"
        r["unnamed"] += c == "no" and not reason and user[0][1] in ("[anon]", "[unknown]")
        r["by"][comm][0] += 1
        r["by"][comm][1] += c == "whole"
        if c != "whole":
            why = reason or why_not(user[0])
            r["stops"][why] += 1
            r["stops_by"][comm][why] += 1
    del r["rows"]


def why_not(root):
    """Why a stack not marked stopped is not whole: where it ends."""
    name, path, _ = root
    if path in ("[anon]", "[unknown]"):
        return "not stopped, outermost frame unnamed (in no mapping the trace knows)"
    return f"not stopped, ends at {name or '?'} in {os.path.basename(path)}"


def span(v, fmt):
    v = [x for x in v if x is not None]
    if not v:
        return "n/a"
    return f"{fmt.format(statistics.median(v))} ({fmt.format(min(v))}..{fmt.format(max(v))})"


def report(res, a):
    print(f"\n-a -g beside make -j2, {a.duration} s, {a.freq} Hz, medians of {a.rounds} rounds (min..max)")
    rows = [("user-stack samples", "user", "{:.0f}"), ("inside execve (left out)", "in_exec", "{:.0f}"),
            ("whole", "pct", "{:.1f}%"),
            ("reach libc", "pct_libc", "{:.1f}%"), ("unnamed outermost", "pct_unnamed", "{:.1f}%"),
            ("on-CPU samples lost", "lost", "{:.0f}"),
            ("start-up s", "startup", "{:.2f}"), ("file bytes/sample", "bytes", "{:.0f}"),
            ("Perfetto bytes/sample", "pkt", "{:.1f}"), ("BPF ns/sample", "bpf", "{:.0f}"),
            ("load average", "load", "{:.1f}")]
    ks = list(res)
    print(f"{'':26}" + "".join(f"{k:>28}" for k in ks))
    for label, key, fmt in rows:
        print(f"{label:26}" + "".join(f"{span([r[key] for r in res[k]], fmt):>28}" for k in ks))
    print("\nper process name with 10 samples or more (all rounds): samples, whole")
    tot = {k: collections.defaultdict(lambda: [0, 0]) for k in ks}
    for k in ks:
        for r in res[k]:
            for comm, (n, w) in r["by"].items():
                tot[k][comm][0] += n
                tot[k][comm][1] += w
    comms = {c for k in ks for c, (n, _) in tot[k].items() if n >= 10}
    print(f"{'':16}" + "".join(f"{k:>24}" for k in ks))
    for c in sorted(comms, key=lambda c: -sum(tot[k][c][0] for k in ks)):
        cells = []
        for k in ks:
            n, w = tot[k].get(c, (0, 0))
            cells.append(f"{n:>8} {100 * w / n:6.1f}%" if n else "-")
        print(f"{c[:16]:16}" + "".join(f"{x:>24}" for x in cells))
    for k in ks:
        st = collections.Counter()
        by = collections.defaultdict(collections.Counter)
        for r in res[k]:
            st.update(r["stops"])
            for comm, cnt in r["stops_by"].items():
                by[comm].update(cnt)
        print(f"\n{k}: top reasons a user stack is not whole (all rounds; ftf-bpf's "
              f"'[unwind stopped: REASON]' or where it ends)")
        for why, n in st.most_common(6):
            print(f"  {n:7}  {why}")
        low = [c for c in comms if tot[k][c][0] >= 10 and tot[k][c][1] < 0.95 * tot[k][c][0]]
        for c in sorted(low, key=lambda c: -tot[k][c][0]):
            top = ", ".join(f"{why} {n}" for why, n in by[c].most_common(3))
            n, w = tot[k][c]
            print(f"  below 95%: {c} {100 * w / n:.1f}% of {n}: {top}")


def one_round(rnd, tools, dump, a, scratch, build, entries, res):
    confs = [*tools, "perf dwarf"]
    for k in (confs if rnd % 2 == 0 else confs[::-1]):
        if k == "perf dwarf":
            r = perf_run(a, os.path.join(scratch, "perf.data"), build)
        else:
            out = os.path.join(scratch, f"{k}.fxt")
            r = ftf_run(tools[k], dump, a, out, build, baseline=k != "ftf-bpf")
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                shutil.copy(out, os.path.join(a.keep, f"{k}-{rnd}.fxt"))
        tally(r, entries)
        r["pct"] = 100 * r["whole"] / max(r["user"], 1)
        r["pct_libc"] = 100 * r["libc"] / max(r["user"], 1)
        r["pct_unnamed"] = 100 * r["unnamed"] / max(r["user"], 1)
        res[k].append(r)
        up = "n/a" if r["startup"] is None else f"{r['startup']:.2f} s"
        print(f"  round {rnd + 1} {k:<16} load {r['load']:4.1f}: {r['user']} user-stack samples, "
              f"{r['pct']:.1f}% whole, {r['lost']} lost, start-up {up}", flush=True)
        for ln in r.get("summary", "").splitlines():
            if re.search(r"user stacks|unwind tables|unwind cache", ln):
                print("      " + ln.strip(), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--baseline", help="an older ftf-bpf binary to run in the same rounds")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=20)
    ap.add_argument("--freq", type=int, default=99, help="both tracers' frequency (ftf-bpf's -g default)")
    ap.add_argument("--cache", help="FTF_BPF_UNWIND_CACHE for the ftf-bpf runs (default: the build's "
                    f"own, the default one; the baseline's {BASELINE_CACHE})")
    ap.add_argument("--keep", help="a directory to keep the ftf-bpf traces in")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("system_stacks_bench.py: needs root (BPF, perf -a): run it with sudo")
    tools = {"ftf-bpf": os.path.join(a.build, "src", "ftf-bpf")}
    if a.baseline:
        tools = {"ftf-bpf baseline": os.path.abspath(a.baseline), **tools}
    dump = os.path.join(a.build, "tools", "ftf-dump")
    for t in [*tools.values(), dump]:
        if not os.access(t, os.X_OK):
            sys.exit(f"system_stacks_bench.py: {t} is not an executable")
    old = open("/proc/sys/kernel/bpf_stats_enabled").read().strip()
    subprocess.run(["sysctl", "-q", "kernel.bpf_stats_enabled=1"], check=True)
    scratch = tempfile.mkdtemp(prefix="system-stacks-bench.")
    entries = Entries()
    try:
        sanity(tools["ftf-bpf"], a, scratch, entries)
        build = Build(prepare_load(scratch), scratch)
        print(f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}; unwind cache: "
              f"{a.cache or 'the default'}", flush=True)
        res = {k: [] for k in [*tools, "perf dwarf"]}
        for rnd in range(a.rounds):
            one_round(rnd, tools, dump, a, scratch, build, entries, res)
        report(res, a)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        subprocess.run(["sysctl", "-q", f"kernel.bpf_stats_enabled={old}"])


if __name__ == "__main__":
    main()
