# SPDX-License-Identifier: MIT
"""A Python workload of known garbage collections and imports, for the
--python test. With --wait-stdin it waits for a line after "ready PID"
(ftf-bpf -p attaches meanwhile). It then forces 3 collections of
generation 0, 2 of generation 1 and 4 of generation 2 with automatic
collection off, imports json, csv and fractions, and prints what the
interpreter itself counted: "gc N0 N1 N2" (collections since the wait, by
generation), "gcall N0 N1 N2" (since the start), "mods M..." (the modules
the imports loaded). It ends with os._exit, so no collection runs at
exit."""
import gc
import os
import sys

gc.disable()


def collections():
    return [s["collections"] for s in gc.get_stats()]


print("ready", os.getpid(), flush=True)
if "--wait-stdin" in sys.argv:
    sys.stdin.readline()
before, before_mods = collections(), set(sys.modules)
for gen, n in ((0, 3), (1, 2), (2, 4)):
    for _ in range(n):
        gc.collect(gen)
import json  # noqa: E402,F401
import csv  # noqa: E402,F401
import fractions  # noqa: E402,F401
after = collections()
print("gc", *[a - b for a, b in zip(after, before)])
print("gcall", *after)
print("mods", *sorted(set(sys.modules) - before_mods), flush=True)
os._exit(0)
