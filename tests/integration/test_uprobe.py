#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real-BPF integration tests of uprobe slices (run as root).

usage: test_uprobe.py MODE FTF_BPF FTF_DUMP WORKLOAD WORKLOAD_LIB OUTDIR
MODE: pid | cmd | children | symlink

The workload (tests/probe/workload.c) has exactly known behaviour: 3
threads "wl-worker-0..2", each calling work_a 1000 times (returning 2i+1),
work_b 500 times (3i), fib(10) once (177 nested calls, 10 deep, returning
55), args6(11, 22, 33, 44, 55, 66) once (returning 1001) and wl_lib_add(i,
1000) 100 times in libftfbwl.so (i + 1000). Those numbers, worked out from
the source, are what the trace must hold.
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, Tracer, check, ends_on_record_boundary, run_main, skip_unless_root  # noqa: E402

PER_THREAD = {"work_a": 1000, "work_b": 500, "fib": 177, "args6": 1, "wl_lib_add": 100}
THREADS = ["wl-worker-0", "wl-worker-1", "wl-worker-2"]


def specs(lib, binary=None):
    b = f"{binary}:" if binary else ""
    return ["-u", f"{b}work_*", "-u", f"{b}fib", "-u", f"{b}args6", "-u", f"{lib}:wl_lib_add", "--args", "6"]


def int_args(argtext):
    return {k: int(v) for k, v in re.findall(r"(\w+): u?int64\((-?\d+)\)", argtext)}


def check_trace(t, pid, stderr, main_cat="workload"):
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    check(ends_on_record_boundary(t.path), "the file ends on a record boundary")
    check("lost: 0 events" in stderr, "the summary reports 0 lost events")
    tids = {}
    for name in THREADS:
        ks = [k for k in t.kobjs if k[1] == "thread" and k[2] == name and f"process: koid({pid})" in k[3]]
        check(len(ks) >= 1, f"a thread named {name!r} of process {pid} is in the trace")
        tids[name] = ks[-1][0]
    by_tid = collections.defaultdict(list)
    for e in t.events:
        if e[5] in ("DurationBegin", "DurationEnd"):
            by_tid[e[2]].append(e)
    for name, tid in tids.items():
        evs = by_tid[tid]
        check(all(e[1] == pid for e in evs), f"{name}: every slice is on pid {pid}")
        begins = collections.Counter(e[4] for e in evs if e[5] == "DurationBegin")
        ends = collections.Counter(e[4] for e in evs if e[5] == "DurationEnd")
        for fn, n in PER_THREAD.items():
            check(begins[fn] == n and ends[fn] == n,
                  f"{name}: {fn} has {n} begins and {n} ends (got {begins[fn]}, {ends[fn]})")
        # Balanced and properly nested, in the order written.
        stack, maxdepth, fib_depth, ok = [], 0, 0, True
        work_a_rets, args6_begin, args6_ret, lib_rets = [], None, None, []
        for e in evs:
            fn, kind, args = e[4], e[5], e[6]
            if kind == "DurationBegin":
                stack.append(fn)
                maxdepth = max(maxdepth, len(stack))
                if fn == "fib":
                    fib_depth = max(fib_depth, sum(1 for s in stack if s == "fib"))
                if fn == "args6":
                    args6_begin = int_args(args)
            else:
                if not stack or stack[-1] != fn:
                    ok = False
                    break
                stack.pop()
                r = int_args(args).get("ret")
                if fn == "work_a":
                    work_a_rets.append(r)
                elif fn == "args6":
                    args6_ret = r
                elif fn == "wl_lib_add":
                    lib_rets.append(r)
        check(ok and not stack, f"{name}: begins and ends are balanced and nested")
        forced = sum(1 for e in evs if "unfinished" in e[6])
        check(forced == 0, f"{name}: every call ended by its own return, none closed as unfinished ({forced})")
        check(fib_depth == 10, f"{name}: fib nests 10 deep (got {fib_depth})")
        check(sorted(work_a_rets) == [2 * i + 1 for i in range(1000)],
              f"{name}: work_a returned 2i+1 for i = 0..999")
        check(args6_begin == {f"arg{i}": 11 * (i + 1) for i in range(6)},
              f"{name}: args6 got arguments 11, 22, ..., 66 ({args6_begin})")
        check(args6_ret == 1001, f"{name}: args6 returned 1001 (got {args6_ret})")
        check(sorted(lib_rets) == [i + 1000 for i in range(100)],
              f"{name}: wl_lib_add returned i + 1000 for i = 0..99")
    cats = {e[3] for e in t.events if e[4] == "wl_lib_add"}
    check(cats == {"libftfbwl"}, f"library calls have the library's category: {cats}")
    cats = {e[3] for e in t.events if e[4] == "work_a"}
    check(cats == {main_cat}, f"main-binary calls have the category {main_cat!r}: {cats}")
    # Scheduling is recorded too (the default for -p and --).
    check(any(s[4] in tids.values() for s in t.switches), "the workers' context switches are in the same trace")


