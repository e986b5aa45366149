# SPDX-License-Identifier: MIT
"""Helpers the BPF benchmark scripts share (uprobe_bench, usdt_bench)."""
import json
import subprocess
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
