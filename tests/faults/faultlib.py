# SPDX-License-Identifier: MIT
"""Helpers for the fault and load suite: leftover BPF/uprobe state, RSS
sampling, parsing ftf-bpf's summary, slices per thread. Standard library
only; builds on tests/integration/ftfcheck.py."""
import glob
import json
import os
import re
import select
import subprocess
import threading
import time

UPROBE_EVENTS = "/sys/kernel/tracing/uprobe_events"
DETACHER = "ftf-bpf-detach"  # src/loader/detach.h


def _bpftool(what):
    p = subprocess.run(["bpftool", "-j", what, "show"], capture_output=True, text=True)
    if p.returncode != 0:
        return []
    return json.loads(p.stdout or "[]")


def _fd_holders():
    """prog ids and link ids held open by some live process."""
    progs, links = set(), set()
    for fdinfo in glob.glob("/proc/[0-9]*/fdinfo/*"):
        try:
            with open(fdinfo) as f:
                text = f.read()
        except OSError:
            continue
        m = re.search(r"^link_id:\s*(\d+)", text, re.M)
        if m:
            links.add(int(m[1]))
            continue
        m = re.search(r"^prog_id:\s*(\d+)", text, re.M)
        if m:
            progs.add(int(m[1]))
    return progs, links


def kernel_state():
    """What must come back unchanged after a case: uprobe_events text."""
    try:
        with open(UPROBE_EVENTS) as f:
            return f.read()
    except OSError:
        return None


def leftovers(before_uprobe_events, probed=()):
    """Describes BPF programs named ftfb_* and their links that no live
    process holds (ours are gone once ftf-bpf has exited; another live
    ftf-bpf's are held by its fds), and a changed uprobe_events; '' if
    none."""
    problems = []
    # the helper that closes the links after ftf-bpf exits must finish
    for comm in glob.glob("/proc/[0-9]*/comm"):
        try:
            with open(comm) as f:
                if f.read().strip() == DETACHER:
                    problems.append(f"the detaching helper {comm.split('/')[2]} still runs")
        except OSError:
            continue
    progs = [p for p in _bpftool("prog") if p.get("name", "").startswith("ftfb_")]
    ours = {p["id"] for p in progs}
    links = [l for l in _bpftool("link") if l.get("prog_id") in ours]
    if progs or links:
        held_progs, held_links = _fd_holders()
        linked = set()
        for l in links:
            if l["id"] in held_links:
                linked.add(l["prog_id"])
            else:
                problems.append(f"link {l['id']} ({l.get('type')}) of prog {l['prog_id']} is held by no process")
        for p in progs:
            if p["id"] not in held_progs and p["id"] not in linked:
                problems.append(f"prog {p['id']} {p['name']} is loaded and held by no process")
    # ftf-bpf uses no tracefs; an entry it left would name one of the
    # binaries the case probed or an ftf group. Others' entries (perf
    # probe in a benchmark running meanwhile) are not ours to judge.
    after = kernel_state()
    if after != before_uprobe_events:
        b = set((before_uprobe_events or "").splitlines())
        a = set((after or "").splitlines())
        ours = [l for l in a ^ b
                if "ftf" in l.split(" ")[0] or any(p and p in l for p in (probed or ()))]
        if ours:
            problems.append(f"{UPROBE_EVENTS} changed: {ours}")
    return "; ".join(problems)


