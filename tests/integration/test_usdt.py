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
address it prints. A pair's slices are Perfetto TrackEvent packets on a
track of their thread named like the pair: they are decoded from the
trace's packets (perfetto_view.py) and, with trace_processor_shell,
compared with what Perfetto reads.
"""
import collections
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_view  # noqa: E402
from ftfcheck import (Trace, Tracer, check, ends_on_record_boundary, perfetto_rows, run_main,  # noqa: E402
                      skip_unless_root, sql_null, tp_query, trace_processor)

PID_MAX = 4194304  # (the most the kernel allows: any id above is made up)

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


def args_text(args):
    """A slice's debug args as one comparable value: sorted key=value."""
    return ";".join(sorted(f"{k}={v}" for k, v in args.items()))


def pair_slices(path, category, keys):
    """The slices of USDT pairs of provider `category` as Perfetto shows
    them (on named tracks of threads; the instants are on the threads'
    own, which have no name): dicts ts, dur, depth, name, track (its
    name), track_id, tid, pid (of the thread whose track holds it), args
    {key: value as text} for the debug annotations `keys` (bools as
    "true"/"false"). Decoded from the trace by perfetto_view, and
    compared with trace_processor_shell's rows when it is there (a
    track by the first slice on it, whatever its id, and all the debug
    args of a slice, not just `keys`)."""
    mine = [s for s in perfetto_view.named_slices(path, lambda n: True)
            if s["category"] == category and s["tid"] is not None]
    first = {}
    for s in mine:
        first[s["track_uuid"]] = min(first.get(s["track_uuid"], s["ts"]), s["ts"])
    rows = [(s["ts"], s["dur"], s["depth"], s["name"], s["track"], first[s["track_uuid"]], s["tid"],
             s["pid"], args_text(s["args"])) for s in mine]
    sql = ("select s.ts, s.dur, s.depth, s.name, t.name as track, "
           "min(s.ts) over (partition by s.track_id) as track_first, th.tid, p.pid, "
           "(select group_concat(substr(a.key, 7) || '=' || a.display_value, ';') from args a "
           "where a.arg_set_id = s.arg_set_id and a.key like 'debug.%') as args "
           "from slice s join thread_track t on s.track_id = t.id "
           "join thread th using(utid) left join process p on p.upid = th.upid "
           f"where s.category = '{category}' and t.name is not null")
    perfetto_rows(path, f"the {category} pairs' slices on tracks of threads", rows, sql,
                  lambda r: (int(r["ts"]), int(r["dur"]), int(r["depth"]), r["name"], r["track"],
                             int(r["track_first"]), int(r["tid"]),
                             int(r["pid"]) if sql_null(r["pid"]) else None,
                             args_text(dict(kv.split("=", 1) for kv in (r["args"] or "").split(";") if kv))))
    return [dict(ts=s["ts"], dur=s["dur"], depth=s["depth"], name=s["name"], track=s["track"],
                 track_id=s["track_uuid"], tid=s["tid"], pid=s["pid"],
                 args={k: v for k, v in s["args"].items() if k in keys}) for s in mine]


def no_made_up_ids(trace):
    """Perfetto's threads and processes all have ids the kernel can give
    (none above pid_max): decoded by perfetto_view, compared with
    Perfetto's tables when trace_processor_shell is there (row 0 of each
    is its placeholder)."""
    tab = perfetto_view.Tables(trace)
    ids = perfetto_rows(trace.path, "Perfetto's processes and threads",
                        [("process", p) for p in tab.processes] + [("thread", k) for k in tab.threads],
                        "select 'process' as kind, pid as id from process where upid > 0 union all "
                        "select 'thread', tid from thread where utid > 0",
                        lambda r: (r["kind"], int(r["id"])))
    fake = [i for i in ids if i[1] > PID_MAX]
    check(not fake, f"no thread or process above pid_max in Perfetto's tables ({fake[:5]})")


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
        check(not [e for e in evs if e[5] != "Instant"], f"{name}: the pairs are no FTF events of the thread")
    ps = pair_slices(t.path, "usdtwl", ("arg0", "end_arg0", "end_arg1", "unfinished"))
    no_made_up_ids(t)
    for name in THREADS:
        tid = [k for k in t.kobjs if k[1] == "thread" and k[2] == name and f"process: koid({pid})" in k[3]][-1][0]
        reqs = [s for s in ps if s["tid"] == tid]
        check(all(s["name"] == "req" and s["track"] == "req" and s["pid"] == pid for s in reqs),
              f"{name}: the slices are named 'req' (what the two names share), on a track 'req' of the thread")
        check(len(reqs) == 40, f"{name}: 40 req slices (got {len(reqs)})")
        check(len({s["track_id"] for s in reqs}) == 1, f"{name}: all on one track")
        spans = [(int(s["args"].get("arg0", -1)), int(s["args"].get("end_arg0", -1)),
                  int(s["args"].get("end_arg1", -1)), "unfinished" in s["args"]) for s in reqs]
        check(sorted(spans) == sorted([(i, i, 0, False) for i in range(20)] +
                                      [(1000 + i, 1000 + i, 1, False) for i in range(20)]),
              f"{name}: each req slice starts with arg0 = id and ends with end_arg0 = the same id, "
              "end_arg1 = 1 inside, 0 outside; none unfinished")
    check_nesting(ps)


