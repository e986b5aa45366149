#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real-BPF integration tests of USDT probes (run as root).

usage: test_usdt.py MODE FTF_BPF FTF_DUMP USDTWL OUTDIR
MODE: pid | cmd | kill | list | errors | python-cmd | python-pid | crossing

The workload (tests/usdt/usdtwl.c) fires exactly known probes on two
threads "uw-worker-0" and "uw-worker-1": tick(i, 3i) for i = 0..999,
guarded(i, -i) for i = 0..99 only while its semaphore is set,
msg("item-T-I", i) for i = 0..9, and 20 times req__start(i),
req__start(1000 + i), req__done(1000 + i, 1), req__done(i, 0). Those
numbers, worked out from the source, are what the trace must hold. The
semaphore is read from the workload's memory (/proc/PID/mem) at the
address it prints.
"""
import collections
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, Tracer, check, trace_processor, tp_query, ends_on_record_boundary, run_main, skip_unless_root  # noqa: E402

THREADS = ["uw-worker-0", "uw-worker-1"]


def specs(prefix):
    p = f"usdt:{prefix}usdtwl"
    return ["-u", f"{p}:tick", "-u", f"{p}:guarded", "-u", f"{p}:msg,str=0",
            "-u", f"{p}:req__start~{p}:req__done"]


def args_of(text):
    out = {}
    for k, v in re.findall(r"(\w+): u?int64\((-?\d+)\)", text):
        out[k] = int(v)
    for k, v in re.findall(r'(\w+): string\("(.*?)"\)', text):
        out[k] = v
    return out


def read_semaphore(pid, addr):
    with open(f"/proc/{pid}/mem", "rb") as f:
        f.seek(addr)
        return int.from_bytes(f.read(2), "little")


def wait_semaphore(pid, addr, want, timeout=60.0):
    """The semaphore's value once it is `want`, or the last one read after
    timeout (the links of a stopped ftf-bpf go with its helper process,
    which the kernel may make wait on a busy machine)."""
    deadline = time.time() + timeout
    v = read_semaphore(pid, addr)
    while v != want and time.time() < deadline:
        time.sleep(0.05)
        v = read_semaphore(pid, addr)
    return v


def start_workload(wl, *flags):
    p = subprocess.Popen([wl, *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    _, pid, addr = p.stdout.readline().split()
    print(f"  workload pid={pid} semaphore at {addr}")
    return p, int(pid), int(addr, 16)


def check_trace(t, pid, stderr, guarded):
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    check(ends_on_record_boundary(t.path), "the file ends on a record boundary")
    check("lost: 0 events" in stderr, "the summary reports 0 lost events")
    check(guarded == 200, f"the workload saw its semaphore set for all 200 guarded probes (got {guarded})")
    for name in THREADS:
        ks = [k for k in t.kobjs if k[1] == "thread" and k[2] == name and f"process: koid({pid})" in k[3]]
        check(len(ks) >= 1, f"a thread named {name!r} of process {pid} is in the trace")
        tid = ks[-1][0]
        evs = [e for e in t.events if e[2] == tid and e[3] == "usdtwl"]
        check(all(e[1] == pid for e in evs), f"{name}: every USDT event is on pid {pid}")
        inst = collections.defaultdict(list)
        for e in evs:
            if e[5] == "Instant":
                inst[e[4]].append(args_of(e[6]))
        check(sorted((a["arg0"], a["arg1"]) for a in inst["tick"]) == [(i, 3 * i) for i in range(1000)],
              f"{name}: 1000 tick instants with arg0 = i, arg1 = 3i ({len(inst['tick'])})")
        check(sorted((a["arg0"], a["arg1"]) for a in inst["guarded"]) == [(i, -i) for i in range(100)],
              f"{name}: 100 guarded instants with arg0 = i, arg1 = -i ({len(inst['guarded'])})")
        t_no = name[-1]
        check(sorted((a["arg0"], a["arg1"]) for a in inst["msg"]) ==
              sorted((f"item-{t_no}-{i}", i) for i in range(10)),
              f"{name}: 10 msg instants with the string arg0 'item-{t_no}-i' and arg1 = i")
        check(set(inst) == {"tick", "guarded", "msg"}, f"{name}: no other instants ({sorted(inst)})")
        reqs = [e for e in evs if e[5].startswith("DurationComplete")]
        check(all(e[4] == "req" for e in reqs), f"{name}: the slices are named 'req' (what the two names share)")
        check(len(reqs) == 40, f"{name}: 40 req slices (got {len(reqs)})")
        spans = []
        for e in reqs:
            a = args_of(e[6])
            spans.append((a.get("arg0"), a.get("end_arg0"), a.get("end_arg1"), "unfinished" in e[6]))
        check(sorted(spans) == sorted([(i, i, 0, False) for i in range(20)] +
                                      [(1000 + i, 1000 + i, 1, False) for i in range(20)]),
              f"{name}: each req slice starts with arg0 = id and ends with end_arg0 = the same id, "
              "end_arg1 = 1 inside, 0 outside; none unfinished")
    check_nesting(t, pid)


RE_COMPLETE = re.compile(r'^Event\(ts: (\d+), pt: (\d+)/(\d+), category: "usdtwl", name: "req", '
                         r'DurationComplete\(end_ts: (\d+)\), \{(.*)\}\)$')


def check_nesting(t, pid):
    """Each inner request (1000 + i) lies within its outer one (i), and
    outer requests follow each other without overlap."""
    by_tid = collections.defaultdict(dict)
    for line in t.lines:
        m = RE_COMPLETE.match(line)
        if m:
            a = args_of(m[5])
            by_tid[int(m[3])][a["arg0"]] = (int(m[1]), int(m[4]))
    check(len(by_tid) == 2, f"req slices on 2 threads ({len(by_tid)})")
    for tid, s in by_tid.items():
        inside = all(s[i][0] < s[1000 + i][0] <= s[1000 + i][1] < s[i][1] for i in range(20))
        check(inside, f"thread {tid}: every inner req slice lies inside its outer one")
        seq = all(s[i][1] <= s[i + 1][0] for i in range(19))
        check(seq, f"thread {tid}: the outer req slices follow each other without overlap")


def mode_pid(tool, ftf_dump, wl, outdir):
    out = os.path.join(outdir, "usdt-pid.fxt")
    p, pid, addr = start_workload(wl, "--wait-stdin", "--hold")
    check(read_semaphore(pid, addr) == 0, "the semaphore is 0 before tracing")
    tr = Tracer(tool, ["-p", str(pid), "-o", out] + specs(""))
    v = read_semaphore(pid, addr)
    check(v == 1, f"the semaphore is 1 while traced (got {v})")
    p.stdin.write("go\n")
    p.stdin.flush()
    done = p.stdout.readline().split()
    guarded = int(done[1])
    tr.signal(signal.SIGINT)
    rc = tr.wait()
    check(rc == 0, f"ftf-bpf exited 0 (got {rc})")
    v = wait_semaphore(pid, addr, 0)
    check(v == 0, f"the semaphore is back to 0 after the trace (got {v})")
    p.stdin.write("bye\n")
    p.stdin.flush()
    p.wait(timeout=60)
    check_trace(Trace(ftf_dump, out), pid, tr.stderr, guarded)


def mode_cmd(tool, ftf_dump, wl, outdir):
    """-- with the probes named by the binary's path (usdt:BINARY:...)."""
    out = os.path.join(outdir, "usdt-cmd.fxt")
    cmd = [tool, "-o", out] + specs(wl + ":") + ["--", wl]
    print("  run:", " ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -- usdtwl exited 0 (got {p.returncode})")
    lines = p.stdout.splitlines()
    pid = int(lines[0].split()[1])
    guarded = int(lines[-1].split()[1])
    check_trace(Trace(ftf_dump, out), pid, p.stderr, guarded)


