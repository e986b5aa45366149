#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real-BPF integration tests of gzip output (run as root).

usage: test_compress.py MODE FTF_BPF FTF_DUMP PINGPONG OUTDIR
MODE: known | kill | flight | diskfull

known:  -- pingpong N --cpu 0 with -o X.fxt.gz: the file is gzip (magic),
        python's zlib inflates it to whole records (walked by their
        header sizes, not with our reader) holding at least N context
        switches into each of ping and pong (the workload's known count),
        and ftf-dump reads the .gz record for record as the inflated file.
kill:   -a --compress while pingpong runs, SIGKILL after 2.5 s: the file
        is a complete gzip (one member per buffer written) that python's
        gzip module decodes, to data that ends on a record boundary with
        the busy seconds' switches in it; ftf-dump --check accepts it.
diskfull: -a -o X.fxt.gz on a 256 KiB tmpfs beside pingpong: one line
        naming the full disk, non-zero exit, and what is in the file is a
        complete gzip of whole records that ftf-dump --check accepts.
flight: -F 1s -o X.fxt.gz, then Ctrl-C: the snapshot is X-1.fxt.gz, gzip,
        whole, with the workload's switches.
"""
import gzip
import os
import shutil
import signal
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Fail, Trace, Tracer, check, dump, run_main, skip_unless_root  # noqa: E402

N = 3000


def inflate(path):
    """(bytes, finished, members): python's zlib over the file's gzip
    members, the last one finished (with its trailer) or not."""
    with open(path, "rb") as f:
        raw = f.read()
    data, members = b"", 0
    while True:
        d = zlib.decompressobj(31)
        data += d.decompress(raw) + d.flush()
        members += 1
        if not d.eof or not d.unused_data:
            return data, d.eof, members
        raw = d.unused_data


def walk(data):
    """(whole-record bytes, switches into each tid): by header sizes."""
    off, into = 0, {}
    while off + 8 <= len(data):
        hdr = int.from_bytes(data[off:off + 8], "little")
        size = (hdr >> 4) & (0xFFFFFFFF if hdr & 0xF == 15 else 0xFFF)
        if size == 0 or off + size * 8 > len(data):
            break
        if hdr & 0xF == 8 and hdr >> 60 == 1:  # context switch
            tid = int.from_bytes(data[off + 24:off + 32], "little")
            into[tid] = into.get(tid, 0) + 1
        off += size * 8
    return off, into


def mode_known(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "compress-known.fxt.gz")
    plain = os.path.join(outdir, "compress-known-inflated.fxt")
    p = subprocess.run([tool, "-o", out, "--", pingpong, str(N), "--cpu", "0"],
                       capture_output=True, text=True, timeout=120)
    print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
    check(p.returncode == 0, f"ftf-bpf -o .fxt.gz -- pingpong exited 0 (got {p.returncode})")
    ids = dict(kv.split("=") for kv in p.stdout.split())
    ping, pong = int(ids["ping"]), int(ids["pong"])
    with open(out, "rb") as f:
        check(f.read(2) == b"\x1f\x8b", "the file starts with gzip's magic bytes")
    data, finished, members = inflate(out)
    check(finished, f"python's zlib inflates its {members} gzip member(s) to the end")
    whole, into = walk(data)
    check(whole == len(data), f"the {len(data)} inflated bytes are whole records")
    check(data[:8] == (0x0016547846040010).to_bytes(8, "little"), "the first record is the FTF magic record")
    for name, tid in (("ping", ping), ("pong", pong)):
        check(into.get(tid, 0) >= N, f"at least {N} switches into {name}: {into.get(tid, 0)}")
    size = os.path.getsize(out)
    check("gzip of" in p.stderr, "the summary gives the compressed size and ratio")
    print(f"  {len(data)} bytes of records in {size} gzip bytes ({len(data) / size:.1f}x)")
    with open(plain, "wb") as f:
        f.write(data)
    a, b = Trace(ftf_dump, plain), Trace(ftf_dump, out)
    check(b.check_code == 0, f"ftf-dump --check accepts the .fxt.gz ({b.check_out.strip()})")
    check(a.lines[:-1] == b.lines[:-1] and len(a.lines) > 1000,
          f"ftf-dump reads the .fxt.gz record for record as the inflated file ({len(a.lines)} lines)")


def mode_kill(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "compress-kill.fxt.gz")
    busy = subprocess.Popen([pingpong, "100000000"], stdout=subprocess.DEVNULL)
    try:
        tr = Tracer(tool, ["-a", "--compress", "-o", out])
        time.sleep(2.5)
        tr.signal(signal.SIGKILL)
        rc = tr.wait()
    finally:
        busy.kill()
        busy.wait()
    check(rc == -signal.SIGKILL, f"ftf-bpf was killed (returncode {rc})")
    data, finished, members = inflate(out)
    check(finished, f"the file is a complete gzip ({members} members, the last with its trailer)")
    check(gzip.decompress(open(out, "rb").read()) == data, "python's gzip module decodes it")
    whole, into = walk(data)
    switches = sum(into.values())
    check(len(data) > 0 and whole == len(data),
          f"it inflates to {len(data)} bytes that end on a record boundary")
    check(switches > 1000, f"with the busy seconds' switches: {switches}")
    code, lines, err = dump(ftf_dump, out, "--check")
    check(code == 0 and lines[-1].startswith("ok records="),
          f"ftf-dump --check accepts it: exit {code}: {lines[-1] if lines else ''}")
    check(err.strip() == "", f"and says nothing else: {err.strip()!r}")


def mode_flight(tool, ftf_dump, pingpong, outdir):
    out = os.path.join(outdir, "compress-flight.fxt.gz")
    snap = os.path.join(outdir, "compress-flight-1.fxt.gz")
    for f in (snap, snap + ".old"):
        if os.path.exists(f):
            os.unlink(f)
    busy = subprocess.Popen([pingpong, "100000000"], stdout=subprocess.DEVNULL)
    try:
        tr = Tracer(tool, ["-a", "-F", "1s", "-o", out])
        time.sleep(1.5)
        tr.signal(signal.SIGINT)
        rc = tr.wait()
    finally:
        busy.kill()
        busy.wait()
    check(rc == 0, f"ftf-bpf -F exited 0 after Ctrl-C (got {rc})")
    check(os.path.exists(snap) and not os.path.exists(out),
          f"the snapshot is {os.path.basename(snap)} (no {os.path.basename(out)})")
    data, finished, _ = inflate(snap)
    whole, into = walk(data)
    check(finished and whole == len(data), f"it is a finished gzip of {len(data)} bytes of whole records")
    check(sum(into.values()) > 1000, f"with the window's switches: {sum(into.values())}")
    t = Trace(ftf_dump, snap)
    check(t.check_code == 0, f"ftf-dump --check accepts it ({t.check_out.strip()})")


def mode_diskfull(tool, ftf_dump, pingpong, outdir):
    mnt = os.path.join(outdir, "compress-tiny")
    os.makedirs(mnt, exist_ok=True)
    subprocess.run(["umount", mnt], capture_output=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"SKIP: cannot mount a tmpfs: {r.stderr.strip()}")
        sys.exit(77)
    busy = subprocess.Popen([pingpong, "100000000"], stdout=subprocess.DEVNULL)
    try:
        out = os.path.join(mnt, "full.fxt.gz")
        print(f"  run: {tool} -a -o {out}")
        p = subprocess.run([tool, "-a", "-o", out], capture_output=True, text=True, timeout=120)
        print("  ftf-bpf said:\n    " + p.stderr.strip().replace("\n", "\n    "))
        check(p.returncode != 0, f"ftf-bpf exits non-zero on a full disk (got {p.returncode})")
        errl = [line for line in p.stderr.splitlines() if "No space left" in line]
        check(len(errl) == 1 and out in errl[0], f"one line names the full disk and the file: {errl}")
        data, finished, members = inflate(out)
        whole, into = walk(data)
        size = os.path.getsize(out)
        check(finished and 0 < size <= 256 * 1024,
              f"the {size} bytes left are a complete gzip ({members} members)")
        check(whole == len(data) and sum(into.values()) > 0,
              f"of {len(data)} bytes of whole records, {sum(into.values())} switches")
        code, lines, err = dump(ftf_dump, out, "--check")
        check(code == 0, f"ftf-dump --check accepts it: {lines[-1] if lines else err}")
        shutil.copy(out, os.path.join(outdir, "compress-diskfull.fxt.gz"))  # to look at
    finally:
        busy.kill()
        busy.wait()
        subprocess.run(["umount", "-l", mnt], capture_output=True)


def main():
    skip_unless_root()
    mode, tool, ftf_dump, pingpong, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    fn = {"known": mode_known, "kill": mode_kill, "flight": mode_flight, "diskfull": mode_diskfull}[mode]
    run_main(lambda: fn(tool, ftf_dump, pingpong, outdir))


if __name__ == "__main__":
    main()
