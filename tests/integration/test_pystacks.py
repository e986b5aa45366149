#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on CPython: Python frames in the stack samples (issue 22), on
pystackwl.py (see there), decoded with test_stacks.py's own protobuf
reader, against what the script measured of itself and the def lines
Python's ast module finds in it.

usage: test_pystacks.py MODE FTF_BPF FTF_DUMP WORKLOAD OUTDIR
MODE: debian (Debian's /usr/bin/python3.11) | 3.8 ... 3.13 (pyenv's
      CPython of that version; skipped when absent) | unsupported (pyenv's
      3.7: one warning line, native frames only) | off (--no-python-stacks:
      native frames only) | flight (-F 30s: the stop's snapshot) | shim
      (--python -- a script that execs Python, as pyenv's shims: one line
      saying which interpreter to give, exit 1, no trace)
"""
import ast
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ftfcheck import Trace, check, run_main, skip_unless_root, tp_query  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
SKIP = 77


def pyenv_python(ver):
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(glob.glob(f"{root}/versions/{ver}.*/bin/python{ver}"))
    return found[-1] if found else None


def interpreter(mode):
    if mode in ("debian", "off", "flight"):
        return "/usr/bin/python3.11" if os.path.exists("/usr/bin/python3.11") else None
    return pyenv_python("3.7" if mode == "unsupported" else mode)


def def_lines(script, version):
    """{function name: line of its def}, and the module's first line:
    1 from CPython 3.10 on, that of its first statement before."""
    tree = ast.parse(open(script).read())
    lines = {n.name: n.lineno for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    lines["<module>"] = 1 if version >= (3, 10) else tree.body[0].lineno
    return lines


def version_of(py):
    out = subprocess.run([py, "-c", "import sys; print(*sys.version_info[:2])"],
                         capture_output=True, text=True, check=True).stdout
    return tuple(int(x) for x in out.split())


def py_chain(frames, script):
    """The sample's Python frames of the script, root first, as names."""
    return [fn for fn, path in frames if path == script]


def run(tool, py, script, out, extra):
    # (-S: no site module; pyenv's site-packages import for 0.1 s of CPU
    # at start-up, which would count against the 90%)
    args = ["-g", "--freq", str(FREQ), *extra, "-o", out, "--", py, "-S", script]
    print("  run:", tool, " ".join(args))
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=180)
    print("  ftf-bpf said (exit %d):\n    %s" % (p.returncode, p.stderr.strip().replace("\n", "\n    ")))
    check(p.returncode == 0, f"exit 0 (got {p.returncode})")
    print("  the script printed:", p.stdout.strip())
    got = dict(kv.split("=") for kv in p.stdout.split())
    calls = [(c.split(":")[0], int(c.split(":")[1])) for c in got.pop("calls").split(",")]
    return dict({k: int(v) for k, v in got.items()}, calls=calls), p.stderr


def load(ftf_dump, out):
    t = Trace(ftf_dump, out)
    check(t.check_code == 0, f"ftf-dump --check accepts the trace ({t.check_out.strip()[:200]})")
    _, stream = read_ftf(out)
    return decode_samples(stream)[1]


def check_cpu(samples, pid, script, meas, version):
    lines = def_lines(script, version)
    base = os.path.basename(script)
    name = {f: f"{f} ({base}:{lines[f]})" for f in lines}
    on = sorted((s for s in samples if s["kind"] == "on-CPU samples" and s["tid"] == pid),
                key=lambda s: s["ts"])
    # (the Python walker starts once ftf-bpf has read the new process's
    # interpreter, after its exec: the samples before are native only,
    # more of them on a loaded machine, up to 11% under ASan in CI)
    first = next((i for i, s in enumerate(on) if py_chain(s["frames"], script)), len(on))
    print(f"  {first} of {len(on)} main-thread samples before the first with Python frames")
    check(first <= 0.25 * len(on), "at most a quarter of them before the first with Python frames")
    on = on[first:]
    chains = [py_chain(s["frames"], script) for s in on]
    head = [name[f] for f in ("<module>", "main", "level1", "level2")]
    n = {f: sum(1 for c in chains if c == head + [name[f]]) for f in ("spin_a", "spin_b")}
    print(f"  main thread: {len(on)} on-CPU samples; whole chain to spin_a: {n['spin_a']}, "
          f"to spin_b: {n['spin_b']}; expected names {head} + spin_a/spin_b")
    print(f"  e.g. {chains[len(chains) // 2] if chains else None}")
    check(on, "the main thread has on-CPU samples")
    check(n["spin_a"] + n["spin_b"] >= 0.9 * len(on),
          "at least 90% of them carry the whole Python chain from <module> down, file and def lines right")
    labels = ["a" if c == head + [name["spin_a"]] else "b" if c == head + [name["spin_b"]] else None
              for c in chains]
    check_ratio(spin_runs(labels), meas["calls"])