def mode_kill(tool, ftf_dump, wl, outdir):
    """SIGKILL of the tool: the kernel drops the probes with its files,
    and the semaphore goes back to 0."""
    out = os.path.join(outdir, "usdt-kill.fxt")
    p, pid, addr = start_workload(wl, "--wait-stdin", "--hold")
    tr = Tracer(tool, ["-p", str(pid), "-o", out, "-u", "usdt:usdtwl:guarded"])
    v = read_semaphore(pid, addr)
    check(v == 1, f"the semaphore is 1 while traced (got {v})")
    tr.signal(signal.SIGKILL)
    tr.wait()
    check(tr.p.returncode == -signal.SIGKILL, f"ftf-bpf was killed ({tr.p.returncode})")
    v = wait_semaphore(pid, addr, 0)
    check(v == 0, f"the semaphore is back to 0 after SIGKILL of the tool (got {v})")
    p.stdin.write("go\n")
    p.stdin.flush()
    guarded = int(p.stdout.readline().split()[1])
    check(guarded == 0, f"the workload then skips its guarded probes (fired {guarded})")
    p.stdin.write("bye\n")
    p.stdin.flush()
    p.wait(timeout=60)


def mode_list(tool, ftf_dump, wl, outdir):
    cmd = [tool, "--list", "-u", f"usdt:{wl}:usdtwl:*"]
    print("  run:", " ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    print("  " + p.stdout.strip().replace("\n", "\n  "))
    check(p.returncode == 0, f"--list exits 0 ({p.returncode}, {p.stderr.strip()})")
    rows = {}
    for line in p.stdout.splitlines()[1:]:
        f = line.split()
        rows[f[2]] = f
    check(sorted(rows) == ["guarded", "msg", "req__done", "req__start", "tick"],
          f"it lists the workload's 5 probes ({sorted(rows)})")
    check(all(r[0] == wl and r[1] == "usdtwl" for r in rows.values()), "with their binary and provider")
    check(rows["req__start"][3] == "2" and rows["tick"][3] == "1",
          "req__start has its 2 sites, tick 1")
    # the semaphore: the address of the symbol usdtwl_guarded_semaphore
    nm = subprocess.run(["nm", wl], capture_output=True, text=True).stdout
    sym = [int(line.split()[0], 16) for line in nm.splitlines() if line.endswith(" usdtwl_guarded_semaphore")]
    check(len(sym) == 1 and int(rows["guarded"][4], 16) == sym[0],
          f"guarded's semaphore is the address of usdtwl_guarded_semaphore ({rows['guarded'][4]}, nm: {sym})")
    check(all(rows[n][4] == "-" for n in ("tick", "msg")), "the others have none")
    check(" ".join(rows["msg"][5:]) == "8@%r12 -8@%rbx" or rows["msg"][5].startswith("8@"),
          f"msg's first argument is a pointer spec (8@...): {rows['msg'][5:]}")


def mode_errors(tool, ftf_dump, wl, outdir):
    out = os.path.join(outdir, "usdt-error.fxt")
    cases = [
        (["-u", "usdt:usdtwl:nosuch", "--", wl], ["no USDT probe matches", "nosuch", "tick"]),
        (["-u", "usdt:nope:tick", "--", wl], ["no USDT probe matches provider 'nope'", "usdtwl"]),
        (["-u", "usdt:/bin/true:x:y", "--", wl], ["/bin/true has no USDT probes"]),
        (["-u", "usdt:tick", "--", wl], ["bad USDT spec 'usdt:tick'"]),
        (["-u", "usdt:usdtwl:msg,str=x", "--", wl], ["bad string suffix"]),
        (["-u", "usdt:usdtwl:req__start~tick", "--", wl], ["bad slice spec"]),
        (["-a", "-u", "usdt:usdtwl:tick"], ["main binary", "usdt:BINARY:PROVIDER:NAME"]),
        (["-u", "usdt:/no/such/file:p:n", "--", wl], ["/no/such/file", "No such file"]),
        (["-F", "1s", "-u", "usdt:usdtwl:tick", "--trigger", "usdt:usdtwl:tick", "--", wl],
         ["--trigger", "not a USDT probe"]),
    ]
    for args, want in cases:
        if os.path.exists(out):
            os.unlink(out)
        cmd = [tool, "-o", out, *args]
        print("  run:", " ".join(cmd))
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        err = p.stderr.strip()
        print("   ", err)
        check(p.returncode != 0, f"exit {p.returncode} (not 0)")
        check(len(err.splitlines()) == 1, "one line")
        check(all(w in err for w in want), f"it says {want}")
        check(not os.path.exists(out), "no trace file is written")
    cmd = [tool, "--list", "-u", "usdt:/bin/true:*:*"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(p.returncode == 1 and "has no USDT probes" in p.stderr, f"--list on a binary without notes says so ({p.stderr.strip()})")


PYTHON = "/usr/bin/python3.11"
RE_PY = re.compile(r'^Event\(ts: \d+, pt: (\d+)/(\d+), category: "python", name: "(.*?)", '
                   r'DurationComplete\(end_ts: \d+\), \{(.*)\}\)$')


def python_or_skip():
    """Debian's python3.11 has the probes (.note.stapsdt); skip without."""
    if not os.path.exists(PYTHON):
        print(f"SKIP: no {PYTHON}")
        sys.exit(77)
    notes = subprocess.run(["readelf", "-n", PYTHON], capture_output=True, text=True).stdout
    if "gc__start" not in notes or "import__find__load__start" not in notes:
        print(f"SKIP: {PYTHON} has no gc__start / import__find__load__start USDT notes")
        sys.exit(77)


def py_results(lines):
    """The workload's own counts: collections by generation since the wait
    and since the start, and the modules its imports loaded."""
    r = {}
    for line in lines:
        f = line.split()
        if f and f[0] in ("gc", "gcall"):
            r[f[0]] = [int(x) for x in f[1:]]
        elif f and f[0] == "mods":
            r["mods"] = f[1:]
    return r


def check_python_trace(t, pid, res, gc_key, exact_imports):
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    check(ends_on_record_boundary(t.path), "the file ends on a record boundary")
    gcs, imports, where, bad_args = collections.Counter(), collections.Counter(), set(), []
    for line in t.lines:
        m = RE_PY.match(line)
        if not m:
            continue
        where.add((int(m[1]), int(m[2])))
        a = args_of(m[4])
        if m[3] == "gc":  # (an import of the module gc is "import gc")
            gcs[a["generation"]] += 1
            if set(a) != {"generation", "collected"}:
                bad_args.append(line)
        else:
            if set(a) != {"found"}:
                bad_args.append(line)
            check(m[3].startswith("import "), f"a python slice other than gc is 'import MODULE' ({m[3]})")
            if a.get("found") == 1:
                imports[m[3][len("import "):]] += 1
    check(where == {(pid, pid)}, f"the python slices are on the interpreter's thread ({where})")
    check(not bad_args, f"gc slices have generation and collected, import slices found ({bad_args[:3]})")
    want = res[gc_key]
    got = [gcs[g] for g in range(3)]
    check(got == want and sum(gcs.values()) == sum(want),
          f"gc slices by generation {got} = the interpreter's own counts {want}")
    mods = res["mods"]
    check(len(mods) >= 10, f"the imports loaded {len(mods)} modules")
    check(all(imports[m] == 1 for m in mods),
          f"each module the imports loaded has exactly one import slice named by it ({mods})")
    if exact_imports:
        check(sorted(imports) == sorted(mods),
              f"and there are no other import slices ({sorted(set(imports) - set(mods))})")


def mode_python_cmd(tool, ftf_dump, wl, outdir):
    python_or_skip()
    out = os.path.join(outdir, "usdt-python-cmd.fxt")
    script = os.path.join(os.path.dirname(wl), "pywl.py")
    cmd = [tool, "-o", out, "--python", "--", PYTHON, script]
    print("  run:", " ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf --python -- python3.11 exited 0 (got {p.returncode})")
    lines = p.stdout.splitlines()
    pid = int(lines[0].split()[1])
    res = py_results(lines)
    print(f"  the interpreter counted: {res}")
    # from its start: the startup's collections too (gcall), and the
    # startup's imports besides the script's
    check_python_trace(Trace(ftf_dump, out), pid, res, "gcall", False)


def mode_python_pid(tool, ftf_dump, wl, outdir):
    python_or_skip()
    out = os.path.join(outdir, "usdt-python-pid.fxt")
    script = os.path.join(os.path.dirname(wl), "pywl.py")
    p = subprocess.Popen([PYTHON, script, "--wait-stdin"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline().split()[1])
    tr = Tracer(tool, ["-p", str(pid), "-o", out, "--python"])
    out_text, _ = p.communicate(input="go\n", timeout=120)
    rc = tr.wait()
    check(rc == 0, f"ftf-bpf exited 0 (got {rc})")
    res = py_results(out_text.splitlines())
    print(f"  the interpreter counted: {res}")
    check_python_trace(Trace(ftf_dump, out), pid, res, "gc", True)


def perfetto_counts(path):
    """{slice name: count} and the slice_drop_* stats trace_processor
    reports for path; None when there is no trace_processor_shell."""
    tp = trace_processor()
    if tp is None:
        return None
    q = ("select 'n', name, count(*) from slice group by name union all "
         "select 's', name, value from stats where name like 'slice_drop%' and value > 0;")
    p = subprocess.run([tp, "-q", "/dev/stdin", path], input=q,
                       capture_output=True, text=True, timeout=300)
    names, drops = {}, {}
    for line in p.stdout.splitlines():
        f = [x.strip('"') for x in line.split(",")]
        if len(f) == 3 and f[0] in ("n", "s"):
            (names if f[0] == "n" else drops)[f[1]] = int(f[2])
    return names, drops


def spans_cross(a, b):
    return a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]


LANE_TID = 0x7D000000  # a track's pseudo tid: FTFB_PSEUDO_TRACK_TID + n


def mode_crossing(tool, ftf_dump, wl, outdir):
    """Pairs that cross (tests/usdt/crosswl.c: per thread, N transactions
    each begun in the query BEGIN and committed in the query END, a query
    SELECT nested between): all reach the trace, the crossing ones on
    lanes of the process (pseudo threads named like the pair, where no
    two slices overlap), the nested ones as complete slices on their
    thread that cross nothing; trace_processor keeps them all, every one
    under the workload's process. (They were async events once, which
    Perfetto puts on global tracks, outside any process.)"""
    n, nthreads = 500, 2
    cw = os.path.join(os.path.dirname(wl), "crosswl")
    out = os.path.join(outdir, "usdt-crossing.fxt")
    cmd = [tool, "-v", "-o", out,
           "-u", f"usdt:{cw}:crosswl:txn__start~usdt:{cw}:crosswl:txn__commit",
           "-u", f"usdt:{cw}:crosswl:query__start,str~usdt:{cw}:crosswl:query__done",
           "--", cw, str(n)]
    print("  run:", " ".join(cmd))
    p = subprocess.run(cmd, input="go\n", capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -- crosswl exited 0 (got {p.returncode})")
    check("attached 0 uprobes" not in p.stderr, "-v with USDT probes only says nothing of 0 uprobes")
    pid = int(re.search(r"\(pid (\d+)\)", p.stderr)[1])
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    evs = [e for e in t.events if e[3] == "crosswl"]
    check(not [e for e in evs if e[5].startswith("Async")], "no async begin/end records")
    complete = [e for e in evs if e[5].startswith("DurationComplete")]
    texts = collections.Counter(args_of(e[6]).get("arg0") for e in complete if e[4] == "query")
    want = {"BEGIN": n * nthreads, "SELECT": n * nthreads, "END": n * nthreads}
    check(dict(texts) == want, f"every query pair is in the trace: {dict(texts)} (want {want})")
    txns = sorted(args_of(e[6])["arg0"] for e in complete if e[4] == "txn")
    check(txns == sorted(list(range(n)) * nthreads),
          f"every transaction is in the trace ({len(txns)}, want {n * nthreads})")
    by_tid = collections.defaultdict(list)
    on_lanes = on_threads = 0
    elsewhere, not_select = [], []
    for line in t.lines:
        m = re.match(r'^Event\(ts: (\d+), pt: (\d+)/(\d+), .*DurationComplete\(end_ts: (\d+)\)', line)
        if not m or "crosswl" not in line:
            continue
        by_tid[m[3]].append((int(m[1]), int(m[4])))
        if int(m[2]) != pid:
            elsewhere.append(line[:100])
        if int(m[3]) >= LANE_TID:
            on_lanes += 1
        else:
            on_threads += 1
            if "SELECT" not in line:
                not_select.append(line[:120])
    check(not elsewhere, f"every pair is in the workload's process {pid} ({elsewhere[:2]})")
    check(not not_select, f"the pairs on the real threads are the nested SELECTs ({not_select[:2]})")
    check(on_lanes == 3 * n * nthreads and on_threads == n * nthreads,
          f"the crossing pairs (txn, BEGIN, END) are on lanes: {on_lanes} (want {3 * n * nthreads}); "
          f"on the threads: {on_threads} (want {n * nthreads})")
    crossing = sum(spans_cross(a, b) for s in by_tid.values()
                   for i, a in enumerate(sorted(s)) for b in sorted(s)[i + 1:i + 64])
    check(crossing == 0, f"no two complete slices of a thread or lane cross ({crossing} do)")
    tp = perfetto_counts(out)
    if tp is None:
        print("  (no trace_processor_shell: Perfetto's own count not checked)")
        return
    names, drops = tp
    print(f"  trace_processor: slices {names}, drop stats {drops}")
    check(names.get("txn") == n * nthreads and names.get("query") == 3 * n * nthreads,
          f"trace_processor keeps {n * nthreads} txn and {3 * n * nthreads} query slices ({names})")
    check(not drops, f"trace_processor reports no slice_drop_* stat ({drops})")
    rows = tp_query(out, "select count(*) as n from slice join thread_track tt on slice.track_id = tt.id "
                         "join thread using(utid) join process using(upid) "
                         f"where process.pid = {pid} and slice.name in ('txn', 'query')")
    got = int(rows[0]["n"]) if rows else -1
    check(got == 4 * n * nthreads,
          f"Perfetto shows all {4 * n * nthreads} pairs on thread tracks of process {pid} (got {got})")

def main():
    skip_unless_root()
    mode, tool, ftf_dump, wl, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    fn = {"pid": mode_pid, "cmd": mode_cmd, "kill": mode_kill, "list": mode_list,
          "errors": mode_errors, "python-cmd": mode_python_cmd,
          "python-pid": mode_python_pid, "crossing": mode_crossing}[mode]
    run_main(lambda: fn(tool, ftf_dump, os.path.abspath(wl), outdir))


if __name__ == "__main__":
    main()
