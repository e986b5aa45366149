#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every stop is bounded, whatever the traced processes do (issue 32,
item 2): -d and SIGTERM end the trace, with its summary and a whole
file, while the unwind table thread is stuck in an open() that never
returns or in a build that does not look at the stop.

usage: test_stop_bound.py CASE FTF_BPF FTF_DUMP OUTDIR

Cases:
  fifo        as nobody, in a user and mount namespace of its own, a
              process maps a file, then a FIFO is bind-mounted over the
              file's path: ftf-bpf -g -p PID opens it through
              /proc/PID/root to build its table, and open() waits for a
              writer that never comes. It used to wait forever (the start
              itself never ended; -d never ended it, SIGTERM ended it
              with no trace).
  slow-build  -g -a with every table build made to take an hour, deaf
              to the stop (FTFB_FAULT_SLOW_UW_BUILD_S, as a build of
              crafted CFI took minutes): the stop used to join the
              thread, for the hour.
  perfmap     as nobody, a JIT spinning in anonymous memory with a perf
              map of 4M lines, none naming the spinning address: the run
              loop's thread read it again and again (up to 8 times, each
              seconds to a minute), deaf to -d and SIGTERM.

The bounds are generous (a run must end within 20 s of its stop, where
it used to hang for good): the machine may be busy. The trace is
checked by ftf-dump --check and read by Perfetto's trace_processor.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Fail, Trace, Tracer, check, ends_on_record_boundary, run_main, skip_unless_root, tp_query  # noqa: E402

STOP_BOUND_S = 20  # generous: it was forever
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def whole_trace(ftf_dump, out, pid=None):
    """The trace is whole: ends on a record boundary, ftf-dump --check
    accepts it, Perfetto reads it (its scheduling slices, or with pid
    the process: a sleeping one never switches)."""
    check(os.path.exists(out), f"{os.path.basename(out)} was written")
    check(ends_on_record_boundary(out), f"{os.path.basename(out)} ends on a record boundary")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts it ({t.check_out.strip()[:200]})")
    if pid:
        rows = tp_query(out, f"select count(*) as n from process where pid = {pid}")
        what = f"process {pid}"
    else:
        rows = tp_query(out, "select count(*) as n from sched")
        what = "context switches"
    if rows is not None:
        check(int(rows[0]["n"]) > 0, f"trace_processor reads its {what} ({rows[0]['n']})")
    return t


def stop_and_time(tr, how, duration_s):
    """Stops tr (-d already given, or SIGTERM now); seconds from the stop
    (the -d deadline, or the signal) to its exit, and its exit status."""
    t0 = time.time()
    if how == "SIGTERM":
        tr.signal(signal.SIGTERM)
        duration_s = 0
    try:
        rc = tr.wait(timeout=duration_s + STOP_BOUND_S + 40)
    except subprocess.TimeoutExpired:
        tr.p.kill()
        tr.p.wait()
        raise Fail(f"{how}: ftf-bpf still ran {duration_s + STOP_BOUND_S + 40} s after it began tracing: killed")
    return time.time() - t0 - duration_s, rc


def check_stopped(tr, how, took, rc, ftf_dump, out, pid=None):
    print(f"  {how}: ftf-bpf exited {took:.2f} s after the stop")
    check(took < STOP_BOUND_S, f"{how}: it ends within {STOP_BOUND_S} s of the stop ({took:.2f} s)")
    check(rc == 0, f"{how}: exit status 0 (got {rc})")
    want = "duration reached" if how == "-d" else "SIGTERM"
    check(f"stopped ({want})" in tr.stderr, f"{how}: the summary says it stopped ({want})")
    check("wrote " in tr.stderr, f"{how}: the summary names the file written")
    whole_trace(ftf_dump, out, pid)


def hostile_process(d):
    """As nobody, in a user + mount namespace: a copy of sleep runs from
    d, then a FIFO is bind-mounted over its path. (the namespace's
    shell, the pid of the process)"""
    os.chmod(d, 0o777)
    script = (f"cp /bin/sleep {d}/sleep && mkfifo {d}/fifo && "
              f"{d}/sleep 100000 & t=$!; sleep 0.5; "
              f"mount --bind {d}/fifo {d}/sleep || exit 1; echo pid=$t; wait")
    cmd = [*NOBODY, "unshare", "-Urm", "sh", "-c", script]
    print("  hostile:", " ".join(cmd))
    sh = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    line = sh.stdout.readline()
    if not line.startswith("pid="):
        sh.kill()
        raise Fail(f"the hostile process did not start ({line!r})")
    pid = int(line.split("=")[1])
    with open(f"/proc/{pid}/maps") as f:
        mapped = [ln for ln in f if ln.rstrip().endswith(f"{d}/sleep")]
    check(mapped, f"pid {pid} maps {d}/sleep")
    check(os.path.exists(f"/proc/{pid}/root{d}/sleep") and
          not os.path.isfile(f"/proc/{pid}/root{d}/sleep"),
          f"in its namespace, {d}/sleep is now a FIFO")
    return sh, pid


