#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--events end to end, on evwl (tests/integration/evwl.c), whose counts
are known: its own numbers (requests made, pages touched, ru_majflt) and
the kernel's /proc/interrupts are the expectations, never ftf-bpf's
output alone.

usage: test_events.py MODE FTF_BPF FTF_DUMP EVWL OUTDIR
MODE: io | writeback | mem | fault | irq | vectors | waker | errors
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Fail, Trace, Tracer, check, perfetto_rows, run_main, skip_unless_root, sql_null, tp_query  # noqa: E402
import perfetto_view  # noqa: E402

N = 32          # block requests of each kind, page faults
IO_BYTES = 65536
PAGE = os.sysconf("SC_PAGESIZE")
PID_MAX = 4194304  # (the most the kernel allows: any id above is made up)
RE_COMPLETE = re.compile(r'^Event\(ts: (\d+), pt: (\d+)/(\d+), category: "(.*?)", name: "(.*?)", '
                         r'DurationComplete\(end_ts: (\d+)\), \{(.*)\}\)$')


def run(tool, args):
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=180)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    return p


def perfetto_clean(out):
    """Perfetto reads the trace with no error or data-loss statistic."""
    rows = tp_query(out, "select name, idx, value from stats where value > 0 "
                         "and severity in ('error', 'data_loss')")
    if rows is not None:
        check(not rows, f"Perfetto reads it with no error stats ({rows[:5]})")


def valid(ftf_dump, out):
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    perfetto_clean(out)
    bad = t.nameless()
    check(not bad, f"every thread and process is named ({len(bad)} not: {bad[:6]})")
    check(t.dropped_total() == 0, "no event lost")
    return t


def slices(t, category=None):
    """(begin, end, pid, tid, name, {arg: value}) of the complete slices."""
    out = []
    for line in t.lines:
        m = RE_COMPLETE.match(line)
        if m and (category is None or m[4] == category):
            args = {k: v for k, v in re.findall(r'(\w+): \w+\(("[^"]*"|-?\d+|0x[0-9a-f]+)\)', m[7])}
            out.append((int(m[1]), int(m[6]), int(m[2]), int(m[3]), m[5], args))
    return out


def like(pattern, name):
    """SQL's LIKE (case aside): % any run of characters, _ any one."""
    rx = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, name, re.S) is not None


def args_text(pairs):
    """A slice's arguments as one comparable value: sorted key=value."""
    return ";".join(sorted(f"{k}={v}" for k, v in pairs))


def named_slices(out, *tracks):
    """(begin, end, pid or None, track name, name, {arg: value}) of the
    slices on Perfetto's named tracks (not threads) whose name is LIKE
    one of tracks, as Perfetto reads them (decoded by perfetto_view, and
    compared with trace_processor_shell's when it is there); pid: the
    process whose track it is, None at the top; the slice's category
    among the args."""
    mine = perfetto_view.named_slices(out, lambda n: any(like(p, n) for p in tracks))
    rows = [(s["ts"], s["dur"], s["name"], s["category"], s["track"], s["pid"],
             args_text((f"debug.{k}", v) for k, v in s["args"].items())) for s in mine]
    where = " or ".join(f"t.name like '{p}'" for p in tracks)
    sql = (f"select s.ts, s.dur, s.name, s.category, t.name as track, p.pid, "
           f"(select group_concat(a.key || '=' || a.display_value, ';') from args a "
           f"where a.arg_set_id = s.arg_set_id and a.key like 'debug.%') as args "
           f"from slice s join track t on s.track_id = t.id "
           f"left join process p on p.upid = extract_arg(t.dimension_arg_set_id, 'upid') "
           f"where ({where})")
    perfetto_rows(out, f"slices on tracks {tracks}", rows, sql,
                  lambda r: (int(r["ts"]), int(r["dur"]), r["name"], sql_null(r["category"]), r["track"],
                             int(r["pid"]) if sql_null(r["pid"]) else None,
                             args_text(kv.split("=", 1) for kv in (r["args"] or "").split(";") if kv)))
    return [(s["ts"], s["ts"] + s["dur"], s["pid"], s["track"], s["name"],
             dict(s["args"], category=s["category"])) for s in mine]