def spin_runs(labels):
    """[[label, samples]] of each run of spin_a ("a") or spin_b ("b")
    samples in a row: one run per call, samples of neither skipped."""
    runs = []
    for lab in labels:
        if lab and runs and runs[-1][0] == lab:
            runs[-1][1] += 1
        elif lab:
            runs.append([lab, 1])
    return runs


def check_ratio(runs, calls):
    """Samples follow the CPU time the script measured of each call. The
    first run the trace has is left out, with the calls before it: the
    Python walker may have started within it (on a loaded machine, after
    most of the first call)."""
    print(f"  runs of samples: {runs}; calls measured: {calls}")
    check(3 <= len(runs) <= len(calls), f"one run of samples per call ({len(runs)} runs, {len(calls)} calls)")
    calls = calls[len(calls) - len(runs):]
    check([r[0] for r in runs] == [c[0] for c in calls], "the runs alternate as the calls do")
    runs, calls = runs[1:], calls[1:]
    ns = {f: sum(c[1] for c in calls if c[0] == f) for f in "ab"}
    n = {f: sum(r[1] for r in runs if r[0] == f) for f in "ab"}
    want = ns["a"] / max(ns["b"], 1)
    got = n["a"] / max(n["b"], 1)
    print(f"  over the calls after the first sampled: samples spin_a:spin_b = {got:.3f}, "
          f"CPU time measured by the script {want:.3f}")
    check(abs(got - want) <= 0.15 * want, "the samples follow the measured CPU times within 15%")


def check_off(samples, tid, script, meas, version):
    lines = def_lines(script, version)
    base = os.path.basename(script)
    name = {f: f"{f} ({base}:{lines[f]})" for f in lines}
    off = [s for s in samples if s["kind"] == "off-CPU time (ns)" and s["tid"] == tid]
    for fn, key in (("nap", "nap_ns"), ("wait_reply", "recv_ns")):
        mine = [s for s in off if py_chain(s["frames"], script)[-2:] == [name["sleepy"], name[fn]]]
        w = sum(s["weight"] for s in mine)
        print(f"  sleeper: {len(mine)} off-CPU stacks in sleepy > {fn}, {w / 1e9:.4f} s; "
              f"the script measured {meas[key] / 1e9:.4f} s")
        check(abs(w - meas[key]) <= 0.1 * meas[key],
              f"off-CPU weights under sleepy > {fn} add up to the time measured, within 10%")
        # A thread starts in libc (clone3, start_thread): merged, its
        # stacks keep those native frames as their root; the Python frames
        # as the root instead was every thread's fate once (its libc
        # frames have no symbol, and the merge wanted one by name).
        rooted = [s for s in mine if s["frames"] and not s["frames"][0][1].endswith(".py")]
        print(f"  sleeper: {len(rooted)} of those {len(mine)} stacks start at a native frame "
              f"(e.g. {mine[0]['frames'][:3] if mine else None})")
        check(len(rooted) >= 0.9 * len(mine),
              f"at least 90% of the sleeper's stacks under sleepy > {fn} have its Python frames "
              f"among its native ones, under the thread's start")


