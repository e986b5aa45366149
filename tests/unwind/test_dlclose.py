#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on a process that dlopens a library, spins in it and dlcloses it
before the loader ever reads it mapped, as binutils' ar and ranlib do
their bfd plugins (ranlib was 91% complete beside a build: its samples
in the plugin stopped "address in no mapping"). The kernel's record of
the mmap (src/loader/mmap_watch.h) names the library: the loader builds
its table from it, the samples held with a copy of their stack are
walked with the mapping the process had when they were taken
(src/stacks/native/mapped_log.h), and the symbolizer names its frames
(maps_memo_put_mapped).

Three runs of `dlopenwl -c 0.3 LIB 0.5` (dlopen LIB, spin 0.5 CPU
seconds in its dls_outer -> dls_inner, dlclose it, spin 0.3 s in its
own code) under `ftf-bpf -g --`, all with FTFB_FAULT_NO_REREAD=dlopenwl
(the loader never reads dlopenwl's maps again after its first read, at
its exec, before the dlopen) and the cache off; LIB (dlspin.c, -O2
without frame pointers) is mapped by no other process:
  - "built at once": LIB's table is built while dlopenwl spins in it;
  - "built after the dlclose": FTFB_FAULT_SLOW_UW_BUILD_OF=libdlspin,
    FTFB_FAULT_SLOW_UW_BUILD_S=2 make LIB's table come 2 s after the
    loader is told of it, when dlopenwl has dlclosed it (and waits for
    the end of its stdin): no read of its maps holds LIB;
  - "built after the exit": the same, dlopenwl exiting after its spins:
    nor does the kernel's list of its mappings at its exit, and LIB's
    file is opened by its path, checked to be the file mapped.
Checked in each:
  - dlopenwl has at least 0.3 x 0.5 s x FREQ samples with LIB's frames
    named from its path (before: none, its frames unnamed);
  - at least 90% of them whole, from _start through main, dls_outer,
    dls_inner (a walk that guessed by frame pointer past LIB skips
    dls_outer and main);
  - none of dlopenwl's samples stopped "address in no mapping" (before:
    every one of those in LIB).

usage: test_dlclose.py FTF_BPF DLOPENWL LIB OUTDIR
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402
from test_stack_copy import calls, sorted_out, stopped, user  # noqa: E402

FREQ = 499
SPIN = 0.5
CHAIN = ["_start", "main", "dls_outer", "dls_inner"]
NO_MAPPING = "[unwind stopped: address in no mapping]"


SLOW = {"FTFB_FAULT_SLOW_UW_BUILD_OF": "libdlspin", "FTFB_FAULT_SLOW_UW_BUILD_S": "2"}


def run_case(tool, dlopenwl, lib, outdir, name, script, extra_env):
    out = os.path.join(outdir, f"dlclose-{name.replace(' ', '-')}.fxt")
    env = dict(os.environ, FTFB_FAULT_NO_REREAD="dlopenwl", FTF_BPF_UNWIND_CACHE="off",
               **extra_env)
    print(f"{name}: ({' '.join(f'{k}={v}' for k, v in extra_env.items())}) {script}")
    r = subprocess.run([tool, "-g", "--freq", str(FREQ), "-o", out, "--", "sh", "-c", script],
                       capture_output=True, text=True, env=env, timeout=120)
    print("  ftf-bpf said:\n    " + r.stderr.strip().replace("\n", "\n    "))
    check(r.returncode == 0, f"exit 0 (got {r.returncode})")
    check("spun" in r.stdout and "closed and spun" in r.stdout,
          "dlopenwl spun in the library, closed it and spun on")

    mine, good, _ = sorted_out(out, lib, CHAIN, "in LIB")
    check(len(mine) >= 0.3 * SPIN * FREQ,
          f"dlopenwl was sampled in LIB, named (at least {int(0.3 * SPIN * FREQ)})")
    check(len(good) >= 0.9 * len(mine), "at least 90% of them whole, from _start through the chain")
    _, samples = decode_samples(read_ftf(out)[1])
    theirs = [s for s in samples if s["kind"] == "on-CPU samples" and
              any(p == dlopenwl for _, p in user(s["frames"]))]
    no_mapping = [s for s in theirs if NO_MAPPING in stopped(s["frames"])]
    print(f"  dlopenwl: {len(theirs)} on-CPU samples, {len(no_mapping)} stopped "
          "'address in no mapping'")
    check(len(theirs) >= len(mine), "dlopenwl's samples found by its own file too")
    check(not no_mapping, "none stopped 'address in no mapping'")


def main():
    skip_unless_root()
    tool, dlopenwl, lib, outdir = sys.argv[1:5]
    os.makedirs(outdir, exist_ok=True)
    lib, dlopenwl = os.path.realpath(lib), os.path.realpath(dlopenwl)
    print("dlclose: a library mapped and unmapped between two reads of the maps")
    check(("dls_outer", "dls_inner") in calls(lib), "objdump: dls_outer calls dls_inner")
    wl = f"{dlopenwl} -c 0.3 {lib} {SPIN}"
    run_case(tool, dlopenwl, lib, outdir, "built at once", f"(sleep 1; echo go; sleep 3) | {wl}", {})
    run_case(tool, dlopenwl, lib, outdir, "built after the dlclose",
             f"(sleep 1; echo go; sleep 3) | {wl}", SLOW)
    run_case(tool, dlopenwl, lib, outdir, "built after the exit",
             f"(sleep 1; echo go) | {wl}; sleep 3", SLOW)


if __name__ == "__main__":
    run_main(main)