def make_file(path, nbytes):
    """The workload's file, written and synced before any trace."""
    subprocess.run(["dd", "if=/dev/urandom", f"of={path}", f"bs={nbytes}", "count=1",
                    "status=none"], check=True)
    os.sync()


def kv(line):
    return {k: int(v) for k, v in (x.split("=") for x in line.split())}


class LoopDevice:
    """A loop device over a file of nbytes, detached at the end: a disk
    with no file system, so each 64 KiB O_DIRECT call is one request (a
    file's extents on vda may split one)."""

    def __init__(self, backing, nbytes):
        make_file(backing, nbytes)
        self.dev = subprocess.run(["losetup", "--find", "--show", backing], capture_output=True,
                                  text=True, check=True).stdout.strip()
        print(f"  loop device: {self.dev} over {backing}")

    def __enter__(self):
        return self.dev

    def __exit__(self, *exc):
        subprocess.run(["losetup", "-d", self.dev])


def mode_io(tool, ftf_dump, wl, outdir):
    """N O_DIRECT writes (each then fdatasync) and N reads of 64 KiB on a
    loop device: N write and N read requests of 64 KiB made by the
    thread, each inside the system call that waited for it, in its
    process and on its disk."""
    out = os.path.join(outdir, "events-io.fxt")
    with LoopDevice(os.path.join(outdir, "evloop.img"), N * IO_BYTES) as dev:
        p = run(tool, ["--events=io", "--syscalls", "--clock", "mono", "-o", out, "--", wl, "io", dev, str(N)])
    tid = kv(p.stdout.splitlines()[0])["tid"]
    t = valid(ftf_dump, out)
    check(not slices(t, "block"), "no block request on a thread of FTF's (pseudo or not)")
    blk = named_slices(out, "block I/O", "disk %")
    sc = [s for s in slices(t, "syscall") if s[3] == tid]
    mine = [s for s in blk if s[2] == tid and s[3] == "block I/O" and int(s[5]["tid"]) == tid]
    for op, call in (("write", "pwrite64"), ("read", "pread64")):
        reqs = [s for s in mine if s[4] == op and int(s[5]["bytes"]) == IO_BYTES]
        other = [(s[4], s[5]["bytes"]) for s in mine if s[4] == op and int(s[5]["bytes"]) != IO_BYTES]
        check(len(reqs) == N, f"{len(reqs)} {op} requests of {IO_BYTES} bytes in the process = {N} "
              f"(its other {op}s: {other[:5]})")
        # (the dynamic loader makes a few pread64 calls of its own)
        calls = [s for s in sc if s[4] == call]
        homes = [[c for c in calls if c[0] <= r[0] and r[1] <= c[1]] for r in reqs]
        check(all(len(h) == 1 for h in homes) and len({h[0][:2] for h in homes}) == N,
              f"each {op} request lies inside its own {call} of the thread ({len(calls)} calls)")
        check(all(r[1] > r[0] and int(r[5]["device_ns"]) > 0 for r in reqs),
              f"every {op} request lasts > 0 ns, device time > 0 "
              f"(median {sorted(r[1] - r[0] for r in reqs)[N // 2] / 1e3:.0f} us)")
        check(len({int(r[5]["sector"]) for r in reqs}) == N, f"the {op}s cover {N} distinct sectors")
        disk = [s for s in blk if s[2] is None and s[3].startswith("disk ") and s[4] == op
                and int(s[5]["tid"]) == tid and int(s[5]["bytes"]) == IO_BYTES]
        check(len(disk) == N, f"the disk's view shows the same {len(disk)} {op}s")
    # (a loop device has a write cache: each fdatasync flushes it)
    flushes = [s for s in mine if s[4] == "flush"]
    check(len(flushes) == N, f"{len(flushes)} flush requests = the {N} fdatasync calls")
    on_disk = [s for s in blk if s[2] is None and int(s[5]["tid"]) == tid]
    check(len(on_disk) == len(mine), f"each request of the thread in its process ({len(mine)}) and "
                                     f"on its disk ({len(on_disk)})")
    names = {s[3] for s in blk if s[2] is None and int(s[5]["tid"]) == tid}
    # (the loop device's own requests reach the disk under it too)
    check(f"disk {os.path.basename(dev)}" in names and all(n.startswith("disk ") for n in names),
          f"the disks' tracks are named for them: {names}")
    tab = perfetto_view.Tables(t)
    # (row 0 of Perfetto's process and thread tables is its placeholder)
    ids = perfetto_rows(out, "Perfetto's processes and threads",
                        [("process", p) for p in tab.processes] + [("thread", k) for k in tab.threads],
                        "select 'process' as kind, pid as id from process where upid > 0 union all "
                        "select 'thread', tid from thread where utid > 0",
                        lambda r: (r["kind"], int(r["id"])))
    fake = [i for i in ids if i[1] > PID_MAX]
    check(not fake, f"no process or thread with a made-up id (above pid_max): {fake[:5]}")
    check("block requests" in p.stderr, "the summary counts the block requests")


