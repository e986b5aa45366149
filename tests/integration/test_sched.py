#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real-BPF integration tests of scheduling traces (run as root).

usage: test_sched.py MODE FTF_BPF FTF_DUMP PINGPONG OUTDIR
MODE: pid | cmd | names | all | sigint | dying | title | rings | retitle

The ping-pong workload's two threads ("ping", "pong") pass a byte N times
over pipes, both pinned to one CPU, so each is switched in at least N
times (they must take turns on that CPU), and each turn but the first ends
with a thread that blocks and is woken or is preempted: those counts, the
tids and names the workload prints are the independent expectations.
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import (Fail, Trace, Tracer, check, ends_on_record_boundary, perfetto_rows,  # noqa: E402
                      run_main, skip_unless_root, sql_null, tp_query)
import perfetto_view  # noqa: E402
from perfetto_view import IDLE_WEIGHT, fields, get, get_all, read_ftf  # noqa: E402

N = 3000


def parse_ids(line):
    ids = dict(kv.split("=") for kv in line.split())
    return int(ids["pid"]), int(ids["ping"]), int(ids["pong"])


def check_pingpong_trace(t, pid, ping, pong, stderr):
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    check(ends_on_record_boundary(t.path), "the file ends on a record boundary")
    for name, tid in (("ping", ping), ("pong", pong)):
        n = t.switches_into(tid)
        check(n >= N, f"at least {N} context switches into {name} (tid {tid}): {n}")
        w = t.wakeups_of(tid)
        check(w >= 1, f"{name} (tid {tid}) is woken: {w} wakeups")
        check(name in t.thread_names(tid), f"thread {tid} is named {name!r}: {t.thread_names(tid)}")
        check(pid in t.thread_process(tid), f"thread {tid} belongs to process {pid}")
    woken = t.wakeups_of(ping) + t.wakeups_of(pong)
    preempted = sum(1 for s in t.switches if s[3] in (ping, pong) and s[2] == "running")
    check(woken + preempted >= N - 1,
          f"every turn but the first ends in a wakeup or a preemption: {woken} + {preempted} >= {N - 1}")
    check("pingpong" in t.process_names(pid), f"process {pid} is named 'pingpong': {t.process_names(pid)}")
    check(t.dropped_total() == 0, "the trace records no dropped events")
    check("lost: 0 events" in stderr, "the summary reports 0 lost events")


