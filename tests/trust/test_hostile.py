#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tracer against a hostile user (issue 32). Each case runs jitwl
(anonymous executable code at a fixed address, JIT_ADDR, and optionally
trustlib) as `nobody`, sets up what that user can set up (a perf map that
is a symlink to a root-only file, another user's perf map, a FIFO, a
look-alike or a FIFO bind-mounted over a mapped library in its own user
+ mount namespace, a huge map, names with terminal escapes), traces it
with `ftf-bpf -g -p PID -d 3s` and checks the trace's bytes: what the
user cannot read never appears, nothing blocks (the trace ends at -d:
only a hang detector's 120 s timeout, no timing), frames are named from
what the process really maps, names are made safe.

    test_hostile.py CASE FTF_BPF FTF_DUMP JITWL TRUSTLIB TRUSTFAKE OUTDIR
"""
import os
import pwd
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "integration"))
from ftfcheck import Fail, check, run_main, skip_unless_root  # noqa: E402

JIT_ADDR = "200000000000"
NOBODY = pwd.getpwnam("nobody")
DURATION = "3s"


class Workload:
    """jitwl started by argv (a list); its pid on the host, found from
    its "ready pid=N" line (N in its own pid namespace: see host_pid)."""

    def __init__(self, argv, name="jitwl"):
        print("  workload:", " ".join(argv))
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.p.stdout.readline().decode()
        if not line.startswith("ready pid="):
            self.p.kill()
            raise Fail(f"jitwl did not start: {line!r}")
        self.nspid = int(line.split("=")[1])
        self.pid = host_pid(self.p.pid, self.nspid, name)

    def stop(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def host_pid(ancestor, nspid, name):
    """The process called name under ancestor whose pid in its own
    namespace is nspid (NSpid's last field)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as f:
                st = dict(ln.split(":", 1) for ln in f.read().splitlines() if ":" in ln)
        except OSError:
            continue
        if st.get("Name", "").strip() != name or int(st["NSpid"].split()[-1]) != nspid:
            continue
        p = int(d)
        while p > 1:
            if p == ancestor:
                return int(d)
            with open(f"/proc/{p}/status") as f:
                p = int(next(ln for ln in f if ln.startswith("PPid:")).split()[1])
    raise Fail(f"no {name} with pid {nspid} in its namespace under {ancestor}")


def trace(tool, ftf_dump, pid, out):
    """ftf-bpf -g -p PID -d 3s: (exit code, stderr bytes, trace bytes,
    peak RSS in KiB). The trace must be whole (ftf-dump --check)."""
    cmd = [tool, "-g", "-p", str(pid), "-d", DURATION, "-o", out]
    print("  run:", " ".join(cmd))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=120)  # a hang detector, not a timing
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Fail("ftf-bpf did not end at -d within 120 s: blocked")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print("  ftf-bpf said:\n    " + err.decode(errors="backslashreplace").strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf exits 0 (got {p.returncode})")
    c = subprocess.run([ftf_dump, "--check", out], capture_output=True, text=True)
    check(c.returncode == 0, "ftf-dump --check accepts the trace: " + c.stdout.strip()[-200:])
    with open(out, "rb") as f:
        data = f.read()
    return err, data, max(rss, before)


def nobody_dir():
    d = tempfile.mkdtemp(prefix="ftfb-trust-", dir="/var/tmp")
    os.chown(d, NOBODY.pw_uid, NOBODY.pw_gid)
    return d


def as_nobody(*argv):
    return ["runuser", "-u", "nobody", "--", *argv]


def in_userns(script):
    """script run by sh as nobody in a user + mount namespace of its own,
    /tmp a tmpfs of its own (a container's view)."""
    return as_nobody("unshare", "-Urm", "sh", "-c", "mount -t tmpfs none /tmp && " + script)


def write_map(path, text, uid):
    with open(path, "wb") as f:
        f.write(text)
    os.chown(path, uid, NOBODY.pw_gid)
    os.chmod(path, 0o644)


def case_symlink(a):
    """(a) nobody's perf map, in its own namespace, is a symlink to a
    root-only file of the host: no line of that file is read."""
    secret_dir = tempfile.mkdtemp(prefix="ftfb-secret-", dir="/var/tmp")  # 0700 root
    secret = os.path.join(secret_dir, "secret")
    with open(secret, "w") as f:
        f.write(f"{JIT_ADDR} 100 leaked_secret_line\n")
    os.chmod(secret, 0o600)
    w = Workload(in_userns(f"ln -s {secret} /tmp/perf-$$.map && exec {a.jitwl}"))
    try:
        err, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("symlink"))
    finally:
        w.stop()
        shutil.rmtree(secret_dir)
    check(b"leaked_secret" not in data, "no line of the root-only file is in the trace")
    check(b"a symbolic link; not read" in err, "ftf-bpf says the map is a symlink, not read")


def case_owner(a):
    """(b) a perf map owned by another non-root user (daemon) is not read
    for nobody's process, nor nobody's map for root's process."""
    daemon = pwd.getpwnam("daemon").pw_uid
    for who, owner, runner in (("nobody", daemon, as_nobody), ("root", NOBODY.pw_uid, lambda *x: list(x))):
        w = Workload(runner(a.jitwl))
        path = f"/tmp/perf-{w.pid}.map"
        try:
            write_map(path, f"{JIT_ADDR} 100 other_users_line\n".encode(), owner)
            err, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("owner-" + who))
        finally:
            w.stop()
            os.unlink(path)
        check(b"other_users_line" not in data, f"{who}'s process: a map owned by uid {owner} names nothing")
        check(f"owned by uid {owner}, not the process's user".encode() in err, "ftf-bpf says whose it is")