def anon_steps(t, tgid):
    """(ts, bytes) of the process's rss:anon counter."""
    out = []
    for ts, name, args in t.counters:
        m = re.search(r"anon: int64\((\d+)\)", args)
        if name == "rss" and m:
            out.append((ts, int(m[1])))
    return out


def mode_mem(tool, ftf_dump, wl, outdir):
    """STEPS steps of MB MiB touched page by page: the rss:anon counter
    grows by each step's pages, within 2 pages."""
    steps, mb = 6, 8
    out = os.path.join(outdir, "events-mem.fxt")
    p = run(tool, ["--events=mem", "--clock", "mono", "-o", out, "--", wl, "mem", str(steps), str(mb)])
    lines = p.stdout.splitlines()
    tid = kv(lines[0])["tid"]
    marks = [kv(ln) for ln in lines[1:]]
    t = valid(ftf_dump, out)
    anon = [c for c in anon_steps(t, tid)]
    check(len(anon) >= steps * mb * 256, f"{len(anon)} rss:anon changes, at least the {steps * mb * 256} pages touched")
    at = []
    for m in marks:
        before = [v for ts, v in anon if ts <= m["ns"]]
        check(before, f"a counter value before step {m['step']}")
        at.append(before[-1])
        print(f"    step {m['step']}: counter {before[-1] // 1024} kB, /proc RssAnon {m['rss_anon_kb']} kB")
    want = mb << 20
    for i in range(1, steps):
        grew = at[i] - at[i - 1]
        check(abs(grew - want) <= 2 * PAGE, f"step {i}: the counter grew by {grew} bytes = {want} +- 2 pages")
    check(all(abs(v - m["rss_anon_kb"] * 1024) <= 64 * PAGE for v, m in zip(at, marks)),
          "each value is within /proc's own approximation (it leaves out up to 32 pages a cpu) of RssAnon")


