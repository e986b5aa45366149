#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Stacks of threads blocking, found again from chains seen before
(bpf/kstack_cache.bpf.h, bpf/ustack_cache.bpf.h) instead of unwound each
time: they must be the stacks an unwind would give, and found again most
of the time.

kstackwl's thread "blocker" blocks ROUNDS times in each of three kernel
paths in turn: read(2) of a pipe under wait_pipe, read(2) of a unix
socket under wait_sock (the same system call: a cached chain of one must
never be given for the other) and nanosleep under wait_sleep; the two
reads go through one function (read_from), so their user stacks have the
same registers and differ only above them. Each of its off-CPU stacks is
checked by its user frames against its kernel frames (two caches, each
checking its own): under wait_pipe the kernel frames must
hold the pipe's read (anon_pipe_read, pipe_read) and nothing of the
socket's or of nanosleep, and so on for each. The kernel's own function
names come from /proc/kallsyms, so the test knows which this kernel has.

The tracer's summary says how many stacks it found again; the
blocker alone blocks 3 x ROUNDS times in three places, so nearly all must
be: a chain's slots are counted from the tracer's frame, which the
kernel's random offset of a system call's stack moves with them, and
each path is one key (its system call, the return addresses into
schedule()'s caller and into that one's caller), so each path's first
block is unwound and the rest found again (when the slots were counted
from pt_regs, each of the 64 offsets was unwound once: about 80%).

usage: test_kstack_cache.py FTF_BPF FTF_DUMP KSTACKWL OUTDIR
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, check, run_main, skip_unless_root  # noqa: E402
from perfetto_view import read_ftf  # noqa: E402
from test_stacks import decode_samples  # noqa: E402

ROUNDS = 300
KERNEL = "[kernel.kallsyms]"


def kallsyms_names():
    with open("/proc/kallsyms") as f:
        return {line.split()[2] for line in f}


def kinds(names):
    """Each wait function's kernel marks (the names this kernel has)."""
    want = {
        "wait_pipe": ["anon_pipe_read", "pipe_read"],
        "wait_sock": ["unix_stream_read_generic", "unix_stream_recvmsg"],
        "wait_sleep": ["do_nanosleep", "hrtimer_nanosleep"],
    }
    got = {k: [n for n in v if n in names] for k, v in want.items()}
    check(all(got.values()), f"this kernel has a function of each path: {got}")
    return got


def test():
    skip_unless_root()
    tool, ftf_dump, wl, outdir = sys.argv[1:5]
    marks = kinds(kallsyms_names())
    out = os.path.join(outdir, "kstack-cache.fxt")
    args = [tool, "-g", "-o", out, "--", wl, str(ROUNDS)]
    print("  run:", " ".join(args))
    p = subprocess.run(args, capture_output=True, text=True, timeout=180)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    m = re.search(r"blocker tid=(\d+) rounds=(\d+)", p.stdout)
    check(m is not None, f"kstackwl finished: {p.stdout!r}")
    tid = int(m[1])

    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    _, samples = decode_samples(read_ftf(out)[1])
    off = [s for s in samples if s["kind"] == "off-CPU time (ns)" and s["tid"] == tid]
    by_kind, chains, wrong = collections.Counter(), collections.defaultdict(collections.Counter), []
    for s in off:
        user = {fn for fn, path in s["frames"] if path != KERNEL}
        kernel = [fn for fn, path in s["frames"] if path == KERNEL]
        kind = [k for k in marks if k in user]
        if len(kind) != 1:
            continue  # (the first blocks: thread start, the feeder's creation)
        kind = kind[0]
        by_kind[kind] += 1
        chains[kind][tuple(kernel)] += 1
        mine = any(fn in marks[kind] for fn in kernel)
        others = [fn for fn in kernel for k in marks if k != kind and fn in marks[k]]
        if not mine or others:
            wrong.append((kind, kernel))
    print(f"  blocker: {len(off)} off-CPU stacks; by wait function {dict(by_kind)}")
    for kind, c in chains.items():
        top = c.most_common(1)[0]
        print(f"    {kind}: {len(c)} distinct kernel chains, the commonest ({top[1]}x): {list(top[0])[:8]}")
    check(not wrong, f"each stack's kernel frames are its wait's path, none of the others': "
                     f"{len(wrong)} not, first {wrong[:2]}")
    # (each round blocks in each; a read the feeder answered before the
    # blocker slept, on a busy machine, blocks not: margins)
    check(all(by_kind[k] >= ROUNDS // 2 for k in marks),
          f"at least {ROUNDS // 2} stacks of each wait: {dict(by_kind)}")

    m = re.search(r"stacks of threads blocking found again .*: kernel (\d+) of (\d+) .*, user (\d+) of (\d+)",
                  p.stderr)
    check(m is not None, "the summary counts the stacks found again")
    kfound, kall, ufound, uall = (int(x) for x in m.groups())
    # (a handful of keys: the three paths, the threads' starts and ends;
    # margin for a stack the kernel gave truncated on a busy machine)
    check(kfound >= 0.9 * kall, f"nearly all kernel stacks at blocks found again: {kfound} of {kall}")
    # (the user stacks have no random offsets: all but each chain's
    # first are found again, two chains under one key included)
    check(ufound >= 0.8 * uall, f"most user stacks at blocks found again: {ufound} of {uall}")


if __name__ == "__main__":
    run_main(test)
