# SPDX-License-Identifier: MIT
"""Helpers the BPF benchmark scripts share (uprobe, usdt and syscall
benchmarks)."""
import json
import os
import subprocess
import sys
import time


def prog_ids():
    """The BPF programs loaded now, by id (bpftool's JSON, with run_cnt
    and run_time_ns when kernel.bpf_stats_enabled=1)."""
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True).stdout
    return {p["id"]: p for p in json.loads(out or "[]")}


def wait_line(stream, marker, timeout=60):
    """Reads `stream` until a line holding `marker` (a tracer says it is
    attached); raises with the last lines if it ends or times out."""
    deadline = time.time() + timeout
    seen = []
    while time.time() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if marker in line:
            return
    raise RuntimeError("tracer did not start: " + "".join(seen[-5:]))


def tracer_paths(a, script, why, loop):
    """Exits with one line unless run as root (`why`: what needs it) and
    the build holds what the script runs; else sets a.ftf, a.dump and
    a.loop (the build's bench/`loop` workload, an absolute path)."""
    if os.geteuid() != 0:
        sys.exit(f"{script}: needs root ({why}): run it with sudo")
    a.loop = os.path.abspath(os.path.join(a.build, "bench", loop))
    a.ftf = os.path.join(a.build, "src", "ftf-bpf")
    a.dump = os.path.join(a.build, "tools", "ftf-dump")
    for f in (a.loop, a.ftf, a.dump):
        if not os.path.exists(f):
            sys.exit(f"{script}: {f} not built: run meson setup {a.build} && ninja -C {a.build}")