def mode_fault(tool, ftf_dump, wl, outdir):
    """N pages of a file not in the page cache read through a mapping with
    no readahead: N major faults (ru_majflt); those the thread slept in
    (its voluntary switches, ru_nvcsw: a read that completed before the
    fault waited for it costs no sleep) are the 'page fault' slices."""
    data = os.path.join(outdir, "evfault.dat")
    out = os.path.join(outdir, "events-fault.fxt")
    make_file(data, N * PAGE)
    p = run(tool, ["--events=mem", "--clock", "mono", "-o", out, "--", wl, "fault", data, str(N)])
    r = kv(p.stdout.splitlines()[0])
    t = valid(ftf_dump, out)
    faults = [s for s in slices(t, "mm") if s[3] == r["tid"] and s[4] == "page fault"]
    check(r["majflt"] == N, f"the workload counted {r['majflt']} major faults = {N} (ru_majflt)")
    # (one slice per fault that slept; a fault that sleeps twice, its
    # retry waiting again after the read it waited for, is one: CI saw 29
    # slices for 30 sleeps once)
    check(r["slept"] - 2 <= len(faults) <= min(r["slept"], r["majflt"]) and len(faults) >= N // 2,
          f"{len(faults)} page fault slices on the thread: its {r['slept']} sleeps (ru_nvcsw) "
          f"or up to 2 fewer, at most its {r['majflt']} major faults, >= {N // 2}")
    check(all(0 < int(s[5]["blocked_ns"]) <= s[1] - s[0] for s in faults),
          "each slept in the fault: 0 < blocked_ns <= the slice's length")
    check(len({int(s[5]["address"], 16) // PAGE for s in faults}) == len(faults),
          "the faults are at distinct pages")


def interrupts(name_re):
    """Sum over cpus of the /proc/interrupts lines whose name matches."""
    total = 0
    with open("/proc/interrupts") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0].endswith(":") and re.search(name_re, line):
                total += sum(int(x) for x in parts[1:] if x.isdigit())
    return total


def disk_irq_name():
    """The vda's virtio queue interrupts (virtioN-req.*), or None."""
    try:
        dev = os.path.basename(os.readlink("/sys/block/vda/device"))
    except OSError:
        return None
    return rf"{dev}-req\."


def mode_irq(tool, ftf_dump, wl, outdir):
    """With -a: the disk's hard interrupts in the trace, at most as many as
    /proc/interrupts counted around the whole run and at least one per
    synchronous request of the workload run inside it; every hard one
    nests in a softirq of its cpu or stands alone. Per process: only the
    interrupts that took the cpu from the traced thread."""
    data = os.path.join(outdir, "evio.dat")
    out = os.path.join(outdir, "events-irq.fxt")
    name = disk_irq_name()
    make_file(data, N * IO_BYTES)
    if name:
        before = interrupts(name)
    tr = Tracer(tool, ["-a", "--events=irq", "--clock", "mono", "-o", out])
    try:
        w = subprocess.run([wl, "io", data, str(N)], capture_output=True, text=True, timeout=120)
        time.sleep(0.2)
    finally:  # (never an -a tracer left running)
        tr.signal(signal.SIGINT)
    check(tr.wait() == 0, "ftf-bpf -a ends cleanly")
    check(w.returncode == 0, "the workload ran")
    t = valid(ftf_dump, out)
    check(not slices(t, "irq") and not slices(t, "softirq"), "no interrupt on a thread of FTF's")
    irqs = named_slices(out, "cpu % interrupts")
    hard = [s for s in irqs if s[5].get("category") == "irq"]
    check(irqs and all(s[2] is None for s in irqs),
          f"{len(irqs)} interrupt slices on per-cpu 'cpu N interrupts' tracks of no process")
    if name:
        after = interrupts(name)
        disk = [s for s in hard if re.match(name, s[4])]
        check(2 * N <= len(disk) <= after - before,
              f"{len(disk)} disk interrupts: >= the {2 * N} requests, <= /proc/interrupts' {after - before}")
    by_cpu = {}
    for s in irqs:
        by_cpu.setdefault(s[3], []).append(s)
    for cpu, ss in by_cpu.items():
        ss.sort()
        for a, b in zip(ss, ss[1:]):
            if b[0] < a[1]:
                check(b[1] <= a[1], f"on {cpu}: {b[4]} inside {a[4]} or after it")
    # per process: what interrupted the traced thread only
    out2 = os.path.join(outdir, "events-irq-pid.fxt")
    p = run(tool, ["--events=irq", "--clock", "mono", "-o", out2, "--", wl, "io", data, str(N)])
    tid = kv(p.stdout.splitlines()[0])["tid"]
    t = valid(ftf_dump, out2)
    irqs = named_slices(out2, "cpu % interrupts")
    victims = {int(s[5]["interrupted_tid"]) for s in irqs}
    check(all(v == tid or t.thread_process(v) == [tid] for v in victims),
          f"per process, the {len(irqs)} interrupts all took the cpu from a thread of {tid}: {victims}")


def proc_vector(tag):
    """The total over cpus of /proc/interrupts' line `tag` (LOC, RES)."""
    with open("/proc/interrupts") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] == tag + ":":
                return sum(int(x) for x in parts[1:] if x.isdigit())
    return None