def case_fifo(a):
    # (in /tmp: nobody reaches it)
    d = tempfile.mkdtemp(prefix="ftfb-stop-fifo-")
    sh, pid = hostile_process(d)
    try:
        for how in ("-d", "SIGTERM"):
            out = os.path.join(a.outdir, f"stop-fifo-{how.strip('-')}.fxt")
            args = ["-d", "2s"] if how == "-d" else []
            # (the start waits for the tables, 3 s at most, then traces)
            tr = Tracer(a.tool, ["-g", "-p", str(pid), *args, "-o", out], ready_timeout=60)
            took, rc = stop_and_time(tr, how, 2 if how == "-d" else 0)
            check_stopped(tr, how, took, rc, a.ftf_dump, out, pid)
    finally:
        os.killpg(sh.pid, signal.SIGKILL)
        sh.wait()
        shutil.rmtree(d, ignore_errors=True)


JIT = r"""
import ctypes, mmap, os, sys
m = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
              prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
m.write(b"\xeb\xfe")  # jmp .
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
    for i in range(int(sys.argv[1])):
        f.write(f"{addr + 0x100000 + i * 16:x} 10 jitted_function_number_{i}\n")
print(f"pid={os.getpid()}", flush=True)
ctypes.CFUNCTYPE(None)(addr)()
"""


def case_perfmap(a):
    cmd = [*NOBODY, "/usr/bin/python3", "-c", JIT, "4000000"]
    print("  hostile:", " ".join(NOBODY), "/usr/bin/python3 -c JIT 4000000")
    jit = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = jit.stdout.readline()
        check(line.startswith("pid="), f"the JIT wrote its perf map ({line.strip()})")
        pid = int(line.split("=")[1])
        check(os.path.getsize(f"/tmp/perf-{pid}.map") > 100 << 20,
              f"/tmp/perf-{pid}.map holds {os.path.getsize(f'/tmp/perf-{pid}.map') >> 20} MB")
        for how in ("-d", "SIGTERM"):
            out = os.path.join(a.outdir, f"stop-perfmap-{how.strip('-')}.fxt")
            args = ["-d", "2s"] if how == "-d" else []
            tr = Tracer(a.tool, ["-g", "-p", str(pid), *args, "-o", out], ready_timeout=60)
            if how == "SIGTERM":
                time.sleep(1)  # (its samples are being named)
            took, rc = stop_and_time(tr, how, 2 if how == "-d" else 0)
            check_stopped(tr, how, took, rc, a.ftf_dump, out, pid)
    finally:
        jit.kill()
        jit.wait()
        if "pid" in locals():
            try:
                os.unlink(f"/tmp/perf-{pid}.map")
            except FileNotFoundError:
                pass


def case_slow_build(a):
    # (no unwind cache: a table read from it is not built, so not slow)
    env = dict(os.environ, FTFB_FAULT_SLOW_UW_BUILD_S="3600", FTF_BPF_UNWIND_CACHE="off")
    for how in ("-d", "SIGTERM"):
        out = os.path.join(a.outdir, f"stop-slow-build-{how.strip('-')}.fxt")
        args = ["-d", "2s"] if how == "-d" else []
        print("  env: FTFB_FAULT_SLOW_UW_BUILD_S=3600")
        os.environ.update(env)
        try:
            tr = Tracer(a.tool, ["-g", "-a", *args, "-o", out], ready_timeout=60)
        finally:
            del os.environ["FTFB_FAULT_SLOW_UW_BUILD_S"]
            del os.environ["FTF_BPF_UNWIND_CACHE"]
        if how == "SIGTERM":
            time.sleep(1)
        took, rc = stop_and_time(tr, how, 2 if how == "-d" else 0)
        check_stopped(tr, how, took, rc, a.ftf_dump, out)
        check("the stop did not wait for a build under way" in tr.stderr,
              f"{how}: the summary says the stop did not wait for the build")


def main():
    skip_unless_root()

    class A:
        pass
    a = A()
    case = sys.argv[1]
    a.tool, a.ftf_dump, a.outdir = sys.argv[2:5]
    os.makedirs(a.outdir, exist_ok=True)
    cases = {"fifo": case_fifo, "slow-build": case_slow_build, "perfmap": case_perfmap}
    run_main(lambda: cases[case](a))


if __name__ == "__main__":
    main()
