#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--syscalls end to end, on syswl (threads sys1 and sys2 each make N
getppid(), N write()s to /dev/null and N/2 failing close(-1); sys1 then
blocks about 100 ms in a read() of a pipe that thread feeder fills).

usage: test_syscalls.py MODE FTF_BPF FTF_DUMP SYSWL OUTDIR
MODE: counts | list | pid | exec | children

The expectations are the workload's own counts (and errno's EBADF = 9),
never ftf-bpf's output alone.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Fail, Trace, Tracer, check, run_main, skip_unless_root  # noqa: E402

N = 2000
EBADF = 9
RE_COMPLETE = re.compile(r'^Event\(ts: (\d+), pt: (\d+)/(\d+), category: "syscall", name: "(.*?)", '
                         r'DurationComplete\(end_ts: (\d+)\), \{(.*)\}\)$')


def syscalls(t):
    """(begin, end, pid, tid, name, args) of every system call slice."""
    out = []
    for line in t.lines:
        m = RE_COMPLETE.match(line)
        if m:
            out.append((int(m[1]), int(m[5]), int(m[2]), int(m[3]), m[4], m[6]))
    return out


def parse_ids(line):
    ids = dict(kv.split("=") for kv in line.split())
    return int(ids["sys1"]), int(ids["sys2"]), int(ids["feeder"])


def run(tool, args):
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    return p


def valid(ftf_dump, out):
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    bad = t.nameless()
    check(not bad, f"every thread and process is named ({len(bad)} not: {bad[:6]})")
    return t


def count(sc, tid, name, args_re=None):
    return sum(1 for s in sc if s[3] == tid and s[4] == name and (args_re is None or re.search(args_re, s[5])))