def mode_vectors(tool, ftf_dump, wl, outdir):
    """With -a --events=irq: the local timer's interrupts (x86's
    irq_vectors, no irq handler) are in the trace, as many as
    /proc/interrupts' LOC counted while tracing (less one a cpu at each
    edge, and those on the tracer's own threads), at most as many as it
    counted around the whole run."""
    out = os.path.join(outdir, "events-vectors.fxt")
    ncpu = os.cpu_count()
    outer0 = proc_vector("LOC")
    if outer0 is None:
        print("  SKIPPED: no LOC line in /proc/interrupts (not x86)")
        return
    tr = Tracer(tool, ["-a", "--events=irq", "-o", out])
    try:
        inner0 = proc_vector("LOC")
        time.sleep(2)
        inner1 = proc_vector("LOC")
    finally:  # (never an -a tracer left running)
        tr.signal(signal.SIGINT)
    check(tr.wait() == 0, "ftf-bpf -a ends cleanly")
    outer1 = proc_vector("LOC")
    valid(ftf_dump, out)
    irqs = named_slices(out, "cpu % interrupts")
    timer = [s for s in irqs if s[4] == "local_timer"]
    names = {s[4] for s in irqs if s[5].get("category") == "irq"}
    print(f"  LOC: {inner1 - inner0} while tracing, {outer1 - outer0} around the run; "
          f"the trace: {len(timer)} local_timer; hard interrupt names {sorted(names)[:10]}")
    # (interrupts that land on the tracer's own threads are not recorded,
    # bpf/irq.bpf.c's self_tgid: on a loaded machine up to 1% of LOC's
    # were, so 5% of them, beside one a cpu at each edge, are allowed)
    low = int((inner1 - inner0) * 0.95) - 2 * ncpu
    check(low <= len(timer) <= outer1 - outer0,
          f"local_timer slices {len(timer)}: LOC's {inner1 - inner0} while tracing (less 5% and {2 * ncpu},"
          f" {low}) to its {outer1 - outer0} around the run")