def case_fifo_map(a):
    """(c) a FIFO at the perf map path: the trace ends at -d."""
    w = Workload(as_nobody(a.jitwl))
    path = f"/tmp/perf-{w.pid}.map"
    try:
        os.mkfifo(path)
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
        err, _, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("fifo-perfmap"))
    finally:
        w.stop()
        os.unlink(path)
    check(b"not a regular file; not read" in err, "ftf-bpf says the map is not a regular file")


def case_fifo_lib(a):
    """(c) a FIFO bind-mounted over a library nobody maps, in its own
    user + mount namespace: the trace ends at -d, the library's frames
    are named from the file it maps."""
    d = nobody_dir()
    lib = os.path.join(d, "libtrust.so")
    shutil.copy(a.trustlib, lib)
    os.chmod(lib, 0o755)
    w = Workload(in_userns(f"mkfifo {d}/fifo && exec {a.jitwl} --lib {lib} --bind {d}/fifo {lib}"))
    try:
        err, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("fifo-lib"))
    finally:
        w.stop()
        shutil.rmtree(d)
    check(b"trust_real_fn" in data, "the library's frames are named from the file it maps")


def case_lookalike(a):
    """(d) a look-alike bind-mounted over the library nobody maps, in its
    own namespace: its frames are named from what it really maps."""
    d = nobody_dir()
    lib, fake = os.path.join(d, "libtrust.so"), os.path.join(d, "libfake.so")
    shutil.copy(a.trustlib, lib)
    shutil.copy(a.trustfake, fake)
    w = Workload(in_userns(f"exec {a.jitwl} --lib {lib} --bind {fake} {lib}"))
    try:
        _, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("lookalike"))
    finally:
        w.stop()
        shutil.rmtree(d)
    check(b"trust_real_fn" in data, "frames named trust_real_fn, from the library mapped")
    check(b"trust_fake_fn" not in data, "no frame named from the look-alike")


HUGE = 200 << 20


def case_huge(a):
    """(e) a 200 MB perf map of short lines: refused by its size, read
    not at all, the tracer's peak RSS below the map's size."""
    w = Workload(as_nobody(a.jitwl))
    path = f"/tmp/perf-{w.pid}.map"
    try:
        line = b"300000000000 10 filler_name_for_the_huge_map\n"
        with open(path, "wb") as f:
            f.write(f"{JIT_ADDR} 100 huge_map_name\n".encode())
            block = line * ((1 << 20) // len(line))
            while f.tell() < HUGE:
                f.write(block)
        os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
        err, data, rss = trace(a.tool, a.ftf_dump, w.pid, a.out("huge"))
    finally:
        w.stop()
        os.unlink(path)
    print(f"  ftf-bpf's peak RSS: {rss / 1024:.0f} MiB (map: {HUGE >> 20} MiB)")
    check(b"huge_map_name" not in data, "no name of the huge map in the trace")
    check(b"over the 64 MiB cap" in err, "ftf-bpf says the map is over the cap")
    check(rss * 1024 < HUGE, "peak RSS below the map's size")


def case_names(a):
    """(f) names with ESC, CR and invalid UTF-8, from a perf map and from
    a library's symbol table: made safe in the trace and the summary."""
    d = nobody_dir()
    lib = os.path.join(d, "libtrust.so")
    with open(a.trustlib, "rb") as f:
        elf = f.read()
    old = b"trust_esc_fn_xxxxxxxx"
    evil = b"\x1b[2J\r\xffesc_fn_xxxxxxxx"
    check(len(old) == len(evil) and old in elf, "trustlib has its static function's name to rewrite")
    with open(lib, "wb") as f:
        f.write(elf.replace(old, evil))
    os.chmod(lib, 0o755)
    w = Workload(as_nobody(a.jitwl, "--lib", lib))
    path = f"/tmp/perf-{w.pid}.map"
    try:
        write_map(path, f"{JIT_ADDR} 100 jit".encode() + b"\x1b[2J\r\xff\xc2\x9bname\n", NOBODY.pw_uid)
        err, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("names"))
    finally:
        w.stop()
        os.unlink(path)
        shutil.rmtree(d)
    check(b"\x1b[2J" not in data and b"\x1b[2J" not in err, "no ESC sequence in the trace or the summary")
    check(b"jit?[2J???name" in data, "the perf map's name, made safe, names the JIT frame")
    check(b"?[2J??esc_fn_xxxxxxxx" in data, "the symbol's name, made safe, names its frames")


