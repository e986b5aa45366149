#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-a -g: no on-CPU sample of a kernel thread has user frames.

A kernel thread has no user stack. The walker keeps its last walk's
state in a per-cpu buffer; a sample that walks no user stack was once
sent as the stack copy of the walk before it on its cpu when that walk
had stopped "tables not loaded yet", under the kernel thread's own ids:
rcu_preempt and kworkers carried another process's user frames (29 of
64 kernel-thread samples in 4 s of this test's churn, 42 of 166 in 15 s
beside a gcc loop). The churn here makes both: new short processes
(`sh -c ls`: their first samples come before their tables) and kernel
threads on the cpus (`sync -f`: writeback, journal). Kernel threads are
told from /proc (PF_KTHREAD in /proc/PID/stat's flags).

usage: test_kthread_samples.py FTF_BPF FTF_DUMP OUTDIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, check, run_main, skip_unless_root  # noqa: E402
from perfetto_view import read_ftf  # noqa: E402
from test_stacks import decode_samples  # noqa: E402

PF_KTHREAD = 0x00200000  # include/linux/sched.h
KERNEL = "[kernel.kallsyms]"
CHURN = "end=$((SECONDS+{secs})); while [ $SECONDS -lt $end ]; do " \
        "sh -c 'ls /usr/bin > /dev/null'; sync -f {file}; done"


def kernel_threads():
    """The tids of the kernel threads alive now (/proc/PID/stat's flags)."""
    tids = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        flags = int(stat[stat.rindex(")") + 2:].split()[6])
        if flags & PF_KTHREAD:
            tids.add(int(pid))
    return tids


def check_kernel_threads(samples, least=0):
    """No on-CPU sample of a kernel thread has user frames (and there
    are at least `least` such samples to look at)."""
    kt = kernel_threads()
    mine = [s for s in samples if s["kind"] == "on-CPU samples" and s["tid"] in kt]
    bad = [s for s in mine if any(path != KERNEL for _, path in s["frames"])]
    print(f"  {len(mine)} on-CPU samples of {len(kt)} kernel threads (/proc), "
          f"{len(bad)} with user frames (e.g. {bad[0]['frames'][:4] if bad else None})")
    check(len(mine) >= least, f"kernel threads have on-CPU samples ({least} at least)")
    check(not bad, "no kernel thread's sample has user frames")


def main():
    skip_unless_root()
    tool, ftf_dump, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "kthread-samples.fxt")
    for i in range(2):  # (the files the churn syncs, there before it)
        open(out + f".{i}", "w").close()
    churn = [subprocess.Popen(["bash", "-c", CHURN.format(secs=12, file=out + f".{i}")])
             for i in range(2)]
    try:
        p = subprocess.run([tool, "-a", "-g", "--freq", "999", "-d", "4s", "-o", out],
                           capture_output=True, text=True, timeout=120)
    finally:
        for c in churn:
            c.kill()
            c.wait()
        for i in range(2):
            os.unlink(out + f".{i}")
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    m = re.search(r"user stacks copied \(tables not loaded yet\): (\d+)", p.stderr)
    check(m and int(m[1]) > 0, "walks stopped 'tables not loaded yet' (the churn's new processes)")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    check_kernel_threads(samples, least=5)


if __name__ == "__main__":
    run_main(main)
