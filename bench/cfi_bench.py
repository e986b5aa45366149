#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How long building a binary's unwind table takes, a baseline build's
uw_dump against this one's, runs interleaved (baseline, new, new,
baseline, ...), medians; and whether both give the same rows.

The baseline is another build of tests/unwind/uw_dump, e.g. of main
before the one-pass CFI reader (libdw per row):

  git archive COMMIT | tar -x -C /tmp/cfi-old
  (cd /tmp/cfi-old && meson setup build && ninja -C build tests/unwind/uw_dump)
  bench/cfi_bench.py --old /tmp/cfi-old/build/tests/unwind/uw_dump \\
      --new build/tests/unwind/uw_dump --runs 5 --vdso FILE...

Per file: the median wall and CPU (user + system) time of a whole
uw_dump run (process start, table build, printing the rows), its peak
RSS, the rows, and old/new ratios. With --vdso, the vDSO's table too
(32 rows): about the cost of starting uw_dump. On a busy machine
the wall times wait for a CPU; the CPU times do not.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time


def run(exe, path):
    """(wall s, cpu s, max RSS KiB, exit status, sha256 of the rows, rows).
    The peak RSS comes from GNU time: a direct child of this script would
    count the script's own pages in it; the CPU time (user + system) is
    time's and uw_dump's, to the microsecond."""
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "FTFB %M %x", exe, path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    h = hashlib.sha256()
    rows = 0
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        h.update(chunk)
        rows += chunk.count(b"\n")
    err = p.stderr.read().decode()
    _, _, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    rss, status = err.rsplit("FTFB ", 1)[1].split()
    return wall, ru.ru_utime + ru.ru_stime, int(rss), int(status), h.hexdigest(), rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", required=True, help="the baseline's uw_dump")
    ap.add_argument("--new", default="build/tests/unwind/uw_dump")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--vdso", action="store_true",
                    help="also the vDSO's table (32 rows): about the cost of starting uw_dump")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if a.vdso:
        a.files.insert(0, "--vdso")
    if not os.path.exists("/usr/bin/time"):
        sys.exit("cfi_bench.py: needs GNU time (apt-get install time)")
    res = {(w, f): [] for w in ("old", "new") for f in a.files}
    for r in range(a.runs):
        for f in a.files:
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for w in order:
                res[(w, f)].append(run(a.old if w == "old" else a.new, f))
    print(f"{'file':<40} {'rows':>9} {'same':>5} {'old wall':>9} {'new wall':>9} {'ratio':>7} "
          f"{'old cpu':>8} {'new cpu':>8} {'ratio':>7} {'old RSS':>9} {'new RSS':>9}")
    ok = True
    for f in a.files:
        o, n = res[("old", f)], res[("new", f)]
        same = len({x[3:5] for x in o + n}) == 1
        ok &= same
        med = [statistics.median(x[i] for x in v) for v in (o, n) for i in (0, 1, 2)]
        name = f if len(f) <= 40 else "..." + f[-37:]
        print(f"{name:<40} {n[0][5]:>9} {'yes' if same else 'NO':>5} "
              f"{med[0]:>8.3f}s {med[3]:>8.3f}s {med[0] / med[3]:>6.1f}x "
              f"{med[1]:>7.3f}s {med[4]:>7.3f}s {med[1] / max(med[4], 1e-3):>6.1f}x "
              f"{med[2] / 1024:>7.1f}MB {med[5] / 1024:>7.1f}MB")
    print(f"(medians of {a.runs} interleaved runs; ratio: old / new; same: exit status "
          "and rows identical in every run)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
