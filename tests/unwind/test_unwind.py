#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on code without frame pointers: nofpwl (tests/unwind/nofpwl.c, -O2
-fomit-frame-pointer, with its library libuwlib.so and Debian's libc in
its stacks). The chains expected are written from nofpwl's source:

  spinner (on CPU): spinner -> spin_a -> uwlib_spin [libuwlib.so]
                    -> libc (qsort) -> spin_cmp
  reader (off CPU): reader -> read_loop -> read_once -> libc (read)

and each stack must be whole: its outermost user frame is libc's
(clone3, under start_thread), never a "[unwind stopped: ...]" frame.
At least 90% of the spinner's on-CPU samples and every off-CPU stack of
the reader must hold their chain, in order. Before that, objdump shows
that none of nofpwl's functions sets up a frame pointer (so a frame
pointer walk could not find their callers).

usage: test_unwind.py MODE FTF_BPF FTF_DUMP NOFPWL UWLIB OUTDIR
MODE: cmd (-- nofpwl) | pid (-p PID of a running nofpwl) | attach (-p
PID of a nofpwl whose threads already run: its binaries' tables are
built before the first sample, so no stack of it may stop "not loaded
yet", and its spinner's first sample is whole) | uprobes (-u on a hot
function and -g: the samples taken while the kernel runs the probes,
with the thread at the int3 or in the [uprobes] page, walk through
them: usage then ends LOOP, the uprobe benchmark's loop, in place of
NOFPWL)