def kernel_prio(tid):
    """The kernel's prio of a running task, from /proc (stat field 18,
    priority, is prio - 100: -1 - rt_priority for real-time, 20 + nice
    for the others)."""
    with open(f"/proc/{tid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[15]) + 100


def check_cpu_slices_end(path):
    """In Perfetto's sched table, a CPU slice with no end (dur -1, "Did
    not end" in the UI) can only be the last one of its CPU: the task
    still running when the trace stopped."""
    rows = tp_query(path, "select s.cpu, s.ts, s.utid, (select max(ts) from sched m where m.cpu = s.cpu) as last "
                          "from sched s where s.dur < 0")
    if rows is None:
        return
    dangling = [r for r in rows if r["ts"] != r["last"]]
    check(not dangling, f"in Perfetto every CPU slice ends but the last of its CPU "
                        f"({len(rows)} open at the end, {len(dangling)} before: {dangling[:3]})")


def mode_pid(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "sched-pid.fxt")
    wl = subprocess.Popen([pingpong, str(N), "--wait", "--cpu", "0"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid, ping, pong = parse_ids(wl.stdout.readline())
    print(f"  workload pid={pid} ping={ping} pong={pong}")
    tr = Tracer(tool, ["-p", str(pid), "-o", out])
    _, wl_err = wl.communicate(input="go\n", timeout=120)
    check(wl.returncode == 0, f"the workload ran to completion (exit {wl.returncode}; {wl_err.strip()[-300:]})")
    rc = tr.wait()
    check(rc == 0, f"ftf-bpf exited 0 when the traced process exited (got {rc})")
    check("traced process exited" in tr.stderr, "ftf-bpf says it stopped because the process exited")
    t = Trace(ftf_dump, out)
    check_pingpong_trace(t, pid, ping, pong, tr.stderr)
    # -p filters in the kernel: a switch without a task of pid is recorded
    # only to end an untraced task that a recorded switch put on the CPU
    # (else Perfetto shows it running forever), and its incoming task is
    # then marked idle (weight INT32_MIN).
    # (all of pid's threads: a sanitizer runtime may add its own; and the
    # processes it forks, which -p follows: LeakSanitizer clones a
    # helper process at exit, which keeps the workload's name)
    procs = {pid} | {k[0] for k in t.kobjs if k[1] == "process" and k[2] == "pingpong"}
    ours = {ping, pong} | procs | {k[0] for k in t.kobjs if k[1] == "thread"
                                   and any(f"process: koid({p})" in k[3] for p in procs)}
    # Up to the workers' last switch: at exit a sanitizer runtime may
    # start a short-lived thread of its own that the trace never names.
    end = max(s[0] for s in t.switches if s[3] in (ping, pong) or s[4] in (ping, pong))
    last_in, bad, closing = {}, [], 0
    for sw in sorted(s for s in t.switches if s[0] <= end):
        ts, cpu, _, out_tid, in_tid, rest = sw
        if out_tid not in ours and in_tid not in ours:
            closing += 1
            if last_in.get(cpu) != out_tid or "incoming_weight: int32(-2147483648)" not in rest:
                bad.append(sw)
        last_in[cpu] = in_tid
    check(not bad, f"switches without a task of pid {pid} only end the task a recorded switch put on the CPU, "
                   f"incoming marked idle ({closing} such, {len(bad)} not: {bad[:2]})")
    # ... so on every CPU each recorded switch starts from the task the
    # previous one put there: Perfetto's CPU tracks have no dangling slice.
    last_in, broken = {}, 0
    for ts, cpu, _, out_tid, in_tid, rest in sorted(t.switches):
        if cpu in last_in and last_in[cpu] not in (0, out_tid):
            broken += 1
        last_in[cpu] = 0 if "incoming_weight: int32(-2147483648)" in rest else in_tid
    check(broken == 0, f"every switch on a CPU starts from the task the previous recorded one put there ({broken} not)")
    check_cpu_slices_end(out)


def mode_cmd(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "sched-cmd.fxt")
    p = subprocess.run([tool, "-o", out, "--", pingpong, str(N), "--cpu", "0"],
                       capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -- pingpong exited 0 (got {p.returncode})")
    pid, ping, pong = parse_ids(p.stdout.strip().splitlines()[0])
    check("command exited" in p.stderr, "ftf-bpf says it stopped because the command exited")
    t = Trace(ftf_dump, out)
    check_pingpong_trace(t, pid, ping, pong, p.stderr)


def mode_names(tool, ftf_dump, pingpong, outdir):
    """-- pingpong on CPU 0 while short-lived untraced programs (/bin/true,
    400 of them) run on the same CPU: the trace shows them where they
    switch in and out around ping and pong, and they are usually gone from
    /proc by the time the tracer reads those switches. Every task the
    trace shows (but an incoming one marked idle, which Perfetto draws as
    idle) and every waker must still have a thread name and a named
    process."""
    out = os.path.join(outdir, "sched-names.fxt")
    churn = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "for i in $(seq 400); do /bin/true; done"])
    try:
        p = subprocess.run([tool, "-o", out, "--", pingpong, str(N), "--cpu", "0"],
                           capture_output=True, text=True, timeout=120)
    finally:
        churn.wait(timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -- pingpong exited 0 (got {p.returncode})")
    pid, ping, pong = parse_ids(p.stdout.strip().splitlines()[0])
    t = Trace(ftf_dump, out)
    check_pingpong_trace(t, pid, ping, pong, p.stderr)
    shown = set()
    for ts, cpu, _, out_tid, in_tid, rest in t.switches:
        shown.add(out_tid)
        if "incoming_weight: int32(-2147483648)" not in rest:
            shown.add(in_tid)
    wakers = {int(x) for w in t.wakeups for x in re.findall(r"waker: koid\((\d+)\)", w[3])}
    shown.discard(0)
    wakers.discard(0)
    foreign = shown - {pid, ping, pong}
    check(len(foreign) >= 10, f"the trace shows untraced tasks around the workload's: {len(foreign)}")
    # (as Perfetto names them: the untraced ones are threads of no
    # process of their own, named by the trace's ProcessTree packets,
    # in the untraced group, pid 0)
    rows = thread_rows(out, t, shown | wakers)
    named = {r[0] for r in rows if r[1]}
    unnamed = sorted((shown | wakers) - named)
    check(not unnamed, f"every task shown and every waker has a thread name "
                       f"({len(shown | wakers)} tasks, {len(unnamed)} without: {unnamed[:10]})")
    orphans = sorted(r[0] for r in rows if not r[3])
    check(not orphans, f"... and a named process ({len(orphans)} without: {orphans[:10]})")
    # also the incoming task of a closing switch (drawn idle, but listed
    # by Perfetto: seen nameless, as a nameless process)
    bad = t.nameless()
    check(not bad, f"every thread and process in the trace is named ({len(bad)} not: {bad[:10]})")


def thread_rows(out, t, tids):
    """(tid, thread name, pid, process name) of Perfetto's threads of
    tids (names None when empty), from the trace t of out (perfetto_view;
    compared with Perfetto's own when trace_processor_shell is there).
    (Row 0 of Perfetto's thread and process tables is its placeholder.)"""
    tab = perfetto_view.Tables(t)
    mine = [(tid,) + tab.thread_row(tid) for tid in sorted(tids) if tid in tab.threads]
    return perfetto_rows(out, "the tasks' threads and processes", mine,
                         "select t.tid, t.name, p.pid, p.name as pname from thread t "
                         "left join process p using(upid) where t.utid > 0 and "
                         f"t.tid in ({','.join(map(str, sorted(tids)))})",
                         lambda r: (int(r["tid"]), sql_null(r["name"]),
                                    int(r["pid"]) if sql_null(r["pid"]) else None, sql_null(r["pname"])))


def mode_all(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "sched-all.fxt")
    # A busy process on CPU 0 for part of the trace; CPU 1 goes idle. And
    # one at SCHED_FIFO 10 (kernel prio 89: real-time) on CPU 1, next to
    # one at nice 0 (prio 120).
    busy = [subprocess.Popen([pingpong, "30000", "--cpu", "0"], stdout=subprocess.DEVNULL),
            subprocess.Popen(["chrt", "-f", "10", pingpong, "3000", "--wait", "--cpu", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
            subprocess.Popen(["nice", "-n", str(-os.nice(0)), pingpong, "3000", "--wait", "--cpu", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)]
    ids = [parse_ids(b.stdout.readline()) for b in busy[1:]]
    prios = {tid: kernel_prio(tid) for i in ids for tid in i[1:]}
    print(f"  real-time and nice-0 workloads (pid, ping, pong): {ids}, kernel prios {prios}")
    try:
        tr = Tracer(tool, ["-a", "-d", "1500ms", "-o", out])
        for b in busy[1:]:
            b.stdin.write("go\n")
            b.stdin.flush()
        p = subprocess.CompletedProcess(tr.cmdline, tr.wait(), "", tr.stderr)
    finally:
        for b in busy:
            b.kill()
            b.wait()
    check(p.returncode == 0, f"ftf-bpf -a -d 1500ms exited 0 (got {p.returncode})")
    check("duration reached" in p.stderr, "ftf-bpf stopped because the duration was reached")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    cpus = {s[1] for s in t.switches}
    check(len(cpus) > 1 and len(cpus) <= os.cpu_count(),
          f"context switches on more than one CPU, at most {os.cpu_count()}: {sorted(cpus)}")
    pids = {k[0] for k in t.kobjs if k[1] == "process"}
    check(len(pids) > 1, f"more than one named process: {len(pids)}")
    check(1 in pids, "init (pid 1) is among the named processes")
    # The idle task (tid 0) runs only when a CPU has nothing to do, which a
    # loaded machine may never reach in 1.5 s; when it appears, it must be
    # marked idle the way Perfetto expects.
    into_idle = [s for s in t.switches if s[4] == 0]
    marked = [s for s in into_idle if "incoming_weight: int32(-2147483648)" in s[5]]
    check(len(marked) == len(into_idle),
          f"all {len(into_idle)} switches into the idle task carry weight INT32_MIN")
    # every tid switched in has a thread name and a process
    named = {k[0] for k in t.kobjs if k[1] == "thread"}
    unnamed = {s[4] for s in t.switches if s[4] != 0 and s[4] not in named}
    check(not unnamed, f"every thread switched in has a name ({len(unnamed)} without: {sorted(unnamed)[:10]})")
    bad = t.nameless()
    check(not bad, f"every thread and process in the trace is named ({len(bad)} not: {bad[:10]})")
    check(sorted(set(prios.values())) == [89, 120], f"the workloads run at kernel prio 89 and 120: {prios}")
    check_cpu_slices_end(out)
    rows = tp_query(out, "select t.tid, s.priority, count(*) as n from sched s join thread t using (utid) "
                         f"where t.tid in ({','.join(map(str, prios))}) group by 1, 2")
    if rows is not None:
        seen = {int(r["tid"]): int(r["priority"]) for r in rows}
        check(len(rows) == len(prios) and seen == prios,
              f"Perfetto's CPU slices carry the kernel's prio (real-time below 100): {seen}, expected {prios}")


def mode_dying(tool, ftf_dump, pingpong, outdir):
    """-a while 40 processes born before the trace die in its first
    moments (SIGKILL while they sleep): each appears only in the wakeup,
    switches and exit their death makes, and is gone from /proc before the
    tracer reads those (it reads in batches, up to 100 ms late). Seen
    before: such tasks named "" in a busy -a trace. Each must carry its
    name, "sleep", as a thread and as a process."""
    out = os.path.join(outdir, "sched-dying.fxt")
    sleepers = [subprocess.Popen(["sleep", "1000"]) for _ in range(40)]
    # and programs that live a few ms each, all along: some are born
    # before the programs are attached and gone before /proc is scanned
    churn = subprocess.Popen(["sh", "-c", "while :; do /bin/true; done"])
    try:
        time.sleep(0.2)
        tr = Tracer(tool, ["-a", "-d", "2s", "-o", out])
        for sp in sleepers:
            sp.kill()
        for sp in sleepers:
            sp.wait()
        rc = tr.wait()
    finally:
        for sp in sleepers + [churn]:
            sp.kill()
            sp.wait()
    check(rc == 0, f"ftf-bpf -a -d 2s exited 0 (got {rc})")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    pids = [sp.pid for sp in sleepers]
    shown = {s[3] for s in t.switches} | {s[4] for s in t.switches} | {w[2] for w in t.wakeups}
    seen = [p for p in pids if p in shown]
    check(len(seen) == len(pids), f"all {len(pids)} dying processes appear in the trace ({len(seen)})")
    wrong = [(p, t.thread_names(p), t.process_names(p)) for p in seen
             if "sleep" not in t.thread_names(p) or "sleep" not in t.process_names(p)]
    check(not wrong, f"each is named 'sleep', thread and process ({len(wrong)} not: {wrong[:5]})")
    bad = t.nameless()
    check(not bad, f"every thread and process in the trace is named ({len(bad)} not: {bad[:10]})")


def mode_sigint(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "sched-sigint.fxt")
    busy = subprocess.Popen([pingpong, "100000000"], stdout=subprocess.DEVNULL)
    try:
        tr = Tracer(tool, ["-a", "-o", out])
        time.sleep(1.0)
        tr.signal(signal.SIGINT)
        rc = tr.wait()
    finally:
        busy.kill()
        busy.wait()
    check(rc == 0, f"ftf-bpf exited 0 after SIGINT (got {rc})")
    check("Ctrl-C" in tr.stderr, "ftf-bpf says it stopped on Ctrl-C")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    check(ends_on_record_boundary(out), "the file ends on a record boundary")
    check(len(t.switches) > 1000, f"the trace holds the switches of the busy second: {len(t.switches)}")


def mode_title(tool, ftf_dump, titlewl, outdir):
    """A process that set its title (argv overwritten, NUL-padded, as
    setproctitle does) is named as ps -o args shows it, its thread by its
    comm; Perfetto's process table has its title and its command line."""
    out = os.path.join(outdir, "sched-title.fxt")
    title = "titlewl: 15/main: checkpointer"
    wl = subprocess.Popen([titlewl, title] + ["x" * 20] * 4, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    pid = int(wl.stdout.readline().split("=")[1])
    shown = subprocess.run(["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    with open(f"/proc/{pid}/comm") as f:
        comm = f.read().strip()
    print(f"  workload pid={pid}: ps -o args shows {shown!r}, comm {comm!r}")
    check(shown == title, f"ps -o args shows the title the workload set: {shown!r}")
    tr = Tracer(tool, ["-p", str(pid), "-o", out])
    wl.communicate(input="go\n", timeout=60)
    check(tr.wait() == 0, "ftf-bpf exited 0 when the process exited")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    check(shown in t.process_names(pid), f"the FTF process is named as ps shows it: {t.process_names(pid)}")
    check(comm in t.thread_names(pid), f"its thread keeps its comm: {t.thread_names(pid)}")
    tab = perfetto_view.Tables(t)
    proc, main = tab.processes.get(pid), tab.threads.get(pid)
    rows = perfetto_rows(out, f"process {pid} with its main thread",
                         [(proc["name"], proc["cmdline"], main["name"])] if proc and main and main["pid"] == pid
                         else [],
                         f"select p.name, p.cmdline, t.name as thread from process p "
                         f"join thread t on t.upid = p.upid and t.tid = p.pid where p.pid = {pid}",
                         lambda r: (sql_null(r["name"]), sql_null(r["cmdline"]), sql_null(r["thread"])))
    check(len(rows) == 1, f"Perfetto has process {pid} once: {rows}")
    name, cmdline, thread = rows[0]
    check(name == shown, f"Perfetto names it as ps shows it: {name!r}")
    check((cmdline or "").strip() == shown, f"Perfetto's process details have its command line: {cmdline!r}")
    check(thread == comm, f"Perfetto names its thread by comm: {thread!r}")
    bad = tp_query(out, "select name, value from stats where value > 0 and severity in ('error', 'data_loss')")
    if bad is not None:
        check(not bad, f"trace_processor reports no error stats: {bad}")


# The order of the top-level process groups in Perfetto's UI, as its
# plugin dev.perfetto.ProcessThreadGroups (ui/src/plugins/, v58.2-ec5d16b,
# the UI of validators/ui) computes it: the processes with something to
# show, by the sort hint trace_processor keeps as a process arg, then
# Chrome's process kinds, heap profiles, stack samples, running time,
# slices, name.
UI_PROCESS_ORDER = """include perfetto module viz.summary.processes;
select p.upid, p.pid, p.name,
  ifnull(extract_arg(p.arg_set_id, 'process_sort_index_hint'), 0) as hint,
  s.sum_running_dur as running
from _process_available_info_summary s join process p using(upid)
order by hint asc,
  case p.name when 'Browser' then 3 when 'Gpu' then 2 when 'Renderer' then 1 else 0 end desc,
  s.allocation_count desc, s.graph_object_count desc, s.stack_sample_count desc,
  s.sum_running_dur desc, s.thread_slice_count + s.process_slice_count desc,
  p.name asc, p.upid asc"""


def mode_strangers(tool, ftf_dump, pingpong, outdir):
    """-p: what only shared a CPU with the traced process is no process of
    Perfetto's list. A busy loop (another process, started here) pinned
    to the CPU of the traced ping-pong preempts it: in Perfetto its
    thread runs on that CPU under its name, in the one group of the
    untraced (pid 0), and the only other processes are the traced one
    and its forks. The UI lists the traced process first, the untraced
    group after it, however long the stranger ran."""
    out = os.path.join(outdir, "sched-strangers.fxt")
    busy = subprocess.Popen(["taskset", "-c", "0", "sh", "-c", "while :; do :; done"])
    try:
        wl = subprocess.Popen([pingpong, str(N), "--wait", "--cpu", "0"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pid, ping, pong = parse_ids(wl.stdout.readline())
        print(f"  workload pid={pid}, busy stranger pid={busy.pid}")
        tr = Tracer(tool, ["-p", str(pid), "-o", out])
        wl.communicate(input="go\n", timeout=120)
        check(tr.wait() == 0, "ftf-bpf exited 0 when the traced process exited")
    finally:
        busy.kill()
        busy.wait()
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    tab = perfetto_view.Tables(t)
    # (row 0 of Perfetto's process table is its placeholder)
    rows = perfetto_rows(out, "Perfetto's processes", [(p, v["name"]) for p, v in tab.processes.items()],
                         "select pid, name from process where upid > 0",
                         lambda r: (int(r["pid"]), sql_null(r["name"])))
    print(f"  Perfetto's processes: {sorted(rows, key=repr)}")
    # (its forks too: LeakSanitizer's helper at exit, under ASan)
    others = [r for r in rows if r[0] not in (0, pid) and not (r[1] or "").endswith("pingpong")]
    group = [r[1] for r in rows if r[0] == 0]
    check("not traced (shared a CPU)" in group, f"the untraced group is named so: {group}")
    check(not others, f"no process but the traced one and the untraced group: {others}")
    # (Perfetto's CPU slices: a switch into it not marked idle)
    into = sum(1 for s in t.switches if s[4] == busy.pid and IDLE_WEIGHT not in s[5])
    name, group_pid, _ = tab.thread_row(busy.pid)
    ran = perfetto_rows(out, "the stranger's CPU slices", [(name, group_pid, into)] if into else [],
                        f"select t.name, p.pid, count(*) as n from sched s join thread t using(utid) "
                        f"left join process p using(upid) where t.tid = {busy.pid} group by t.utid",
                        lambda r: (sql_null(r["name"]), int(r["pid"]) if sql_null(r["pid"]) else None, int(r["n"])))
    check(ran and ran[0][2] > 0 and ran[0][0] == "sh" and ran[0][1] == 0,
          f"the stranger runs on the CPU tracks, named, in the untraced group (pid 0): {ran}")
    # The UI lists the process groups in the order of UI_PROCESS_ORDER:
    # the traced process first, the untraced group after it, by its sort
    # hint (its first key) whichever ran longer (they share one CPU).
    hint = perfetto_view.process_sort_hints(out)
    check(hint.get(0, 0) > hint.get(pid, 0),
          f"the untraced group's sort hint (decoded from the trace) is above the traced process's: {hint}")
    order = tp_query(out, UI_PROCESS_ORDER)
    if order is None:
        print("  (no trace_processor_shell: the UI's whole order not worked out)")
        return
    print(f"  the UI's process list: {[(r['pid'], r['name'], r['hint'], r['running']) for r in order]}")
    tp_hint = {int(r["pid"]): int(r["hint"]) for r in order}
    check(all(tp_hint.get(p, 0) == h for p, h in hint.items()),
          f"Perfetto's sort hints are the decoded ones ({tp_hint} against {hint})")
    # (the traced process's children too: pingpong forks, and under ASan
    # so does LeakSanitizer at exit; one may have run longer than it)
    listed = [int(r["pid"]) for r in order]
    check(listed and listed[-1] == 0 and pid in listed,
          f"the UI lists the traced processes first, the untraced group last: {listed}")


def mode_retitle(tool, ftf_dump, retitlewl, outdir):
    """Titles set while traced, by writing over argv with no system call
    (PostgreSQL's backends, nginx's workers): a child forked during the
    trace that sets its title, and the traced process that sets its own
    after the fork, are named in Perfetto by those titles (what ps -o
    args shows), not by the name the process had when the trace began."""
    out = os.path.join(outdir, "sched-retitle.fxt")
    child_title = "retitlewl: 15/main: alice shop [local] idle"
    self_title = "retitlewl: 15/main: postmaster"
    wl = subprocess.Popen([retitlewl, child_title, self_title] + ["x" * 30] * 3, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    pid = int(wl.stdout.readline().split("=")[1])
    tr = Tracer(tool, ["-p", str(pid), "-o", out])
    wl.stdin.write("go\n")
    wl.stdin.flush()
    child = int(wl.stdout.readline().split("=")[1])
    with open(f"/proc/{pid}/cmdline") as f:
        shown = f.read().rstrip("\0")
    print(f"  workload pid={pid} child={child}; /proc/{pid}/cmdline now {shown!r}")
    check(shown == self_title, f"/proc shows the title the workload set: {shown!r}")
    time.sleep(1)  # (it lives on with its title: ps shows it)
    wl.communicate(input="end\n", timeout=60)
    check(tr.wait() == 0, "ftf-bpf exited 0 when the process exited")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    procs = perfetto_view.Tables(t).processes
    rows = perfetto_rows(out, "the two processes", [(p, procs[p]["name"], procs[p]["cmdline"])
                                                    for p in (pid, child) if p in procs],
                         f"select pid, name, cmdline from process where upid > 0 and pid in ({pid}, {child})",
                         lambda r: (int(r["pid"]), sql_null(r["name"]), sql_null(r["cmdline"])))
    names = {r[0]: r[1] for r in rows}
    print(f"  Perfetto's processes: {rows}")
    check(names.get(child) == child_title, f"the forked child is named by its title: {names.get(child)!r}")
    check(names.get(pid) == self_title, f"the traced process by the title it set: {names.get(pid)!r}")
    cmd = {r[0]: (r[2] or "").strip() for r in rows}
    check(cmd.get(child) == child_title, f"the child's command line is its title: {cmd.get(child)!r}")


def cmdlines(path):
    """{pid: [command lines]} of the trace's ProcessTree packets (what
    Perfetto names a process by), in the order written."""
    out = {}
    for _, pkt in fields(read_ftf(path)[1]):
        tree = get(pkt, 2)
        for proc in get_all(tree, 1) if tree else []:
            args = [a.decode() for a in get_all(proc, 3)]
            out.setdefault(get(proc, 1), []).append(" ".join(args))
    return out


def mode_short_cmd(tool, ftf_dump, pingpong, outdir):
    """A -- CMD that exits at once (sleep 0.05, /bin/true) is named as the
    command, with its command line, where Perfetto names processes (the
    ProcessTree packets): it was named after ftf-bpf, the only command
    line written for its pid having been read before its exec, from the
    held copy of ftf-bpf. The expected names are what was run."""
    for cmd in (["sleep", "0.05"], ["/bin/true"]):
        out = os.path.join(outdir, "sched-short-cmd.fxt")
        p = subprocess.run([tool, "-o", out, "--", *cmd], capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, f"ftf-bpf -- {' '.join(cmd)} exited 0 (got {p.returncode}: {p.stderr[-300:]})")
        pid = int(re.search(r"\(pid (\d+)\)", p.stderr)[1])
        got = cmdlines(out).get(pid)
        print(f"  -- {' '.join(cmd)}: pid {pid}, command lines in the trace: {got}")
        check(got and all(c == " ".join(cmd) for c in got),
              f"every command line written for pid {pid} is {' '.join(cmd)!r} (got {got})")
        procs = perfetto_view.Tables(Trace(ftf_dump, out)).processes
        rows = perfetto_rows(out, f"process {pid}",
                             [(procs[pid]["name"], procs[pid]["cmdline"])] if pid in procs else [],
                             f"select name, cmdline from process where pid = {pid}",
                             lambda r: (sql_null(r["name"]), sql_null(r["cmdline"])))
        # (by its first argument, as given: ps -o args shows the same)
        check(rows and rows[0][0] == cmd[0], f"Perfetto names it {cmd[0]!r}: {rows}")


def mode_rings(tool, ftf_dump, pingpong, outdir):
    """--rings 2 -- pingpong --split: ping on CPU 0 (ring 0, read by the
    loop's thread), pong on CPU 1 (ring 1, read by a lane thread of its
    own). The kernel's own count of each thread's switch-outs (/proc's
    voluntary + involuntary, which the thread reads after its passes) is
    in the trace, plus at most its last few (its exit); both are named,
    and Perfetto reads every switch the file holds."""
    n = 20000
    out = os.path.join(outdir, "sched-rings.fxt")
    p = subprocess.run([tool, "--rings", "2", "-o", out, "--", pingpong, str(n), "--split"],
                       capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf --rings 2 -- pingpong exited 0 (got {p.returncode})")
    pid, ping, pong = parse_ids(p.stdout.strip().splitlines()[0])
    m = re.search(r"ping_switched_out=(\d+) pong_switched_out=(\d+)", p.stdout)
    check(m, f"pingpong printed its switch counts: {p.stdout!r}")
    # (rings numbered from 1 as the README does: the lane reads ring 2)
    lane = re.search(r"ring shards \(rings 2 to 2 of --rings 2, a thread each\): (\d+) events read", p.stderr)
    check(lane and int(lane[1]) >= int(m[2]),
          f"the summary says the second ring's thread read at least pong's {m[2]} switch-outs: {lane and lane[1]}")
    check("lost: 0 events" in p.stderr, "the summary reports 0 lost events")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()})")
    check(ends_on_record_boundary(t.path), "the file ends on a record boundary")
    for name, tid, cpu, kernel in (("ping", ping, 0, int(m[1])), ("pong", pong, 1, int(m[2]))):
        outs = [s for s in t.switches if s[3] == tid]
        on_cpu = sum(1 for s in outs if s[1] == cpu)
        print(f"  {name} (tid {tid}, CPU {cpu}): the kernel counted {kernel} switch-outs, the trace holds "
              f"{len(outs)}, {on_cpu} of them on CPU {cpu}")
        check(kernel >= n / 2, f"{name} was switched out at least {n // 2} times (it blocks for each pass)")
        # (after reading them the thread returns and exits: a preemption
        # and the exit's own blocks, 4 seen under ASan)
        check(kernel <= len(outs) <= kernel + 10,
              f"{name}'s switch-outs in the trace: the kernel's {kernel}, and at most 10 more after it read them")
        # (a thread pins itself once started: under ASan its start-up
        # blocks a few times on the other CPU first)
        check(on_cpu >= len(outs) - 20, f"all but its first few are on CPU {cpu} (pinned)")
        check(name in t.thread_names(tid), f"thread {tid} is named {name!r}: {t.thread_names(tid)}")
        check(pid in t.thread_process(tid), f"thread {tid} belongs to process {pid}")
        check(t.wakeups_of(tid) >= 1, f"{name} is woken in the trace: {t.wakeups_of(tid)}")
        rows = tp_query(out, f"select count(*) as n from sched join thread using(utid) where tid = {tid}")
        if rows is not None:
            # (a switch into a task no longer followed, its process
            # exiting, carries the weight INT32_MIN, which Perfetto
            # reads as no slice)
            into = sum(1 for s in t.switches if s[4] == tid and "incoming_weight: int32(-2147483648)" not in s[5])
            check(int(rows[0]["n"]) == into,
                  f"Perfetto's CPU slices of {name}: {rows[0]['n']}, the trace's switches into it: {into}")
    check(t.dropped_total() == 0, "the trace records no dropped events")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, pingpong, outdir = sys.argv[1:6]
    if mode == "title":
        os.makedirs(outdir, exist_ok=True)
        run_main(lambda: mode_title(tool, ftf_dump, sys.argv[6], outdir))
    if mode == "retitle":
        os.makedirs(outdir, exist_ok=True)
        run_main(lambda: mode_retitle(tool, ftf_dump, sys.argv[7], outdir))
    os.makedirs(outdir, exist_ok=True)
    fn = {"pid": mode_pid, "cmd": mode_cmd, "names": mode_names, "all": mode_all, "sigint": mode_sigint,
          "dying": mode_dying, "rings": mode_rings, "short-cmd": mode_short_cmd,
          "strangers": mode_strangers}[mode]
    run_main(lambda: fn(tool, ftf_dump, pingpong, outdir))


if __name__ == "__main__":
    main()
