# SPDX-License-Identifier: MIT
"""Helpers for the integration tests: run ftf-bpf, read traces back.

Traces are read through the project's reader (ftf-dump), whose line format
follows Fuchsia's trace-reader (Record::ToString). Only the standard library
is used.
"""
import collections
import csv
import io
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)
    print(f"  ok: {what}")


def trace_processor():
    """Perfetto's trace_processor_shell: $TRACE_PROCESSOR (meson option
    trace_processor) or on PATH; None if there is none."""
    tp = os.environ.get("TRACE_PROCESSOR") or shutil.which("trace_processor_shell")
    return tp if tp and os.access(tp, os.X_OK) else None


def tp_query(path, sql):
    """The rows (dicts of strings) of sql on the trace as Perfetto reads
    it, or None (said so) when there is no trace_processor_shell."""
    tp = trace_processor()
    if tp is None:
        print("  SKIPPED (no trace_processor_shell; meson option trace_processor): " + sql)
        return None
    with open(path + ".sql", "w") as f:
        f.write(sql + "\n")
    p = subprocess.run([tp, "-q", path + ".sql", path], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise Fail(f"trace_processor_shell failed on {path}: {p.stderr.strip()[-500:]}")
    lines = [ln for ln in p.stdout.splitlines() if ln.strip()]
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"')), len(lines))
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def perfetto_rows(path, what, mine, sql, convert):
    """mine: the rows of what Perfetto shows of the trace at path, worked
    out by perfetto_view.py, which needs no Perfetto. With Perfetto's
    trace_processor_shell, sql's rows, each turned by convert into the
    same form, must be the very same rows (in any order): a mismatch
    fails, so the decoding here is checked against Perfetto wherever
    Perfetto is there. Returns mine."""
    if trace_processor() is None:
        print(f"  {what}: {len(mine)} rows decoded from the trace (no trace_processor_shell to compare them with)")
        return mine
    theirs = [convert(r) for r in tp_query(path, sql)]
    a, b = collections.Counter(mine), collections.Counter(theirs)
    if a != b:
        raise Fail(f"{what}: the {len(mine)} rows decoded from the trace are not Perfetto's {len(theirs)}: "
                   f"only decoded {sorted((a - b).elements(), key=repr)[:4]}, "
                   f"only in Perfetto {sorted((b - a).elements(), key=repr)[:4]}")
    print(f"  ok: {what}: the {len(mine)} rows decoded from the trace are Perfetto's")
    return mine


def sql_null(v):
    """A value of tp_query's rows, None for SQL's NULL."""
    return None if v in ("", "[NULL]", None) else v


def skip_unless_root():
    if os.geteuid() != 0:
        print("SKIP: the BPF integration tests need root (run sudo meson test)")
        sys.exit(77)


def dump(ftf_dump, path, *flags):
    """Runs ftf-dump; returns (exit code, stdout lines, stderr)."""
    p = subprocess.run([ftf_dump, *flags, path], capture_output=True, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr


RE_CS = re.compile(r"^ContextSwitch\(ts: (\d+), cpu: (\d+), os: (\w+), ot: (\d+), it: (\d+)(.*)\)$")
RE_WAKE = re.compile(r"^ThreadWakeup\(ts: (\d+), cpu: (\d+), it: (\d+)(.*)\)$")
RE_KOBJ = re.compile(r'^KernelObject\(koid: (\d+), type: (\w+), name: "(.*)", \{(.*)\}\)$')
RE_EVENT = re.compile(r'^Event\(ts: (\d+), pt: (\d+)/(\d+), category: "(.*?)", name: "(.*?)", (\w+)(?:\([^)]*\))?, \{(.*)\}\)$')
RE_COUNTER = re.compile(r'^Event\(ts: (\d+), pt: (\d+)/(\d+), category: "(.*?)", name: "(.*?)", Counter\(id: (\d+)\), \{(.*)\}\)$')


class Trace:
    """The records of a trace, as ftf-dump prints them."""

    def __init__(self, ftf_dump, path):
        self.path = path
        code, lines, err = dump(ftf_dump, path, "--check")
        self.check_code = code
        self.check_out = "\n".join(lines) + err
        code, self.lines, err = dump(ftf_dump, path)
        self.dump_code = code
        self.dump_err = err
        self.switches = []  # (ts, cpu, out_state, out_tid, in_tid, rest)
        self.wakeups = []   # (ts, cpu, tid, rest)
        self.kobjs = []     # (koid, type, name, args)
        self.events = []    # (ts, pid, tid, category, name, kind, args)
        self.counters = []  # (ts, name, args)
        for line in self.lines:
            m = RE_CS.match(line)
            if m:
                self.switches.append((int(m[1]), int(m[2]), m[3], int(m[4]), int(m[5]), m[6]))
                continue
            m = RE_WAKE.match(line)
            if m:
                self.wakeups.append((int(m[1]), int(m[2]), int(m[3]), m[4]))
                continue
            m = RE_KOBJ.match(line)
            if m:
                self.kobjs.append((int(m[1]), m[2], m[3], m[4]))
                continue
            m = RE_COUNTER.match(line)
            if m:
                self.counters.append((int(m[1]), m[5], m[7]))
                continue
            m = RE_EVENT.match(line)
            if m:
                self.events.append((int(m[1]), int(m[2]), int(m[3]), m[4], m[5], m[6], m[7]))

    def thread_names(self, tid):
        return [k[2] for k in self.kobjs if k[1] == "thread" and k[0] == tid]

    def thread_process(self, tid):
        out = []
        for k in self.kobjs:
            if k[1] == "thread" and k[0] == tid:
                m = re.search(r"process: koid\((\d+)\)", k[3])
                if m:
                    out.append(int(m[1]))
        return out

    def process_names(self, pid):
        return [k[2] for k in self.kobjs if k[1] == "process" and k[0] == pid]

    def nameless(self):
        """The threads and processes the trace shows with no name: every
        tid in a switch, a wakeup (target and waker) or an event, and the
        process of each, must have a kernel object with a non-empty name
        (Perfetto otherwise lists a bare "Thread N", or a nameless process
        of no thread). A task of no traced process (-p/--) is named as a
        thread of no process, by a ProcessTree packet of the trace (its
        threads: Perfetto puts them in its untraced group, pid 0).
        Returns one description per nameless one."""
        from perfetto_view import fields, get, get_all, read_ftf
        named = {(k[1], k[0]) for k in self.kobjs if k[2]}
        apart = set()
        for _, pkt in fields(read_ftf(self.path)[1]):
            tree = get(pkt, 2)
            for thr in get_all(tree, 2) if tree else []:
                if get(thr, 2):
                    apart.add(get(thr, 1))
        tids = set()
        for s in self.switches:
            tids.update((s[3], s[4]))
        for w in self.wakeups:
            tids.add(w[2])
            m = re.search(r"waker: koid\((\d+)\)", w[3])
            if m:
                tids.add(int(m[1]))
        for e in self.events:
            tids.add(e[2])
        bad = []
        for tid in sorted(tids - apart):
            if ("thread", tid) not in named:
                bad.append(f"thread {tid}")
            for pid in set(self.thread_process(tid)):
                if ("process", pid) not in named:
                    bad.append(f"process {pid} (of thread {tid})")
        return bad

    def switches_into(self, tid):
        return sum(1 for s in self.switches if s[4] == tid)

    def wakeups_of(self, tid):
        return sum(1 for w in self.wakeups if w[2] == tid)

    def dropped_total(self):
        """The last value of the trace's dropped-events counter, 0 if none."""
        total = 0
        for ts, name, args in self.counters:
            if "drop" in name:
                vals = [int(v) for v in re.findall(r"int64\((-?\d+)\)", args)]
                vals += [int(v) for v in re.findall(r"uint64\((\d+)\)", args)]
                if vals:
                    total = max(total, max(vals))
        return total


def ends_on_record_boundary(path):
    """Walks the record headers of the file from the start; True if the last
    record ends exactly at the end of the file (independent of our reader)."""
    with open(path, "rb") as f:
        data = f.read()
    off = 0
    while off + 8 <= len(data):
        hdr = int.from_bytes(data[off:off + 8], "little")
        rtype = hdr & 0xF
        if rtype == 15:
            size = (hdr >> 4) & 0xFFFFFFFF
        else:
            size = (hdr >> 4) & 0xFFF
        if size == 0:
            return False
        off += size * 8
    return off == len(data)


class Tracer:
    """ftf-bpf running in the background; waits until it is attached."""

    def __init__(self, tool, args, ready_timeout=30.0):
        self.cmdline = [tool, *args]
        print("  run:", " ".join(self.cmdline))
        self.p = subprocess.Popen(self.cmdline, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        self.err_lines = []
        deadline = time.time() + ready_timeout
        while time.time() < deadline:
            r, _, _ = select.select([self.p.stderr], [], [], 0.5)
            if r:
                line = self.p.stderr.readline()
                if not line:
                    break
                self.err_lines.append(line)
                if "tracing" in line and "Ctrl-C" in line:
                    return
            elif self.p.poll() is not None:
                break
        out, err = self.p.communicate(timeout=30)
        raise Fail("ftf-bpf did not start tracing: " + "".join(self.err_lines) + err)

    def signal(self, sig):
        self.p.send_signal(sig)

    def wait(self, timeout=120):
        out, err = self.p.communicate(timeout=timeout)
        self.stdout = out
        self.stderr = "".join(self.err_lines) + err
        print("  ftf-bpf said:\n    " + self.stderr.strip().replace("\n", "\n    "))
        return self.p.returncode


def run_main(fn):
    try:
        fn()
    except Fail as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS")
    sys.exit(0)