def check_nesting(ps):
    """Each inner request (1000 + i) lies within its outer one (i), one
    level below it on the track, and outer requests follow each other
    without overlap."""
    by_tid = collections.defaultdict(dict)
    for p in ps:
        by_tid[p["tid"]][int(p["args"]["arg0"])] = (p["ts"], p["ts"] + p["dur"], p["depth"])
    check(len(by_tid) == 2, f"req slices on 2 threads ({len(by_tid)})")
    for tid, s in by_tid.items():
        inside = all(s[i][0] < s[1000 + i][0] <= s[1000 + i][1] < s[i][1] for i in range(20))
        check(inside, f"thread {tid}: every inner req slice lies inside its outer one")
        depth = all(s[i][2] == 0 and s[1000 + i][2] == 1 for i in range(20))
        check(depth, f"thread {tid}: the outer req slices at depth 0 of the track, the inner ones at 1")
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
    check(not [e for e in t.events if e[3] == "python"], "the python slices are no FTF events")
    ps = pair_slices(t.path, "python", ("generation", "collected", "found", "arg0", "unfinished"))
    gcs, imports, where, bad_args = collections.Counter(), collections.Counter(), set(), []
    for s in ps:
        where.add((s["pid"], s["tid"], s["track"]))
        a = s["args"]
        if s["name"] == "gc":  # (an import of the module gc is "import gc")
            gcs[int(a["generation"])] += 1
            if set(a) != {"generation", "collected"}:
                bad_args.append(s)
        else:
            if set(a) != {"found"}:
                bad_args.append(s)
            check(s["name"].startswith("import "), f"a python slice other than gc is 'import MODULE' ({s['name']})")
            if a.get("found") == "1":
                imports[s["name"][len("import "):]] += 1
    check(where == {(pid, pid, "gc"), (pid, pid, "import")},
          f"the python slices are on the interpreter's thread, on its tracks 'gc' and 'import' ({where})")
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


def crossing_sequence(n):
    """The pairs each crosswl worker fires, from its source (crosswl.c),
    in the order they begin: per transaction i, the query BEGIN, the
    transaction i (begun inside BEGIN, committed inside END), the queries
    SELECT and END; (name, arg0, end_arg0)."""
    seq = []
    for i in range(n):
        seq += [("query", "BEGIN", "0"), ("txn", str(i), str(i)), ("query", "SELECT", "1"),
                ("query", "END", "2")]
    return seq


def check_start_steps(stderr, wall_ms):
    """-v times its start-up's steps: each once, in order, from the
    start, none later than the whole run as this script timed it."""
    steps = ("output opened", "BPF programs loaded", "sources attached", "live tasks named")
    got = re.findall(r"^ftf-bpf: (.+) at (\d+) ms$", stderr, re.M)
    print(f"  -v's start-up steps: {got}; the run took {wall_ms:.0f} ms")
    check([g[0] for g in got] == list(steps), f"-v names the start-up's steps in order ({steps})")
    ms = [int(g[1]) for g in got]
    check(ms == sorted(ms) and ms[-1] <= wall_ms,
          "their times grow, the last within the run's own wall time")