With Perfetto's trace_processor_shell (ftfcheck.trace_processor()) and
FXT_DUMP (Fuchsia's reader) set in the environment, the trace is also
read by them: Perfetto's perf_sample / stack_profile_callsite tables must show
the spinner's chain, and fxt-dump must read the file without error.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Trace, Tracer, check, run_main, skip_unless_root, tp_query  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 99
SPIN_CHAIN = ["spinner", "spin_a", "uwlib_spin", "spin_cmp"]
READ_CHAIN = ["reader", "read_loop", "read_once"]
FUNCS = SPIN_CHAIN + READ_CHAIN


def no_frame_pointers(path, funcs):
    """The functions of funcs in path that set up rbp as a frame pointer
    (mov %rsp,%rbp), from objdump's disassembly."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    with_fp = []
    for f in funcs:
        m = re.search(rf"<{f}>:\n(.*?)\n\n", out, re.S)
        if m and "mov    %rsp,%rbp" in m[1]:
            with_fp.append(f)
    return with_fp, [f for f in funcs if f"<{f}>:" in out]


def user_frames(sample):
    return [(fn, path) for fn, path in sample["frames"] if path != "[kernel.kallsyms]"]


def holds(frames, chain):
    """chain (root first) is a subsequence of the frames' names."""
    names = iter(fn for fn, _ in frames)
    return all(any(n == want for n in names) for want in chain)


def whole(frames):
    """The stack ends at libc's outermost frame, not at a stop frame."""
    return bool(frames) and "libc.so" in frames[0][1] and not any(
        fn and fn.startswith("[unwind stopped") for fn, _ in frames)


def spinner_ok(frames):
    """Its chain, with uwlib_spin in libuwlib.so and libc between it and
    spin_cmp (or, in a sanitizer build, libasan's qsort interceptor)."""
    if not holds(frames, SPIN_CHAIN) or not whole(frames):
        return False
    names = [fn for fn, _ in frames]
    i, j = names.index("uwlib_spin"), len(names) - 1 - names[::-1].index("spin_cmp")
    return "libuwlib" in frames[i][1] and any("libc.so" in p or "libasan" in p for _, p in frames[i + 1:j])


def reader_ok(frames):
    return holds(frames, READ_CHAIN) and whole(frames) and "libc.so" in frames[-1][1]


def run(mode, tool, wl, out):
    if mode == "cmd":
        # (the threads start after 2 s: the tables are built by then,
        # even in a sanitizer build, where libasan's alone take a second)
        args = ["-g", "--freq", str(FREQ), "-o", out, "--", wl, "2"]
        print("  run:", tool, " ".join(args))
        p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)
        print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
        check(p.returncode == 0, f"exit 0 (got {p.returncode})")
        return p.stdout, p.stderr
    # (its threads start on a line sent once ftf-bpf is tracing, so all
    # its reads fall in the trace however long attaching takes)
    w = subprocess.Popen([wl, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    tr = Tracer(tool, ["-g", "--freq", str(FREQ), "-o", out, "-p", str(w.pid)])
    stdout, _ = w.communicate(input="go\n", timeout=300)
    code = tr.wait()
    print("  ftf-bpf said (exit %d):\n    %s" % (code, tr.stderr.strip().replace("\n", "\n    ")))
    check(code == 0, f"exit 0 (got {code})")
    return stdout, tr.stderr


def perfetto_check(out, spin_tid):
    """The spinner's samples as Perfetto reads them: each sample's leaf
    frame and the names of its ancestors."""
    rows = tp_query(out, f"select s.id, lf.name as leaf, group_concat(f.name, ';') as up "
                         f"from perf_sample s join thread t using (utid) "
                         f"join stack_profile_callsite lc on lc.id = s.callsite_id "
                         f"join stack_profile_frame lf on lf.id = lc.frame_id "
                         f"join experimental_ancestor_stack_profile_callsite(s.callsite_id) a "
                         f"join stack_profile_frame f on f.id = a.frame_id "
                         f"where t.tid = {spin_tid} group by s.id")
    if rows is None:
        return
    chained = sum(1 for r in rows if all(f in (r["up"] or "").split(";") + [r["leaf"]] for f in SPIN_CHAIN))
    errors = tp_query(out, "select name, idx, value from stats where severity in ('error', 'data_losses') "
                           "and value > 0")
    print(f"  Perfetto: {len(rows)} perf_sample rows of the spinner, {chained} with its whole chain; "
          f"error stats: {errors}")
    check(rows and chained >= 0.9 * len(rows),
          "Perfetto's perf_sample/stack_profile_callsite show the spinner's chain in at least 90%")
    check(not errors, "Perfetto reports no error or data-loss stats")


def fxt_dump_check(out):
    fd = os.environ.get("FXT_DUMP")
    if not fd or not os.access(fd, os.X_OK):
        print("  (FXT_DUMP not set: Fuchsia's reader not run)")
        return
    p = subprocess.run([fd, out], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"Fuchsia's fxt-dump reads the trace (exit {p.returncode}: {p.stderr.strip()[:200]})")


def test(mode, tool, ftf_dump, wl, lib, outdir):
    fp_exe, found = no_frame_pointers(wl, FUNCS)
    fp_lib, found_lib = no_frame_pointers(lib, ["uwlib_spin"])
    check(len(found) + len(found_lib) == len(FUNCS) and not fp_exe + fp_lib,
          f"objdump: none of {found + found_lib} sets up a frame pointer")
    out = os.path.join(outdir, f"unwind-{mode}.fxt")
    stdout, stderr = run(mode, tool, wl, out)
    print("  nofpwl printed:\n    " + stdout.strip().replace("\n", "\n    "))
    m = re.search(r"spinner tid=(\d+) cpu_ns=(\d+)", stdout)
    spin_tid, spin_ns = int(m[1]), int(m[2])
    m = re.search(r"reader tid=(\d+) reads=(\d+)", stdout)
    read_tid, reads = int(m[1]), int(m[2])

    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    on = [user_frames(s) for s in samples if s["kind"] == "on-CPU samples" and s["tid"] == spin_tid]
    good = [f for f in on if spinner_ok(f)]
    expect = spin_ns / 1e9 * FREQ
    print(f"  spinner: {len(on)} on-CPU samples for {spin_ns / 1e9:.3f} s of CPU ({expect:.0f} expected), "
          f"{len(good)} with the whole chain {' -> '.join(SPIN_CHAIN)}")
    for f in [f for f in on if not spinner_ok(f)][:5]:
        print("    not:", " <- ".join(f"{fn}" for fn, _ in reversed(f)))
    check(0.6 * expect <= len(on) <= 1.4 * expect, "spinner's samples: its CPU time x frequency, within 40%")
    check(len(good) >= 0.9 * len(on), "at least 90% of them hold the whole chain, through libuwlib and libc")

    off = [user_frames(s) for s in samples if s["kind"] == "off-CPU time (ns)" and s["tid"] == read_tid]
    good = [f for f in off if reader_ok(f)]
    print(f"  reader: {len(off)} off-CPU stacks ({reads} reads), {len(good)} with the whole chain "
          f"{' -> '.join(READ_CHAIN)} -> libc")
    for f in [f for f in off if not reader_ok(f)][:5]:
        print("    not:", " <- ".join(f"{fn}" for fn, _ in reversed(f)))
    check(len(off) >= 0.8 * reads, "an off-CPU stack for (nearly) every read")
    check(len(good) == len(off), "every one of them holds the whole chain, from libc's read")
    m = re.search(r"user stacks: (\d+) walked: (\d+) complete", stderr)
    check(m is not None, f"the summary says how the user stacks ended ({m[0] if m else None})")
    perfetto_check(out, spin_tid)
    fxt_dump_check(out)


def test_attach(tool, ftf_dump, wl, outdir):
    """-p on a nofpwl whose spinner and reader already run (8 s of
    reads, the spinner on until they end: attaching took longer than
    3 s under ASan in CI, when its fixed work was done before): every
    stack of the process is walked from its first sample."""
    out = os.path.join(outdir, "unwind-attach.fxt")
    w = subprocess.Popen([wl, "0", "1600"], stdout=subprocess.PIPE, text=True)
    tr = Tracer(tool, ["-g", "--freq", str(FREQ), "-o", out, "-p", str(w.pid)])
    stdout, _ = w.communicate(timeout=300)
    code = tr.wait()
    print("  ftf-bpf said (exit %d):\n    %s" % (code, tr.stderr.strip().replace("\n", "\n    ")))
    check(code == 0, f"exit 0 (got {code})")
    spin_tid = int(re.search(r"spinner tid=(\d+)", stdout)[1])
    read_tid = int(re.search(r"reader tid=(\d+)", stdout)[1])
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    mine = [s for s in samples if s["tid"] in (spin_tid, read_tid)]
    mine.sort(key=lambda s: s["ts"])
    waiting = [s for s in mine if any(fn == "[unwind stopped: tables not loaded yet]"
                                      for fn, _ in s["frames"])]
    print(f"  {len(mine)} stacks of the spinner and the reader, {len(waiting)} stopped 'not loaded yet'")
    check(len(mine) >= 50, f"the threads were sampled while they ran ({len(mine)} stacks)")
    check(not waiting, "none stopped 'tables not loaded yet': the tables were built before the first sample")
    first_on = next((s for s in mine if s["kind"] == "on-CPU samples" and s["tid"] == spin_tid), None)
    # (whole and through the library; it may land in libc's qsort
    # rather than in spin_cmp)
    check(first_on is not None and whole(user_frames(first_on)) and
          holds(user_frames(first_on), ["spinner", "spin_a", "uwlib_spin"]),
          f"the spinner's first sample is whole, from libc's outermost frame through uwlib_spin: "
          f"{[fn for fn, _ in user_frames(first_on)] if first_on else None}")
    good = [s for s in mine if s["tid"] == read_tid and s["kind"] == "off-CPU time (ns)"
            and reader_ok(user_frames(s))]
    off = [s for s in mine if s["tid"] == read_tid and s["kind"] == "off-CPU time (ns)"]
    check(off and len(good) == len(off), f"every off-CPU stack of the reader holds its chain ({len(good)}/{len(off)})")


def test_uprobes(tool, ftf_dump, loop, outdir):
    """-g -u LOOP:empty_fn on a loop of 800,000 calls: nearly all its time
    is the kernel handling the probe (the int3 at empty_fn's entry, the
    uretprobe trampoline in [uprobes]); its on-CPU stacks must still be
    whole, from main through libc's __libc_start_main to _start."""
    out = os.path.join(outdir, "unwind-uprobes.fxt")
    # (a trap costs 1.5 us on one VM here, 7 on another: 300,000 calls
    # ran 0.45 s there, too few samples at 99 Hz)
    args = ["-g", "--freq", str(FREQ), "-u", f"{loop}:empty_fn", "-o", out, "--", loop, "800000"]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    _, stream = read_ftf(out)
    _, samples = decode_samples(stream)
    pid = next((s["pid"] for s in samples if any(fn == "main" for fn, _ in s["frames"])), None)
    on = [user_frames(s) for s in samples if s["kind"] == "on-CPU samples" and s["pid"] == pid]
    # (a main thread's outermost frame: _start, glibc's crt1 in LOOP)
    good = [f for f in on if f and f[0][0] == "_start" and holds(f, ["__libc_start_main", "main"])
            and not any(fn and fn.startswith("[unwind stopped") for fn, _ in f)]
    print(f"  loop: {len(on)} on-CPU samples, {len(good)} whole through main")
    for f in [f for f in on if f not in good][:5]:
        print("    not:", " <- ".join(f"{fn or path}" for fn, path in reversed(f)))
    # (95% here; 27% before the walk knew the uprobe states)
    # (its CPU time, not its wall time: on a loaded machine the loop
    # waits for a cpu, and a cpu-clock sampler sees only its running)
    m = re.search(r"(\d+) calls (\d+) ns, (\d+) ns on cpu", p.stdout)
    want = int(m[3]) / 1e9 * FREQ if m else 0
    print(f"  the loop ran {int(m[2]) / 1e9 if m else 0:.2f} s, {int(m[3]) / 1e9 if m else 0:.2f} s on cpu:"
          f" about {want:.0f} samples at {FREQ} Hz")
    check(len(on) >= 50 and len(on) >= 0.5 * want, "the loop was sampled (at least 50, and half its CPU time x the rate)")
    check(len(good) >= 0.8 * len(on), "at least 80% of them whole from _start through main, in spite of the probe")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, wl, lib, outdir = sys.argv[1:7]
    os.makedirs(outdir, exist_ok=True)
    print(f"unwind {mode}")
    if mode == "attach":
        test_attach(tool, ftf_dump, wl, outdir)
    elif mode == "uprobes":
        test_uprobes(tool, ftf_dump, wl, outdir)
    else:
        test(mode, tool, ftf_dump, wl, lib, outdir)


if __name__ == "__main__":
    run_main(main)
