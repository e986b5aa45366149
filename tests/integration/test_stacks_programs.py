#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a -g --events=waker: every stack program attached, all with one set of
maps, and each kind of stack in the trace from the start of a workload.

The stack programs are loaded as two copies of one object, verified on
two threads (src/loader/load_twins.h): the off-CPU and waker programs in
one, the on-CPU sampler and the unwind tables' programs in the other.
Nothing of that may show: while ftf-bpf traces, the kernel's view of it
(its bpf link fds in /proc/PID/fdinfo, and bpftool's of their programs
and maps) must show each program attached, the on-CPU sampler on every
online cpu, and every map the programs share one map, not one per copy
(a stack hash marked sent by one program and unknown to another, a
thread's blocked state written by one and read by another, would split
otherwise). Then stackwl runs (spinner: about 1 s of CPU in spin_fn;
sleeper: 100 naps in sleep_loop), started once ftf-bpf traces, and its
samples are checked against what it measured of itself.

usage: test_stacks_programs.py FTF_BPF FTF_DUMP STACKWL OUTDIR
"""
import json
import os
import re
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, Tracer, check, run_main, skip_unless_root  # noqa: E402
from perfetto_view import read_ftf  # noqa: E402
from test_kthread_samples import check_kernel_threads  # noqa: E402
from test_stacks import decode_samples, innermost_user  # noqa: E402

FREQ = 99
PROGRAMS = ["ftfb_cpu_sample", "ftfb_offcpu_switch", "ftfb_waker_stack",
            "ftfb_uw_exec", "ftfb_uw_fork", "ftfb_uw_exit"]


def online_cpus():
    """The number of online cpus (/sys's list, as "0-1,3")."""
    n = 0
    with open("/sys/devices/system/cpu/online") as f:
        for part in f.read().strip().split(","):
            lo, _, hi = part.partition("-")
            n += int(hi or lo) - int(lo) + 1
    return n


def link_prog_ids(pid):
    """The program id of each bpf link fd process pid holds (fdinfo)."""
    ids = []
    fddir = f"/proc/{pid}/fdinfo"
    for fd in os.listdir(fddir):
        try:
            with open(os.path.join(fddir, fd)) as f:
                info = f.read()
        except OSError:
            continue
        m = re.search(r"^prog_id:\s*(\d+)", info, re.M)
        if "link_type:" in info and m:
            ids.append(int(m[1]))
    return ids


def bpftool(*args):
    return json.loads(subprocess.run(["bpftool", "-j", *args], check=True,
                                     capture_output=True, text=True).stdout)


def check_kernel_view(pid):
    """The attached stack programs and their maps, as the kernel has them."""
    links = link_prog_ids(pid)
    progs = {i: bpftool("prog", "show", "id", str(i)) for i in set(links)}
    attached = {}
    for i in links:
        attached.setdefault(progs[i]["name"], []).append(i)
    print("  links of ftf-bpf:", {n: len(v) for n, v in sorted(attached.items())})
    for name in PROGRAMS:
        check(name in attached, f"{name} attached")
    ncpus = online_cpus()
    check(len(attached["ftfb_cpu_sample"]) == ncpus,
          f"the on-CPU sampler on each of the {ncpus} online cpus "
          f"({len(attached['ftfb_cpu_sample'])} links)")
    maps = {}  # map name -> ids, over the stack programs
    for name in PROGRAMS:
        for pid_ in set(attached[name]):
            for mid in progs[pid_].get("map_ids", []):
                m = bpftool("map", "show", "id", str(mid))
                maps.setdefault(m["name"], set()).add(mid)
    print("  maps of the stack programs:", {n: sorted(v) for n, v in sorted(maps.items())})
    for must in ("sent", "scratch", "uw_bufs", "uw_procs", "blocked"):
        check(must in maps, f"the programs use map {must}")
    split = {n: sorted(v) for n, v in maps.items() if len(v) > 1}
    check(not split, f"each map one map for all the stack programs (two of: {split})")


def test(tool, ftf_dump, wl, outdir):
    skip_unless_root()
    out = os.path.join(outdir, "stacks-programs.fxt")
    w = subprocess.Popen([wl, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        tr = Tracer(tool, ["-a", "-g", "--events=waker", "--freq", str(FREQ), "-o", out])
        check_kernel_view(tr.p.pid)
        stdout, _ = w.communicate(input="go\n", timeout=120)
    finally:
        if w.poll() is None:
            w.kill()
    tr.signal(signal.SIGINT)
    check(tr.wait() == 0, "exit 0")
    print("  stackwl printed:\n    " + stdout.strip().replace("\n", "\n    "))
    m = re.search(r"spinner tid=(\d+) cpu_ns=(\d+)", stdout)
    spin_tid, spin_ns = int(m[1]), int(m[2])
    m = re.search(r"sleeper tid=(\d+) slept_ns=(\d+) naps=(\d+)", stdout)
    sleep_tid, naps = int(m[1]), int(m[3])

    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    on = [s for s in samples if s["kind"] == "on-CPU samples" and s["tid"] == spin_tid
          and innermost_user(s["frames"]) == "spin_fn"]
    off = [s for s in samples if s["kind"] == "off-CPU time (ns)" and s["tid"] == sleep_tid
           and any(f[0] == "sleep_loop" for f in s["frames"])]
    waker = [s for s in samples if s["kind"] == "waker stacks"]
    want_on = spin_ns * FREQ / 1e9
    print(f"  {len(on)} on-CPU samples of the spinner in spin_fn (its CPU time x {FREQ} Hz: "
          f"{want_on:.0f}), {len(off)} off-CPU stacks of the sleeper in sleep_loop ({naps} "
          f"naps), {len(waker)} waker stacks")
    check(len(on) >= want_on / 2, "the spinner's on-CPU samples in spin_fn (half of its "
          "CPU time's worth at least)")
    check(len(off) >= naps / 2, "the sleeper's off-CPU stacks in sleep_loop (half of its "
          "naps at least)")
    check(waker, "waker stacks (--events=waker)")
    check_kernel_threads(samples)


def main():
    test(*sys.argv[1:5])


if __name__ == "__main__":
    run_main(main)