class RssSampler:
    """Samples VmRSS of a pid every `period` seconds; peak = max(VmHWM).

    Given the tool's stderr pipe, it also reads what the tool says, and
    working_kb holds only the samples taken before the tool printed
    "ftf-bpf: stopped" (its summary, printed once the trace is written):
    after that the tool only frees and exits, and in the ASan build
    LeakSanitizer's exit-time scan then adds about 10 MB to RSS for the
    last tens of ms (seen: 18.9 MB all run, 28.3 MB in the last sample),
    which a growth check must not count. The pipe is read after each RSS
    reading, so a sample counts as working only if the line was not yet
    written when RSS was read, however late this thread runs."""

    STOPPED = b"ftf-bpf: stopped"

    def __init__(self, pid, period=1.0, stderr=None):
        self.pid, self.period = pid, period
        self.samples = []  # (t, rss_kb), the whole run
        self.working_kb = []  # rss_kb read before the summary
        self.hwm_kb = 0
        self.stderr_bytes = b""
        self._err_fd = stderr.fileno() if stderr else None
        self._stop = False
        self._t0 = time.time()
        self._th = threading.Thread(target=self._run, daemon=True)
        self._th.start()

    def _read_stderr(self, timeout):
        """Reads what the pipe holds, waiting up to timeout for it."""
        if self._err_fd is None:
            time.sleep(timeout)
            return
        while select.select([self._err_fd], [], [], timeout)[0]:
            chunk = os.read(self._err_fd, 65536)
            if not chunk:
                self._err_fd = None  # EOF: the tool has exited
                return
            self.stderr_bytes += chunk
            timeout = 0

    def _sample(self):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                text = f.read()
            rss = int(re.search(r"VmRSS:\s+(\d+)", text)[1])
            hwm = int(re.search(r"VmHWM:\s+(\d+)", text)[1])
        except (OSError, TypeError):
            return
        self._read_stderr(0)  # after the reading (see the class comment)
        self.samples.append((time.time() - self._t0, rss))
        self.hwm_kb = max(self.hwm_kb, hwm)
        if self.STOPPED not in self.stderr_bytes:
            self.working_kb.append(rss)

    def _run(self):
        while not self._stop:
            self._sample()
            self._read_stderr(self.period)

    def stop(self):
        """Stops sampling; with a stderr pipe, call it once the tool has
        exited: it reads the pipe to its end."""
        self._stop = True
        self._th.join()
        while self._err_fd is not None:
            self._read_stderr(None)

    @property
    def stderr(self):
        return self.stderr_bytes.decode(errors="replace")

    @property
    def peak_kb(self):
        return max([self.hwm_kb] + [s[1] for s in self.samples])


KINDS = {
    "context switches": "switch", "wakeups": "wakeup", "new-task wakeups": "wakeup_new",
    "forks": "fork", "execs": "exec", "exits": "exit", "renames": "rename",
    "function entries": "uentry", "function returns": "uret",
}


def parse_summary(stderr):
    """(received by kind, lost by kind, lost total) from the summary."""
    got, lost, total = {}, {}, None
    m = re.search(r"^\s*events:(.*)$", stderr, re.M)
    if m:
        for n, what in re.findall(r"(\d+) ([a-z -]+?),", m[1]):
            got[KINDS.get(what.strip(), what.strip())] = int(n)
    m = re.search(r"LOST: (\d+) events \(ring buffer full:([^)]*)\)", stderr)
    if m:
        total = int(m[1])
        for n, what in re.findall(r"(\d+) ([a-z -]+?)(?= \d|$)", m[2].strip()):
            lost[KINDS.get(what.strip(), what.strip())] = int(n)
    elif re.search(r"lost: 0 events", stderr):
        total = 0
    return got, lost, total


def trace_drops(trace):
    """The last "ftf-bpf dropped events" counter's args, by kind."""
    last = {}
    for ts, name, args in trace.counters:
        if name == "ftf-bpf dropped events":
            last = {k: int(v) for k, v in re.findall(r"(\w+): int64\((-?\d+)\)", args)}
    return last


def slices(trace, name=None):
    """Per tid: number of DurationBegin / DurationEnd records (of `name`)."""
    begins, ends = {}, {}
    for ts, pid, tid, cat, n, kind, args in trace.events:
        if name and n != name:
            continue
        if kind == "DurationBegin":
            begins[tid] = begins.get(tid, 0) + 1
        elif kind == "DurationEnd":
            ends[tid] = ends.get(tid, 0) + 1
    return begins, ends


def figures(case, fired, written, dropped, peak_kb, note=""):
    print(f"FIGURES: case={case} fired={fired} written={written} dropped={dropped} "
          f"peak_rss_kb={peak_kb} {note}".rstrip())