def mode_crossing(tool, ftf_dump, wl, outdir):
    """Pairs that cross (tests/usdt/crosswl.c: per thread, N transactions
    each begun in the query BEGIN and committed in the query END, a query
    SELECT nested between): every slice of a pair kind of a thread is on
    one track of that thread named like the pair, whether it crosses the
    other kind (BEGIN, END) or nests in it (SELECT); no slice of a track
    crosses another; no thread or process with a made-up id; each thread
    holds exactly its own sequence. (Crossing pairs were once moved to
    pseudo threads "query 2097152002", splitting a transaction's queries
    over two tracks; async events before that, which Perfetto puts on
    global tracks.)"""
    n, nthreads = 500, 2
    cw = os.path.join(os.path.dirname(wl), "crosswl")
    out = os.path.join(outdir, "usdt-crossing.fxt")
    cmd = [tool, "-v", "-o", out,
           "-u", f"usdt:{cw}:crosswl:txn__start~usdt:{cw}:crosswl:txn__commit",
           "-u", f"usdt:{cw}:crosswl:query__start,str~usdt:{cw}:crosswl:query__done",
           "--", cw, str(n)]
    print("  run:", " ".join(cmd))
    t0 = time.monotonic()
    p = subprocess.run(cmd, input="go\n", capture_output=True, text=True, timeout=120)
    wall_ms = (time.monotonic() - t0) * 1e3
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -- crosswl exited 0 (got {p.returncode})")
    check("attached 0 uprobes" not in p.stderr, "-v with USDT probes only says nothing of 0 uprobes")
    check_start_steps(p.stderr, wall_ms)
    check(f"{4 * n * nthreads} slices" in p.stderr, f"the summary counts {4 * n * nthreads} slices")
    pid = int(re.search(r"\(pid (\d+)\)", p.stderr)[1])
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    check(not [e for e in t.events if e[3] == "crosswl"], "no pair is an FTF event (of a thread, async or not)")
    fake = [k for k in t.kobjs if k[0] > PID_MAX]
    check(not fake, f"no FTF thread or process with a made-up id ({fake[:3]})")
    workers = {k[0]: k[2] for k in t.kobjs if k[1] == "thread" and k[2].startswith("cw-worker-")
               and f"process: koid({pid})" in k[3]}
    check(len(workers) == nthreads, f"the {nthreads} workers are threads of {pid} ({workers})")
    ps = pair_slices(out, "crosswl", ("arg0", "end_arg0", "unfinished"))
    no_made_up_ids(t)
    # (the decoding fails on an end with no slice open on its track;
    # Perfetto counts such ends, and slices it could not nest, here)
    if trace_processor():
        drops = tp_query(out, "select name, value from stats where name like 'slice_drop%' and value > 0")
        check(not drops, f"trace_processor reports no slice_drop_* stat ({drops})")
    check(all(s["pid"] == pid and s["tid"] in workers for s in ps),
          f"every pair is on a track of a worker thread of {pid}")
    want = crossing_sequence(n)
    for tid, wname in sorted(workers.items()):
        mine = sorted((s for s in ps if s["tid"] == tid), key=lambda s: s["ts"])
        got = [(s["name"], s["args"].get("arg0"), s["args"].get("end_arg0")) for s in mine]
        check(got == want, f"{wname}: its {len(got)} slices are its {len(want)} pairs in the order they "
                           f"began, with their arguments (first differing: "
                           f"{next(((i, a, b) for i, (a, b) in enumerate(zip(got, want)) if a != b), None)})")
        for kind in ("query", "txn"):
            ks = [s for s in mine if s["name"] == kind]
            tracks = {(s["track_id"], s["track"]) for s in ks}
            check(len(tracks) == 1 and next(iter(tracks))[1] == kind,
                  f"{wname}: all {len(ks)} {kind} slices on one track of the thread, named {kind!r} ({tracks})")
            check(all(s["depth"] == 0 and s["dur"] >= 0 and "unfinished" not in s["args"] for s in ks),
                  f"{wname}: none of them nests in or crosses another (depth 0), none unfinished")
            spans = [(s["ts"], s["ts"] + s["dur"]) for s in ks]
            check(all(a[1] <= b[0] for a, b in zip(spans, spans[1:])),
                  f"{wname}: the {kind} slices follow each other without overlap")
        q = [s for s in mine if s["name"] == "query"]
        x = [s for s in mine if s["name"] == "txn"]
        crossed = all(q[3 * i]["ts"] < x[i]["ts"] < q[3 * i]["ts"] + q[3 * i]["dur"] <
                      q[3 * i + 2]["ts"] < x[i]["ts"] + x[i]["dur"] < q[3 * i + 2]["ts"] + q[3 * i + 2]["dur"]
                      for i in range(n))
        check(crossed, f"{wname}: each transaction begins inside its BEGIN and ends inside its END, "
                       "as the workload fires them (they cross)")


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
