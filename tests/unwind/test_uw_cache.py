#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The persistent unwind table cache (FTF_BPF_UNWIND_CACHE, a directory
made for the test): a fresh process's first samples are whole when its
binaries' tables come from the cache, and a cache file or directory that
cannot be trusted is refused with one line.

The workload is nofpwl (see test_unwind.py): its spinner thread's
on-CPU stacks hold spinner -> spin_a -> uwlib_spin [libuwlib.so] ->
libc -> spin_cmp and end in libc's outermost frame. Every table build
is made 1 s slower (FTFB_FAULT_SLOW_UW_BUILD_S=1; a table read from the
cache is not a build), standing in for a large binary's build (cc1's
takes hundreds of ms, a browser's seconds):

  run 1, empty cache: ld.so's, nofpwl's and libuwlib's tables take 3 s
    or more, so at most half of the spinner's first 30 samples (0.3 s of
    its CPU time) can be whole (the check that the cache is what makes
    run 2 whole); nofpwl runs 5 s (1000 reads), for the builds to end
    and be kept;
  run 2, the same: at least 80% of its first 30 samples are whole, the
    tables read from the files run 1 wrote (0600, root's, in a 0700
    directory of root's);
  then, the slow builds off, nofpwl's file made hostile in turn: a byte
    of its rows flipped (bad checksum), its rows cut in half (its size), its row
    count raised with the checksum made right again (its size), given to
    nobody (owner), group-writable (mode): each run says so in exactly
    one line naming the file, and its stacks are still whole (the table
    rebuilt); and the directory made world-writable: "not used", one
    line, and the run still whole.

usage: test_uw_cache.py FTF_BPF NOFPWL OUTDIR
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402
from test_unwind import spinner_ok, user_frames  # noqa: E402

FIRST = 30
HDR = 504  # uw_cache_file.c's struct hdr
NROWS_AT, CRC_AT = 104, 496


def run(tool, wl, out, cache, slow):
    env = dict(os.environ, FTF_BPF_UNWIND_CACHE=cache)
    env.pop("FTFB_FAULT_SLOW_UW_BUILD_S", None)
    if slow:
        env["FTFB_FAULT_SLOW_UW_BUILD_S"] = "1"
    args = [tool, "-g", "--freq", "99", "-o", out, "--", wl, "0", "1000" if slow else "60"]
    print("  run:", f"FTF_BPF_UNWIND_CACHE={cache}", "FTFB_FAULT_SLOW_UW_BUILD_S=1" if slow else "",
          " ".join(args))
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"exit 0 (got {p.returncode}: {p.stderr[-500:]})")
    tid = int(re.search(r"spinner tid=(\d+)", p.stdout)[1])
    _, samples = decode_samples(read_ftf(out)[1])
    on = sorted((s for s in samples if s["kind"] == "on-CPU samples" and s["tid"] == tid),
                key=lambda s: s["ts"])
    first = on[:FIRST]
    whole = sum(1 for s in first if spinner_ok(user_frames(s)))
    print(f"    spinner: {len(on)} on-CPU samples, {whole} of the first {len(first)} whole")
    print("    ftf-bpf said: " + " | ".join(ln.strip() for ln in p.stderr.splitlines() if "unwind" in ln))
    check(len(first) == FIRST, f"the spinner was sampled {FIRST} times at least")
    return whole, p.stderr


def copies(stderr):
    """Samples whose walk waited for a table: the summary's count of stack
    copies (no line: none)."""
    m = re.search(r"user stacks copied \(tables not loaded yet\): (\d+)", stderr)
    return int(m[1]) if m else 0


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out)[1]


def refusal_lines(stderr):
    return [ln.strip() for ln in stderr.splitlines() if "unwind cache" in ln and
            ("refused:" in ln or "not used:" in ln)]


def hostile(tool, wl, outdir, cache, wl_file, how, change, expect):
    change(wl_file)
    whole, err = run(tool, wl, os.path.join(outdir, f"cache-{how}.fxt"), cache, False)
    lines = refusal_lines(err)
    print(f"    said: {lines}")
    check(len(lines) == 1 and expect in lines[0] and (how == "dir" or os.path.basename(wl_file) in lines[0]),
          f"{how}: one line saying '{expect}'")
    check(whole >= 0.8 * FIRST, f"{how}: the stacks are still whole (the table rebuilt)")


def flip(f):
    with open(f, "r+b") as fh:
        fh.seek(HDR + 13)
        b = fh.read(1)
        fh.seek(HDR + 13)
        fh.write(bytes([b[0] ^ 0x40]))


def halve(f):
    os.truncate(f, HDR + (os.path.getsize(f) - HDR) // 2)


def more_rows(f):
    data = bytearray(open(f, "rb").read())
    data[NROWS_AT:NROWS_AT + 8] = struct.pack("<Q", 1 << 22)
    data[CRC_AT:CRC_AT + 4] = b"\0\0\0\0"
    crc = zlib.crc32(bytes(data[HDR:]), zlib.crc32(bytes(data[:HDR])))
    data[CRC_AT:CRC_AT + 4] = struct.pack("<I", crc)
    open(f, "wb").write(data)


def main():
    skip_unless_root()
    tool, wl, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    cache = os.path.join(outdir, "uwcache")
    shutil.rmtree(cache, ignore_errors=True)
    print("unwind table cache")
    # (a sample taken before its table is loaded is finished from a copy
    # of its stack, so whole either way: the copies say which had to wait)
    cold, err = run(tool, wl, os.path.join(outdir, "cache-cold.fxt"), cache, True)
    check(copies(err) >= FIRST // 2,
          f"run 1 (empty cache, slow builds): the first samples came before their tables "
          f"({copies(err)} copied to wait for them)")
    warm, err = run(tool, wl, os.path.join(outdir, "cache-warm.fxt"), cache, True)
    check(warm >= 0.8 * FIRST, "run 2 (the cache run 1 wrote): at least 80% of the first samples whole")
    check(copies(err) <= FIRST // 5,
          f"run 2: the tables were there from the cache before the samples ({copies(err)} copied)")
    st = os.stat(cache)
    check(st.st_uid == 0 and st.st_mode & 0o777 == 0o700, f"the directory is root's, 0700 ({oct(st.st_mode)})")
    name = f"uwt-{build_id(wl)}-{os.path.getsize(wl)}"
    wl_file = os.path.join(cache, name)
    check(os.path.exists(wl_file), f"nofpwl's table is the file {name}")
    files = glob.glob(os.path.join(cache, "*"))
    check(all(os.stat(f).st_uid == 0 and os.stat(f).st_mode & 0o777 == 0o600 for f in files),
          f"its {len(files)} files are root's, 0600")
    for how, change, expect in [
            ("checksum", flip, "refused: bad checksum"),
            ("truncated", halve, "refused: its size does not match its row count"),
            ("rows", more_rows, "refused: its size does not match its row count"),
            ("owner", lambda f: os.chown(f, 65534, 65534), "refused: not owned by this user"),
            ("mode", lambda f: os.chmod(f, 0o620), "refused: writable by group or others"),
            ("dir", lambda f: os.chmod(cache, 0o777), "not used: writable by group or others")]:
        hostile(tool, wl, outdir, cache, wl_file, how, change, expect)


if __name__ == "__main__":
    run_main(main)