def case_nspid(a):
    """A JIT in a pid namespace writes /tmp/perf-NSPID.map under its own
    pid, in its own /tmp: the map is found there, as perf finds it."""
    script = f"echo '{JIT_ADDR} 100 jit_ok_name' > /tmp/perf-$$.map && exec {a.jitwl}"
    w = Workload(as_nobody("unshare", "-Urmpf", "--mount-proc", "sh", "-c",
                           "mount -t tmpfs none /tmp && " + script))
    try:
        check(w.nspid != w.pid, f"pid {w.pid} is {w.nspid} in its namespace")
        _, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("nspid"))
    finally:
        w.stop()
    check(b"jit_ok_name" in data, "the JIT frame is named from /tmp/perf-NSPID.map in its root")


PYSCRIPT = r"""
import os, sys, threading
src = "def spin():\n    x = 0\n    for i in range(20000):\n        x += i\n    return x\n"
ns = {}
exec(compile(src, "fi\x1b[2Jle.py", "exec"), ns)
spin = ns["spin"]
evil = "py\x1b[2J\rname"
spin.__code__ = spin.__code__.replace(co_name=evil, co_qualname=evil)
def loop():
    while True:
        spin()
threading.Thread(target=loop, daemon=True).start()
print(f"ready pid={os.getpid()}", flush=True)
sys.stdin.read()
"""


def case_python(a, fifo=True):
    """(c), (f) Debian's python3.11, copied and run by nobody, its file
    then replaced by a FIFO (the mapping reads "python3.11 (deleted)"),
    a function whose name and file name hold ESC and CR: the trace ends
    at -d, the Python frames are named from the file mapped, made safe.
    fifo False: no FIFO, the copy in a directory whose name has a space."""
    d = nobody_dir()
    sub = os.path.join(d, "a b" if not fifo else "ab")
    os.mkdir(sub, 0o755)
    py = os.path.join(sub, "python3.11")
    shutil.copy("/usr/bin/python3.11", py)
    os.chmod(py, 0o755)
    w = Workload(as_nobody(py, "-c", PYSCRIPT), name="python3.11")
    try:
        if fifo:
            os.unlink(py)
            os.mkfifo(py)
            os.chown(py, NOBODY.pw_uid, NOBODY.pw_gid)
        err, data, _ = trace(a.tool, a.ftf_dump, w.pid, a.out("python" if fifo else "python-space"))
    finally:
        w.stop()
        shutil.rmtree(d)
    check(b"\x1b[2J" not in data and b"\x1b[2J" not in err, "no ESC sequence in the trace or the summary")
    check(b"py?[2J?name" in data, "the Python function's name, made safe, names its frames")
    check(b"fi?[2Jle.py" in data, "its file name too")


class Args:
    def __init__(self, argv):
        self.case, self.tool, self.ftf_dump, self.jitwl, self.trustlib, self.trustfake, self.outdir = argv
        os.makedirs(self.outdir, exist_ok=True)

    def out(self, name):
        return os.path.join(self.outdir, f"hostile-{name}.fxt")


CASES = {"symlink": case_symlink, "owner": case_owner,
         "fifo-map": case_fifo_map, "fifo-lib": case_fifo_lib, "lookalike": case_lookalike,
         "huge": case_huge, "names": case_names, "python": case_python,
         "python-space": lambda a: case_python(a, fifo=False), "nspid": case_nspid}


def main():
    skip_unless_root()
    a = Args(sys.argv[1:8])
    print(f"hostile {a.case}:")
    CASES[a.case](a)
    print("PASS")


if __name__ == "__main__":
    run_main(main)
