#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-g on binutils' ar and ranlib (Debian's, nobody here wrote them): for
each member of an archive they dlopen the bfd plugins
(/usr/lib/x86_64-linux-gnu/bfd-plugins: libdep.so, gcc's liblto_plugin.so,
LLVMgold.so where installed) and dlclose them within a millisecond, so no
read of /proc/PID/maps shows them and their samples stopped "address in
no mapping" (2.6% of ar's, ranlib's and nm's samples in a loop of them
before the kernel's mmap records were read: 352 of 13,640 for ar).

The run: 40 objects (gcc -c), then `ar rc` and `ranlib` of them 30 times
under `ftf-bpf -g --freq 999 --`. Checked, for ar's and ranlib's
on-CPU samples (by their threads' names):
  - at least 1,000 of them (about 4 CPU seconds of them here);
  - some have frames in a bfd plugin, named by its path (the kernel
    recorded it mapped; ftf-bpf read no map that showed it);
  - at most 0.5% stopped "address in no mapping" (before: 2.6%).

usage: test_ar_plugins.py FTF_BPF FTF_DUMP OUTDIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from ftfcheck import check, run_main, skip_unless_root  # noqa: E402
from test_stack_copy import stopped, user  # noqa: E402
from test_stacks import decode_samples, read_ftf  # noqa: E402

FREQ = 999
ROUNDS = 30
PLUGINS = "/usr/lib/x86_64-linux-gnu/bfd-plugins"
NO_MAPPING = "[unwind stopped: address in no mapping]"


def thread_names(dump, out):
    """{tid: its thread's last name} from the trace's kernel objects."""
    txt = subprocess.run([dump, out], capture_output=True, text=True, check=True).stdout
    return {int(m[1]): m[2] for m in
            re.finditer(r'KernelObject\(koid: (\d+), type: thread, name: "([^"]*)"', txt)}


def main():
    skip_unless_root()
    tool, dump, outdir = (os.path.abspath(a) for a in sys.argv[1:4])
    work = os.path.join(outdir, "ar-plugins")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    print("ar plugins: binutils' ar and ranlib, which dlopen and dlclose the bfd plugins")
    check(shutil.which("ar") and shutil.which("ranlib"), "ar and ranlib are installed")
    check(glob.glob(os.path.join(PLUGINS, "*.so")), f"{PLUGINS} has plugins")
    for i in range(40):
        with open(os.path.join(work, f"f{i}.c"), "w") as f:
            f.write(f"int f{i}(int x) {{ return x * {i}; }}\n")
    subprocess.run("gcc -c -O2 f*.c", shell=True, cwd=work, check=True)
    out = os.path.join(outdir, "ar-plugins.fxt")
    loop = f"for i in $(seq {ROUNDS}); do rm -f lib.a; ar rc lib.a f*.o; ranlib lib.a; done"
    r = subprocess.run([tool, "-g", "--freq", str(FREQ), "-o", out, "--", "sh", "-c", loop],
                       cwd=work, capture_output=True, text=True, timeout=300)
    print("  ftf-bpf said:\n    " + r.stderr.strip().replace("\n", "\n    "))
    check(r.returncode == 0, f"exit 0 (got {r.returncode})")

    names = thread_names(dump, out)
    _, samples = decode_samples(read_ftf(out)[1])
    theirs = [s for s in samples if s["kind"] == "on-CPU samples" and
              names.get(s["tid"]) in ("ar", "ranlib")]
    in_plugin = [s for s in theirs if any(p and p.startswith(PLUGINS + "/") or
                                          p and p.endswith("/liblto_plugin.so")
                                          for _, p in user(s["frames"]))]
    no_mapping = [s for s in theirs if NO_MAPPING in stopped(s["frames"])]
    print(f"  ar and ranlib: {len(theirs)} on-CPU samples, {len(in_plugin)} in a plugin, "
          f"{len(no_mapping)} stopped 'address in no mapping'")
    check(len(theirs) >= 1000, "at least 1,000 samples of ar and ranlib")
    check(in_plugin, "some in a bfd plugin, named by its path")
    check(len(no_mapping) <= 0.005 * len(theirs), "at most 0.5% stopped 'address in no mapping'")


if __name__ == "__main__":
    run_main(main)