def mode_counts(tool, ftf_dump, wl, outdir):
    out = os.path.join(outdir, "syscalls.fxt")
    p = run(tool, ["--syscalls", "--args", "1", "--clock", "mono", "-o", out, "--", wl, str(N)])
    s1, s2, feeder = parse_ids(p.stdout.splitlines()[0])
    blocked = int(p.stdout.splitlines()[1].split("=")[1])
    t = valid(ftf_dump, out)
    sc = syscalls(t)
    for name, tid in (("sys1", s1), ("sys2", s2)):
        check(name in t.thread_names(tid), f"thread {tid} is named {name}")
        g = count(sc, tid, "getppid", r"ret: int32\(\d+\)")
        check(g == N, f"{name}: {g} getppid slices with a pid as ret = {N}")
        w = count(sc, tid, "write", r"arg0: int64\(\d+\), ret: int32\(1\)")
        check(w == N, f"{name}: {w} write slices, fd in arg0, ret 1 = {N}")
        # (an int argument is the low half of its 64-bit register: -1 is
        # 0xffffffff)
        c = count(sc, tid, "close", rf'arg0: int64\(4294967295\), ret: int32\(-{EBADF}\), error: string\("EBADF"\)')
        check(c == N // 2, f"{name}: {c} close(-1) slices with ret -9 and error EBADF = {N // 2}")
        ex = [s for s in sc if s[3] == tid and s[4] == "exit"]
        check(len(ex) == 1 and "unfinished" not in ex[0][5] and "ret" not in ex[0][5],
              f"{name}: its exit call ends cleanly at the thread's end: {ex}")
    reads = [s for s in sc if s[3] == s1 and s[4] == "read" and "ret: int32(1)" in s[5]]
    # (the feeder writes 100 ms after sys1 starts its read)
    check(blocked >= 90_000_000, f"the workload's read blocked {blocked / 1e6:.1f} ms, 100 ms or so")
    long_reads = [s for s in reads if s[1] - s[0] > blocked // 2]
    check(len(long_reads) == 1, f"sys1: one blocking read() of 1 byte: {[(s[1] - s[0]) / 1e6 for s in reads]} ms")
    r = long_reads[0]
    dur = r[1] - r[0]
    check(0.9 * blocked <= dur <= blocked + 5_000_000,
          f"its slice lasts {dur / 1e6:.1f} ms, the workload measured {blocked / 1e6:.1f} ms around it")
    # the thread sleeps inside it: switched out blocked and back in, both
    # within the read's slice
    outs = [x for x in t.switches if x[3] == s1 and r[0] <= x[0] <= r[1] and x[2] != "running"]
    ins = [x for x in t.switches if x[4] == s1 and r[0] <= x[0] <= r[1]]
    check(outs and ins and min(x[0] for x in outs) < max(x[0] for x in ins),
          f"sys1 is switched out sleeping ({[x[2] for x in outs][:3]}) and back in within the read's slice")
    check(not [s for s in sc if "unfinished" in s[5]], "no system call slice is unfinished")
    check("top system calls by calls:" in p.stderr and re.search(r"\s(\d+) calls\s+[\d.]+ ms  getppid", p.stderr),
          "the summary lists the top system calls")
    # (a sanitizer runtime makes its own calls at exit, on other threads)
    m = re.search(r"\s(\d+) calls\s+[\d.]+ ms  getppid", p.stderr)
    every = sum(1 for x in sc if x[4] == "getppid")
    check(int(m[1]) == every and every >= 2 * N, f"... getppid {m[1]} times = the trace's {every} >= {2 * N}")


def mode_list(tool, ftf_dump, wl, outdir):
    out = os.path.join(outdir, "syscalls-list.fxt")
    p = run(tool, ["--syscalls=getpp*,close", "-o", out, "--", wl, str(N)])
    s1, s2, _ = parse_ids(p.stdout.splitlines()[0])
    t = valid(ftf_dump, out)
    names = {s[4] for s in syscalls(t)}
    check(names == {"getppid", "close"},
          f"only calls in the list are recorded: {sorted(names)}")
    sc = syscalls(t)
    for tid in (s1, s2):
        check(count(sc, tid, "getppid") == N and count(sc, tid, "close") == N // 2,
              f"thread {tid}: {count(sc, tid, 'getppid')} getppid, {count(sc, tid, 'close')} close")
    l = subprocess.run([tool, "--list", "--syscalls=getppid,clo*"], capture_output=True, text=True)
    listed = {ln.split()[1] for ln in l.stdout.splitlines()[1:]}
    check(l.returncode == 0 and {"getppid", "close", "clock_nanosleep", "close_range"} <= listed
          and "read" not in listed,
          f"--list --syscalls shows what the list matches: {sorted(listed)}")
    bad = subprocess.run([tool, "--syscalls=getppid,wirte", "-o", out, "--", wl, "1"],
                         capture_output=True, text=True)
    check(bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and
          "no system call is named 'wirte'" in bad.stderr and "write" in bad.stderr,
          f"an unknown name: one line naming the closest ({bad.stderr.strip()})")


def mode_inside(tool, ftf_dump, wl, outdir):
    """--syscalls with -u libc:syscall (syswl makes its getppid calls
    through syscall()): each getppid system call inside the slice of the
    libc function that made it, and nothing of the
    probes' own machinery: on x86-64 since 6.11 a uretprobe returns
    through a "uretprobe" system call, which, recorded, opened inside the
    function and outlived it (the function's end misplaced)."""
    out = os.path.join(outdir, "syscalls-inside.fxt")
    p = run(tool, ["--syscalls", "-u", "libc:syscall", "--clock", "mono", "-o", out, "--", wl, str(N)])
    s1, s2, _ = parse_ids(p.stdout.splitlines()[0])
    t = valid(ftf_dump, out)
    sc = syscalls(t)
    probes = [s for s in sc if s[4] in ("uretprobe", "uprobe", "rt_sigreturn")]
    check(not probes, f"no system call of the probes' trampolines is recorded ({len(probes)})")
    # the uretprobe call's exit reads as an rt_sigreturn's (orig_ax -1):
    # dropped in the kernel, the summary counts no more exits than
    # entries (every exit of a recorded call follows its entry: the
    # workload runs under -- from its exec, and sends itself no signal)
    m = re.search(r"(\d+) system call entries, (\d+) system call exits", p.stderr)
    check(m and int(m[2]) <= int(m[1]),
          f"the summary counts no more system call exits than entries ({m and m.group(0)})")
    check("unfinished" not in " ".join(e[6] for e in t.events),
          "no function call or system call is left unfinished")
    for name, tid in (("sys1", s1), ("sys2", s2)):
        calls = []
        for e in t.events:
            if e[2] == tid and e[4] == "syscall" and e[3] == "libc":
                if e[5] == "DurationBegin":
                    calls.append([e[0], None])
                elif e[5] == "DurationEnd" and calls and calls[-1][1] is None:
                    calls[-1][1] = e[0]
        # its syscall() calls: one gettid, then the N getppid
        check(len(calls) == N + 1 and all(c[1] for c in calls),
              f"{name}: {len(calls)} libc syscall() slices, each ended = {N} getppid + 1 gettid")
        inner = [s for s in sc if s[3] == tid and s[4] == "getppid"]
        inside = sum(1 for s in inner if any(b <= s[0] and s[1] <= e for b, e in calls))
        check(len(inner) == N and inside == N,
              f"{name}: {inside} of its {len(inner)} getppid system calls lie inside a libc syscall() slice = {N}")


def mode_pid(tool, ftf_dump, wl, outdir):
    out = os.path.join(outdir, "syscalls-pid.fxt")
    w = subprocess.Popen([wl, str(N), "--wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ids = w.stdout.readline()
    s1, s2, _ = parse_ids(ids)
    noise = subprocess.Popen(["sh", "-c", "while :; do cat /etc/hostname >/dev/null; done"])
    try:
        tr = Tracer(tool, ["--syscalls", "-p", str(w.pid), "-o", out])
        w.stdin.write("go\n")
        w.stdin.flush()
        w.wait(timeout=60)
        rc = tr.wait()
    finally:
        noise.kill()
        noise.wait()
    check(rc == 0, f"exit 0 (got {rc})")
    t = valid(ftf_dump, out)
    sc = syscalls(t)
    # (the process and those it forks, which -p follows: a sanitizer
    # runtime forks a helper at exit, which keeps the workload's name)
    pids = {s[2] for s in sc}
    names = {p: t.process_names(p) for p in pids}
    check(w.pid in pids and all("syswl" in n for n in names.values()),
          f"-p {w.pid}: system calls of that process (and its children) only: {names}")
    for tid in (s1, s2):
        check(count(sc, tid, "getppid") == N, f"thread {tid}: {count(sc, tid, 'getppid')} getppid = {N}")


def mode_exec(tool, ftf_dump, wl, outdir):
    """The process execs at its end: the execve slice ends cleanly at the
    exec (ret 0), the new program's calls follow, nothing unbalanced."""
    out = os.path.join(outdir, "syscalls-exec.fxt")
    p = run(tool, ["--syscalls", "-o", out, "--", wl, "10", "--exec", "/bin/true"])
    t = valid(ftf_dump, out)
    sc = syscalls(t)
    pid = t.process_names and [k[0] for k in t.kobjs if k[1] == "process" and k[2] == "syswl"]
    ex = [s for s in sc if s[4] == "execve" and "ret: int32(0)" in s[5]]
    check(len(ex) >= 1, f"the successful execve ends with ret 0: {len(ex)}")
    after = [s for s in sc if s[2] in pid and s[0] > ex[-1][1]]
    check(len(after) > 5, f"the new program's system calls follow it ({len(after)})")
    check(not [s for s in sc if "unfinished" in s[5]], "no system call slice is unfinished")
    check("true" in t.process_names(pid[0]) if pid else False, "the process is renamed by the exec")


def mode_children(tool, ftf_dump, wl, outdir):
    """-- sh -c 'syswl N': the shell's own calls; its child's only with -f
    (as for -u)."""
    for follow in (False, True):
        out = os.path.join(outdir, f"syscalls-children{'-f' if follow else ''}.fxt")
        p = run(tool, ["--syscalls", *(["-f"] if follow else []), "-o", out, "--",
                       "sh", "-c", f"{wl} 10; true"])
        s1, s2, _ = parse_ids(p.stdout.splitlines()[0])
        t = valid(ftf_dump, out)
        sc = syscalls(t)
        procs = {x[2] for x in sc}
        got = count(sc, s1, "getppid") + count(sc, s2, "getppid")
        check(any("sh" in t.process_names(x) for x in procs), f"the shell's own calls are there ({sorted(procs)})")
        if follow:
            check(got == 20, f"-f: the child's 2 x 10 getppid are recorded ({got})")
        else:
            check(got == 0 and len(procs) == 1, f"without -f: none of the child's ({got}; processes {sorted(procs)})")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, wl, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    fn = {"counts": mode_counts, "list": mode_list, "pid": mode_pid, "exec": mode_exec,
          "children": mode_children, "inside": mode_inside}[mode]
    run_main(lambda: fn(tool, ftf_dump, wl, outdir))


if __name__ == "__main__":
    main()