def check_perfetto(out, script, version):
    """What Perfetto reads: the Python frames by name, no error stats."""
    lines = def_lines(script, version)
    base = os.path.basename(script)
    want = {f"{f} ({base}:{lines[f]})" for f in ("<module>", "main", "level1", "level2",
                                                  "spin_a", "spin_b", "sleepy", "nap", "wait_reply")}
    rows = tp_query(out, "select distinct name from stack_profile_frame")
    if rows is None:
        return
    got = {r["name"] for r in rows}
    print(f"  Perfetto's stack_profile_frame: {len(got)} names, of the script's functions: "
          f"{sorted(want & got)}")
    check(want <= got, f"stack_profile_frame names every Python function of the script (missing {want - got})")
    rows = tp_query(out, "select name, idx, value from stats where value > 0 and severity in "
                         "('error', 'data_loss')")
    check(not rows, f"no error stats in trace_processor (got {rows})")


def check_native_only(samples, stderr, mode, script):
    py = [s for s in samples if py_chain(s["frames"], script)]
    print(f"  {len(samples)} samples, {len(py)} with Python frames")
    check(samples, "samples are there")
    check(not py, "no Python frames")
    warn = re.findall(r"python 3\.\d+: Python frames not supported, native frames only", stderr)
    if mode == "unsupported":
        check(len(warn) == 1 and "python 3.7:" in warn[0], f"one warning line naming 3.7 (got {warn})")
    else:
        check(not warn, "no warning")


def test_shim(tool, outdir):
    """--python given a pyenv shim (a script): one line, naming the
    interpreter command to give for that very shim's name."""
    for name in ("python3", "python3.11"):
        shim = os.path.join(outdir, "shims", name)
        os.makedirs(os.path.dirname(shim), exist_ok=True)
        with open(shim, "w") as f:
            f.write('#!/bin/sh\nexec python3 "$@"\n')
        os.chmod(shim, 0o755)
        out = os.path.join(outdir, "pystacks-shim.fxt")
        if os.path.exists(out):
            os.unlink(out)
        p = subprocess.run([tool, "--python", "-o", out, "--", shim, "-c", "pass"],
                           capture_output=True, text=True, timeout=60)
        print(f"  ftf-bpf --python -- {shim}: exit {p.returncode}, said: {p.stderr.strip()}")
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 1, "exit 1")
        check(len(lines) == 1 and shim in lines[0] and "is a script" in lines[0]
              and f"$(pyenv which {name})" in lines[0],
              f"one line naming the script and how to give the interpreter ($(pyenv which {name}))")
        check("not an ELF file" not in p.stderr, "not the ELF reader's error")
        check(not os.path.exists(out), "no trace written")


def main():
    skip_unless_root()
    mode, tool, ftf_dump, script, outdir = sys.argv[1:6]
    script = os.path.abspath(script)
    os.makedirs(outdir, exist_ok=True)
    print(f"pystacks {mode}")
    if mode == "shim":
        test_shim(tool, outdir)
        return
    py = interpreter(mode)
    if not py:
        print(f"  no interpreter for {mode} on this machine: skipped")
        sys.exit(SKIP)
    out = os.path.join(outdir, f"pystacks-{mode}.fxt")
    extra = {"off": ["--no-python-stacks"], "flight": ["-F", "30s"]}.get(mode, [])
    meas, stderr = run(tool, py, script, out, extra)
    if mode == "flight":
        out = out[:-4] + "-1.fxt"
    samples = load(ftf_dump, out)
    if mode in ("off", "unsupported"):
        check_native_only(samples, stderr, mode, script)
        return
    check("not supported" not in stderr, "no warning")
    pid = min((s["pid"] for s in samples if s["tid"] == meas["tid"]), default=None)
    check(pid, f"the sleeper thread (tid {meas['tid']}) has samples")
    version = version_of(py)
    check_cpu(samples, pid, script, meas, version)
    check_off(samples, meas["tid"], script, meas, version)
    check_perfetto(out, script, version)


if __name__ == "__main__":
    run_main(main)
