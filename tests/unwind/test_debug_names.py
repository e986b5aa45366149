#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g names frames from separate debug files and from the vDSO image.

libc: libcwl qsort spends its time in glibc's msort_with_tmp, a static
function that libc.so.6 (stripped: .dynsym only) does not name and its
debug file (libc6-dbg, /usr/lib/debug/.build-id/XX/YYYY.debug) does.
Every libc frame of the trace must be named as `nm -S` of the debug file
names the function holding its file offset (turned into an address by
libc.so.6's program headers); at least 50 samples must hold a frame only
the debug file names.

vDSO: libcwl clock calls clock_gettime in a loop. The vDSO image is read
by this script from its own memory (/proc/self/mem at [vdso]), and every
[vdso] frame that `nm -D -S` of it covers must be named as it says; at
least 20 samples must hold one named so.

Hostile: a stripped copy of libcwl and its debug file (objcopy
--only-keep-debug) in a tree FTFB_TEST_DEBUG_ROOT names: owned by
`nobody`, the debug file is refused (cmp unnamed); owned by root, cmp is
named; found by its .gnu_debuglink, it is read, and refused when its
bytes differ from the CRC the link records.

usage: test_debug_names.py FTF_BPF FTF_DUMP LIBCWL OUTDIR
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import Trace, check, run_main, skip_unless_root  # noqa: E402
from test_stacks import fields, get, get_all, read_ftf  # noqa: E402


def sh(*args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def samples_with_pcs(path):
    """Each sample's frames, root first, as (name, mapping path, rel_pc)."""
    _, stream = read_ftf(path)
    seqs, out = {}, []
    for _, pkt in fields(stream):
        q = seqs.setdefault(get(pkt, 10), dict(n={}, p={}, m={}, f={}, s={}))
        inter = get(pkt, 12)
        for n, v in fields(inter) if inter else ():
            iid = get(v, 1)
            if n == 5:
                q["n"][iid] = get(v, 2).decode()
            elif n == 17:
                q["p"][iid] = get(v, 2).decode()
            elif n == 19:
                q["m"][iid] = "/".join(q["p"][p] for p in get_all(v, 7))
            elif n == 6:
                q["f"][iid] = (q["n"].get(get(v, 2, 0)), q["m"].get(get(v, 3)), get(v, 4, 0))
            elif n == 7:
                q["s"][iid] = [q["f"][x] for x in get_all(v, 2)]
        ss = get(pkt, 135)
        if ss is not None:
            out.append(q["s"][get(ss, 6)])
    return out


def functions(path, dynamic=False):
    """[(vaddr, size, name)] of nm -S's defined functions; one without a
    size reaches the next one's start (as perf and the symbolizer take
    it: a return address after a call that does not return may be
    there)."""
    txt = sh("nm", "-S", "-n", *(["-D"] if dynamic else []), path)
    syms = [(int(m[1], 16), int(m[2], 16) if m[2] else None, m[3], m[4].split("@")[0]) for m in
            re.finditer(r"^([0-9a-f]+) (?:([0-9a-f]+) )?([tTwWiI]) (\S+)$", txt, re.M)]
    starts = sorted({a for a, _, _, _ in syms})
    out = []
    for a, size, _, name in syms:
        if size is None:
            nxt = [x for x in starts if x > a]
            size = nxt[0] - a if nxt else 0
        out.append((a, size, name))
    return out


def loads(path):
    ph = sh("readelf", "-lW", path)
    return [tuple(int(x, 16) for x in m.groups()) for m in
            re.finditer(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)", ph)]


def names_at(funcs, segs, off):
    """Names of the functions holding file offset off (or the byte
    before: a return address), by the program headers segs."""
    out = set()
    for o in (off, off - 1):
        for foff, vaddr, filesz in segs:
            if foff <= o < foff + filesz:
                a = o - foff + vaddr
                out |= {n for v, s, n in funcs if v <= a < v + s}
    return out


def run(tool, ftf_dump, out, cmd, env=None):
    args = ["-g", "--freq", "199", "-o", out, "--", *cmd]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=300, env=env)
    check(p.returncode == 0, f"exit 0 (got {p.returncode}: {p.stderr[-500:]})")
    check(Trace(ftf_dump, out).check_code == 0, "ftf-dump --check accepts the trace")
    return samples_with_pcs(out)


def check_named(samples, path, funcs, segs, only, what, least):
    """Every frame of path covered by funcs named so; at least `least`
    samples with a frame named one of `only`."""
    frames = [f for s in samples for f in s if f[1] == path]
    covered = [(f, names_at(funcs, segs, f[2])) for f in frames]
    covered = [(f, ns) for f, ns in covered if ns]
    bad = [(f, ns) for f, ns in covered if f[0] not in ns]
    hit = sum(1 for s in samples if any(f[1] == path and f[0] in only for f in s))
    print(f"  {what}: {len(frames)} frames in {path}, {len(covered)} inside a function nm names, "
          f"{len(bad)} named otherwise; {hit} samples with a frame named {sorted(only)[:4]}")
    for f, ns in bad[:5]:
        print(f"    {f[0]} at {f[2]:#x}, nm says {sorted(ns)}")
    check(not bad, f"{what}: every frame named as nm names its function")
    check(hit >= least, f"{what}: at least {least} samples in {sorted(only)[:4]}")


def test_libc(tool, ftf_dump, wl, outdir):
    libc = re.search(r"libc\.so\.6 => (\S+)", sh("ldd", wl))[1]
    libc = os.path.realpath(libc)
    bid = re.search(r"Build ID: ([0-9a-f]+)", sh("readelf", "-n", libc))[1]
    dbg = f"/usr/lib/debug/.build-id/{bid[:2]}/{bid[2:]}.debug"
    check(os.path.isfile(dbg), f"libc6-dbg installed: {dbg} (scripts/setup.sh)")
    funcs = functions(dbg) + functions(libc, dynamic=True)
    dyn = {n for _, _, n in functions(libc, dynamic=True)}
    only = {n for _, _, n in functions(dbg) if "msort" in n and n not in dyn}
    print(f"  {dbg}: {len(funcs)} functions; only there: {sorted(only)}")
    check(only, "the debug file names msort_with_tmp, .dynsym does not")
    samples = run(tool, ftf_dump, os.path.join(outdir, "dbg_qsort.fxt"), [wl, "qsort", "3"])
    check_named(samples, libc, funcs, loads(libc), only, "libc", 50)


def test_vdso(tool, ftf_dump, wl, outdir):
    with open("/proc/self/maps") as f:
        a, b = next([int(x, 16) for x in ln.split()[0].split("-")] for ln in f if "[vdso]" in ln)
    with open("/proc/self/mem", "rb") as f:
        f.seek(a)
        img = f.read(b - a)
    so = os.path.join(outdir, "vdso.so")
    with open(so, "wb") as f:
        f.write(img)
    funcs = functions(so, dynamic=True)
    only = {n for _, _, n in funcs if "clock_gettime" in n}
    print(f"  the vDSO's .dynsym: {sorted(n for _, _, n in funcs)}")
    samples = run(tool, ftf_dump, os.path.join(outdir, "dbg_vdso.fxt"), [wl, "clock", "2"])
    check_named(samples, "[vdso]", funcs, loads(so), only, "vdso", 20)


def test_hostile(tool, ftf_dump, wl, outdir):
    import pwd
    nobody = pwd.getpwnam("nobody").pw_uid
    exe = os.path.join(outdir, "libcwl-stripped")
    sh("strip", "-o", exe, wl)
    check("no symbols" in subprocess.run(["nm", exe], capture_output=True, text=True).stderr,
          "nm finds no symbol in the stripped copy")
    bid = re.search(r"Build ID: ([0-9a-f]+)", sh("readelf", "-n", exe))[1]
    root = os.path.join(outdir, "debugroot")
    shutil.rmtree(root, ignore_errors=True)
    by_id = os.path.join(root, ".build-id", bid[:2], bid[2:] + ".debug")
    os.makedirs(os.path.dirname(by_id))
    sh("objcopy", "--only-keep-debug", wl, by_id)
    os.chmod(by_id, 0o644)
    env = dict(os.environ, FTFB_TEST_DEBUG_ROOT=root)
    funcs, segs = functions(wl), loads(exe)
    cmp = {"cmp"}

    def named(out):
        s = run(tool, ftf_dump, os.path.join(outdir, out), [exe, "qsort", "2"], env)
        return s, sum(1 for x in s if any(f[1] == exe and f[0] == "cmp" for f in x)), \
            sum(1 for x in s if any(f[1] == exe for f in x))

    os.chown(by_id, nobody, -1)
    _, hit, n = named("dbg_nobody.fxt")
    print(f"  debug file owned by nobody: {hit} of {n} samples in the copy name cmp")
    check(n >= 20 and hit == 0, "a debug file owned by nobody is not read")

    os.chown(by_id, 0, -1)
    s, _, _ = named("dbg_root.fxt")
    check_named(s, exe, funcs, segs, cmp, "the same file, root's", 20)

    # by its .gnu_debuglink, in ROOT/DIR/: read; with other bytes than
    # its CRC says (the same build id): refused
    link = root + os.path.dirname(exe) + "/libcwl.debug"
    os.makedirs(os.path.dirname(link))
    os.rename(by_id, link)
    sh("objcopy", f"--add-gnu-debuglink={link}", exe)
    s, _, _ = named("dbg_link.fxt")
    check_named(s, exe, funcs, segs, cmp, "found by its debuglink", 20)
    with open(link, "ab") as f:
        f.write(b"\0")
    _, hit, n = named("dbg_badcrc.fxt")
    print(f"  debuglink's file with a wrong CRC: {hit} of {n} samples in the copy name cmp")
    check(n >= 20 and hit == 0, "a debug file whose CRC is not the debuglink's is not read")

    # crafted debuglinks (a copy without one, the section added by hand):
    # a name with '/' reaching a good debug file one directory up, and a
    # name without its NUL; neither is read
    import zlib
    good = os.path.dirname(os.path.dirname(link)) + "/libcwl.debug"
    sh("objcopy", "--only-keep-debug", wl, good)
    os.chmod(good, 0o644)
    with open(good, "rb") as f:
        crc = zlib.crc32(f.read())
    for what, blob in (("a name with '/'", b"../libcwl.debug\0" + crc.to_bytes(4, "little")),
                       ("a name without its NUL", b"libcwl.debug")):
        sh("strip", "-o", exe, wl)
        sec = os.path.join(outdir, "debuglink.bin")
        with open(sec, "wb") as f:
            f.write(blob)
        sh("objcopy", f"--add-section=.gnu_debuglink={sec}", exe)
        _, hit, n = named("dbg_crafted.fxt")
        print(f"  debuglink with {what}: {hit} of {n} samples in the copy name cmp")
        check(n >= 20 and hit == 0, f"a debuglink with {what} is not followed")


def main():
    skip_unless_root()
    tool, ftf_dump, wl, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    test_libc(tool, ftf_dump, wl, outdir)
    test_vdso(tool, ftf_dump, wl, outdir)
    test_hostile(tool, ftf_dump, wl, outdir)


if __name__ == "__main__":
    run_main(main)
