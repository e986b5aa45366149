#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on code with no CFI that keeps frame pointers: Go and V8's JIT.

go: gowl (tests/unwind/gowl.go, built here with Debian's `go build`;
Go binaries have no .eh_frame) traced with `ftf-bpf -g -- gowl 1.5`
(it spins until it used 1.5 s of CPU). The program prints its own call
chains (Go's runtime.Callers):

  spin chain: main.spinLeaf main.spinMiddle main.spinOuter main.main
              runtime.main runtime.goexit
  sleep chain: main.sleeperInner main.sleeperOuter runtime.goexit

At least 95% of the process's on-CPU samples must be whole (no
"[unwind stopped: ...]" frame, the outermost user frame Go's start of
a stack: runtime.goexit, runtime.mstart or runtime.rt0_go), at least
80% must hold the spin chain in order (the main goroutine spins nearly
all the time), and the off-CPU stacks where the sleeping goroutine's
frames show (Go's scheduler blocks on the thread's g0 stack, below the
parked goroutine's frames) must all be whole and hold the sleep chain,
and be at least half as many as its sleeps.

node: `node --perf-basic-prof fib.js 300 STOP` (tests/unwind/fib.js:
fib under fibOuter under loop, JIT-compiled by V8 into anonymous memory,
named in /tmp/perf-PID.map) traced with -p once it runs, stopped 6 s
after ftf-bpf attached (however long that took): of its main
thread's on-CPU samples, at least 70% must show a JS function of the
perf map whose name says fib (the names are checked against the map
file as node wrote it), and more than half must be whole from _start
through node's main (node::Start: main tail-calls it).

usage: test_runtimes.py go|node FTF_BPF FTF_DUMP SRCDIR OUTDIR
"""
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Fail, Trace, Tracer, check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 99
GO_CPU_S = 1.5  # gowl spins until it used this much CPU: about 150 samples
GO_TOPS = {"runtime.goexit", "runtime.mstart", "runtime.rt0_go"}
# node's main (its symbol `main`) ends in a tail call of node::Start, so
# the frame under __libc_start_call_main is node::Start's
NODE_MAIN = "node::Start(int, char**)"
NODE_TRACED_CPU_S = 3  # node's loop runs this much CPU time once traced


def user_frames(sample):
    return [fn or "" for fn, path in sample["frames"] if path != "[kernel.kallsyms]"]


def stopped(frames):
    return any(fn.startswith("[unwind stopped") for fn in frames)


def holds(frames, chain):
    """chain (root first) is a subsequence of frames (root first)."""
    it = iter(frames)
    return all(any(n == want for n in it) for want in chain)


def go_whole(frames):
    return bool(frames) and frames[0].removesuffix(".abi0") in GO_TOPS and not stopped(frames)


def need(prog, pkg):
    path = shutil.which(prog)
    if not path:
        raise Fail(f"{prog} not found: install Debian's {pkg} (scripts/setup.sh does)")
    return path


def build_go(src, outdir):
    go = need("go", "golang-go")
    exe = os.path.join(outdir, "gowl")
    env = dict(os.environ, GOCACHE=os.path.join(outdir, "gocache"), GOPATH=os.path.join(outdir, "gopath"),
               GO111MODULE="off", GOFLAGS="")
    ver = subprocess.run([go, "version"], capture_output=True, text=True).stdout.strip()
    print(f"  {ver}: go build -o {exe} {src}")
    subprocess.run([go, "build", "-o", exe, src], env=env, check=True, timeout=600)
    return exe


def run_g(tool, ftf_dump, out, argv, freq, what="the workload"):
    """ftf-bpf -g --freq FREQ -o OUT -- ARGV, its words shown, its exit 0 and
    its trace whole checked; returns (the run, the trace's packet stream)."""
    args = ["-g", "--freq", str(freq), "-o", out, "--", *argv]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    print(f"  {what} printed:\n    " + p.stdout.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    return p, read_ftf(out)[1]


def show(what, stacks, n=5):
    for f in stacks[:n]:
        print(f"    {what}:", " <- ".join(reversed(f))[:600])


def test_go(tool, ftf_dump, srcdir, outdir):
    wl = build_go(os.path.join(srcdir, "gowl.go"), outdir)
    out = os.path.join(outdir, "runtime-go.fxt")
    args = ["-g", "--freq", str(FREQ), "-o", out, "--", wl, str(GO_CPU_S)]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    print("  gowl printed:\n    " + p.stdout.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    spin = list(reversed(re.search(r"spin chain: (.*)", p.stdout)[1].split()))
    sleep = list(reversed(re.search(r"sleep chain: (.*)", p.stdout)[1].split()))
    sleeps = int(re.search(r"sleeps (\d+)", p.stdout)[1])
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    pid = next((s["pid"] for s in samples if "main.spinOuter" in user_frames(s)), None)
    check(pid is not None, "some sample holds main.spinOuter")
    mine = [s for s in samples if s["pid"] == pid]
    on = [user_frames(s) for s in mine if s["kind"] == "on-CPU samples"]
    whole = [f for f in on if go_whole(f)]
    spun = [f for f in on if holds([fn.removesuffix(".abi0") for fn in f], spin)]
    print(f"  on CPU: {len(on)} samples, {len(whole)} whole ({100 * len(whole) / max(len(on), 1):.1f}%), "
          f"{len(spun)} with the spin chain {' -> '.join(spin)}")
    show("not whole", [f for f in on if not go_whole(f)])
    check(len(on) >= 50, "the spinning goroutine was sampled (at least 50 samples)")
    check(len(whole) >= 0.95 * len(on), "at least 95% whole, from runtime.goexit/mstart/rt0_go")
    check(len(spun) >= 0.8 * len(on), "at least 80% hold the chain the program printed")

    off = [user_frames(s) for s in mine if s["kind"] == "off-CPU time (ns)"]
    asleep = [f for f in off if "main.sleeperInner" in f]
    good = [f for f in asleep if go_whole(f) and holds([fn.removesuffix(".abi0") for fn in f], sleep)]
    whole_off = [f for f in off if go_whole(f)]
    print(f"  off CPU: {len(off)} stacks, {len(whole_off)} whole; {len(asleep)} with main.sleeperInner "
          f"({sleeps} sleeps), {len(good)} of them whole with the chain {' -> '.join(sleep)}")
    show("not whole", [f for f in off if not go_whole(f)])
    check(len(asleep) >= 0.5 * sleeps, "the sleeping goroutine's frames in at least half as many stacks as sleeps")
    check(len(good) == len(asleep), "each of them whole, holding the chain the program printed")
    # (the Go runtime's threads block from their first instant, before
    # -- CMD's tables are built: those stacks stop "tables not loaded
    # yet", more of them the slower the build (ASan, a loaded machine);
    # that is start-up's matter, counted apart, not the walk's)
    early = [f for f in off if "[unwind stopped: tables not loaded yet]" in f]
    print(f"  off CPU: {len(early)} stopped before the tables were loaded")
    check(len(whole_off) >= 0.95 * (len(off) - len(early)),
          "at least 95% of all off-CPU stacks walked after the tables were loaded whole")


def perf_map_names(pid):
    """The function names of node's perf map that say fib."""
    names = set()
    with open(f"/tmp/perf-{pid}.map", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and "fib" in parts[2]:
                names.add(parts[2])
    return names


def cpu_seconds(pid):
    """utime + stime of a process, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_for_cpu(pid, secs, wall_cap=240):
    """Wait until pid has used secs more of CPU (a loaded machine gives it
    less than wall time: 0.2 s in 6 s at load 22)."""
    start, deadline = cpu_seconds(pid), time.time() + wall_cap
    while cpu_seconds(pid) - start < secs and time.time() < deadline:
        time.sleep(0.2)


def test_node(tool, ftf_dump, srcdir, outdir):
    node = need("node", "nodejs")
    print("  " + subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip())
    out = os.path.join(outdir, "runtime-node.fxt")
    stop = os.path.join(outdir, "node-stop")
    if os.path.exists(stop):
        os.unlink(stop)
    w = subprocess.Popen([node, "--perf-basic-prof", os.path.join(srcdir, "fib.js"), "300", stop],
                         stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        tr = Tracer(tool, ["-g", "--freq", str(FREQ), "-o", out, "-p", str(w.pid)])
        run_for_cpu(w.pid, NODE_TRACED_CPU_S)
        open(stop, "w").close()
        stdout, _ = w.communicate(timeout=300)
        code = tr.wait()
        names = perf_map_names(w.pid)
    finally:
        if w.poll() is None:
            w.kill()
        for f in (f"/tmp/perf-{w.pid}.map", stop):
            try:
                os.unlink(f)
            except OSError:
                pass
    print(f"  node printed: {stdout.strip()}; its perf map names {len(names)} functions with fib: "
          f"{sorted(names)[:4]}")
    check(code == 0, f"exit 0 (got {code})")
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    on = [user_frames(s) for s in samples if s["kind"] == "on-CPU samples" and s["tid"] == w.pid]
    js = [f for f in on if any(fn in names for fn in f)]
    whole = [f for f in on if f and f[0] == "_start" and NODE_MAIN in f and not stopped(f)]
    print(f"  main thread: {len(on)} on-CPU samples, {len(js)} with a fib function of the perf map "
          f"({100 * len(js) / max(len(on), 1):.1f}%), {len(whole)} whole from _start through node's main "
          f"({100 * len(whole) / max(len(on), 1):.1f}%)")
    show("without fib", [f for f in on if f not in js])
    check(len(on) >= 30, "node's main thread was sampled (at least 30 samples)")
    check(len(js) >= 0.7 * len(on), "at least 70% show JS functions named from the perf map")
    check(len(whole) > 0.5 * len(on), "more than half whole, from _start through node's main")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, srcdir, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    print(f"runtime stacks: {mode}")
    if mode == "go":
        test_go(tool, ftf_dump, srcdir, outdir)
    else:
        test_node(tool, ftf_dump, srcdir, outdir)


if __name__ == "__main__":
    run_main(main)