def mode_waker(tool, ftf_dump, wl, outdir):
    """-g --events=waker: the main thread wakes the sleeper N times from
    waker_writes(): its waker stacks are as many as the sleeper's sleeps
    (ru_nvcsw), each naming waker_writes."""
    from test_stacks import decode_samples, read_ftf
    n = 50
    out = os.path.join(outdir, "events-waker.fxt")
    p = run(tool, ["-g", "--events=waker", "--clock", "mono", "-o", out, "--", wl, "wake", str(n)])
    r = {}
    for ln in p.stdout.splitlines():
        r.update(kv(ln))
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    check(t.dropped_total() == 0, "no event lost")
    perfetto_clean(out)
    _, stream = read_ftf(out)
    seqs, samples = decode_samples(stream)
    check("waker stacks" in {q.timebase for q in seqs.values()}, "a sequence (timebase) 'waker stacks'")
    wakers = [s for s in samples if s["kind"] == "waker stacks"]
    main = [s for s in wakers if s["tid"] == r["waker"]]
    named = [s for s in main if any(fn == "waker_writes" for fn, _ in s["frames"])]
    print(f"    {len(wakers)} waker stacks, {len(main)} of the main thread; the sleeper slept {r['slept']} times")
    check(r["slept"] >= n // 2, f"the sleeper slept {r['slept']} times (>= {n // 2})")
    check(len(main) == r["slept"], f"the main thread's waker stacks: {len(main)} = the sleeper's sleeps {r['slept']}")
    check(len(named) == len(main), f"each names waker_writes ({len(named)})")
    mine = [s for s in wakers if s["tid"] == r["sleeper"]]
    # (its acks wake the main thread when it is already asleep in its
    # read, and its exit the joining one: how many depends on who runs
    # first, so only the bound)
    check(len(mine) <= n + 1 and not [s for s in mine if s in named],
          f"the sleeper's own {len(mine)} <= {n + 1}, none in waker_writes")
    check("waker stacks" in p.stderr, "the summary counts the waker stacks")


def mode_errors(tool, ftf_dump, wl, outdir):
    out = os.path.join(outdir, "events-err.fxt")
    for args, want in ((["--events=disk", "-a"], "unknown event source 'disk'"),
                       (["--events=waker", "-a"], "add --stacks"),
                       (["--events=io,", "-a"], "ends with a comma")):
        p = subprocess.run([tool, *args, "-o", out], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        check(p.returncode != 0 and len(lines) == 1 and want in lines[0],
              f"{args}: one line saying what is wrong ({lines})")


def mode_writeback(tool, ftf_dump, wl, outdir):
    """With -a: a buffered write of WB_MIB MiB then sync: the data reaches
    the disk as write-back, requests the kernel's workers (or sync)
    make, not the writer. They are on those tasks' "block I/O" tracks,
    at least the WB_MIB MiB written; no request is of thread 0."""
    wb_mib = 32
    data = os.path.join(outdir, "evwb.dat")
    out = os.path.join(outdir, "events-wb.fxt")
    if os.path.exists(data):
        os.unlink(data)
    os.sync()
    tr = Tracer(tool, ["-a", "--events=io", "-o", out])
    try:
        time.sleep(0.5)
        w = subprocess.run(["dd", "if=/dev/zero", f"of={data}", "bs=1M", f"count={wb_mib}", "status=none"],
                           timeout=120)
        os.sync()
        time.sleep(0.5)
    finally:  # (never an -a tracer left running)
        tr.signal(signal.SIGINT)
    check(tr.wait() == 0, "ftf-bpf -a ends cleanly")
    check(w.returncode == 0, "dd ran")
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    names = perfetto_view.Tables(t).processes
    by = {}
    for s in named_slices(out, "block I/O"):
        if s[4] == "write":
            name = names.get(s[2], {}).get("name")
            by[name] = by.get(name, 0) + int(s[5]["bytes"])
    perfetto_rows(out, "write bytes by process", list(by.items()),
                  "select p.name, sum(extract_arg(s.arg_set_id, 'debug.bytes')) as bytes "
                  "from slice s join track t on s.track_id = t.id "
                  "join process p on p.upid = extract_arg(t.dimension_arg_set_id, 'upid') "
                  "where t.name = 'block I/O' and s.name = 'write' group by p.name",
                  lambda r: (sql_null(r["name"]), int(r["bytes"] or 0)))
    print(f"  write bytes by process: {sorted(by.items(), key=lambda x: -x[1])[:6]}")
    kernel = sum(b for n, b in by.items() if n and (n.startswith("kworker") or n == "sync"))
    check(kernel >= wb_mib << 20, f"the kernel's workers and sync wrote at least the {wb_mib} MiB: {kernel}")
    zero = [s for s in named_slices(out, "disk %") if int(s[5]["tid"]) == 0]
    check(not zero, f"no request of thread 0 on the disk: {len(zero)}")
    os.unlink(data)


MODES = {"io": mode_io, "writeback": mode_writeback, "vectors": mode_vectors, "mem": mode_mem, "fault": mode_fault, "irq": mode_irq, "waker": mode_waker,
         "errors": mode_errors}


def main():
    mode, tool, ftf_dump, wl, outdir = sys.argv[1:6]
    skip_unless_root()
    os.makedirs(outdir, exist_ok=True)
    print(f"events {mode}:")
    MODES[mode](tool, ftf_dump, wl, outdir)
    print("PASS")


if __name__ == "__main__":
    run_main(main)