def mode_pid(tool, ftf_dump, workload, lib, outdir, started_as=None):
    out = os.path.join(outdir, "uprobe-pid.fxt")
    wl = subprocess.Popen([started_as or workload, "--wait-stdin"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = wl.stdout.readline().split()
    pid = int(line[1])
    print(f"  workload pid={pid}")
    # With -p, LIB:FUNC is found through the process's own maps.
    tr = Tracer(tool, ["-p", str(pid), "-o", out] + specs("libftfbwl"))
    _, wl_err = wl.communicate(input="go\n", timeout=120)
    check(wl.returncode == 0, f"the workload ran to completion (exit {wl.returncode}; {wl_err.strip()[-300:]})")
    rc = tr.wait()
    check(rc == 0, f"ftf-bpf exited 0 (got {rc})")
    check_trace(Trace(ftf_dump, out), pid, tr.stderr,
                os.path.basename(started_as) if started_as else "workload")


def mode_symlink(tool, ftf_dump, workload, lib, outdir):
    """-p of a process started through a symlink of another name (as
    /usr/bin/redis-server -> redis-check-rdb): /proc/PID/exe names the
    target, the user knows the link's name; the category is the link's."""
    alias = os.path.join(os.path.dirname(os.path.abspath(workload)), "wl-alias")
    if os.path.lexists(alias):
        os.unlink(alias)
    os.symlink(os.path.basename(workload), alias)
    print(f"  {alias} -> {os.readlink(alias)}")
    mode_pid(tool, ftf_dump, workload, lib, outdir, started_as=alias)


def mode_cmd(tool, ftf_dump, workload, lib, outdir):
    out = os.path.join(outdir, "uprobe-cmd.fxt")
    # LIB:FUNC before the command runs: found through its RUNPATH.
    p = subprocess.run([tool, "-o", out] + specs("libftfbwl") + ["--", workload],
                       capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -- workload exited 0 (got {p.returncode})")
    pid = int(p.stdout.split()[1])
    check_trace(Trace(ftf_dump, out), pid, p.stderr)


def mode_children(tool, ftf_dump, workload, lib, outdir):
    """-- sh -c 'WL & WL; wait': the probes are on the workload's functions,
    the traced command is the shell, the calls happen in its two children.
    Without -f the link's pid filter (the shell) keeps them out; with -f
    each child holds exactly the workload's calls, and a third workload run
    by no one traced, released by the shell while the probes are attached
    without a pid filter, has none (the BPF filter on traced tgids). The -f
    run uses two ring buffers: 9 threads on 2 cpus migrate, and no call of
    a thread may overtake another on the way."""
    sib = subprocess.Popen([workload, "--wait-signal"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    sib_pid = int(sib.stdout.readline().split()[1])
    def shell(sib_pid):
        # the untraced one runs whole while the probes are attached: the
        # shell waits for it to be a zombie (this script reaps it later)
        return ["--", "sh", "-c", f"kill -USR1 {sib_pid}; {workload} & {workload}; wait; "
                f"while ! grep -q '^State:.*Z' /proc/{sib_pid}/status; do sleep 0.02; done"]
    cmd = shell(sib_pid)
    for flag in ([], ["-f", "--rings", "2"]):
        out = os.path.join(outdir, f"uprobe-children{'-f' if flag else ''}.fxt")
        p = subprocess.run([tool, *flag, "-o", out] + specs("libftfbwl", workload) + cmd,
                           capture_output=True, text=True, timeout=120)
        print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
        check(p.returncode == 0, f"ftf-bpf {' '.join(flag)} -- sh exited 0 (got {p.returncode})")
        kids = [int(line.split()[1]) for line in p.stdout.splitlines() if line.startswith("ready ")]
        check(len(kids) == 2, f"the shell ran two workloads: {kids}")
        t = Trace(ftf_dump, out)
        slices = [e for e in t.events if e[5] in ("DurationBegin", "DurationEnd")]
        if not flag:
            check(not slices, f"without -f the children's calls are not probed ({len(slices)} slices)")
            check(re.search(r"no probe fired, while \d+ tasks were forked \(processes or threads\): -f probes the traced process's children", p.stderr),
                  "the summary says -f probes the children")
            check(all(any(s[4] == k or s[3] == k for s in t.switches) for k in kids),
                  "without -f the children's scheduling is traced")
            sib.wait(timeout=120)
            sib = subprocess.Popen([workload, "--wait-signal"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            sib_pid = int(sib.stdout.readline().split()[1])
            cmd = shell(sib_pid)
            continue
        check("-f probes the traced" not in p.stderr, "with -f, no hint to add it")
        for k in kids:
            check_trace(t, k, p.stderr)
        per_child = sum(PER_THREAD.values()) * 2 * len(THREADS)
        check(len(slices) == 2 * per_child,
              f"with -f: {2 * per_child} begins and ends in all, the children's (got {len(slices)})")
        sib_out, _ = sib.communicate(timeout=120)
        check(sib.returncode == 0 and "done" in sib_out, "the untraced workload ran, all of it while the probes were attached")
        check(not [e for e in slices if e[1] == sib_pid],
              f"the untraced workload {sib_pid} has no slices")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, workload, lib, outdir = sys.argv[1:7]
    os.makedirs(outdir, exist_ok=True)
    fn = {"pid": mode_pid, "cmd": mode_cmd, "children": mode_children, "symlink": mode_symlink}[mode]
    run_main(lambda: fn(tool, ftf_dump, workload, lib, outdir))


if __name__ == "__main__":
    main()
