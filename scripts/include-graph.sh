#!/bin/sh
# include-graph.sh - the include graph between the files of src/ (a file
# and its headers are one node: src/translate/ticks.c and ticks.h are
# "translate/ticks", translate_priv.h is translate's), and its circles: two nodes that include each other,
# directly or through others, are one idea split in two or two ideas
# leaning on each other; data should flow one way (BPF -> loader ->
# translator -> writer -> sink).
#
#   scripts/include-graph.sh [SRC_DIR]       print the edges, then the
#                                            circles; exit 1 if any
#   scripts/include-graph.sh -q [SRC_DIR]    the circles only
#
# Run by the unit suite (tests/meson.build: "include graph"), so a circle
# introduced later fails the tests.
quiet=0
if [ "$1" = "-q" ]; then
	quiet=1
	shift
fi
src=${1:-$(dirname "$0")/../src}
exec python3 - "$src" "$quiet" <<'PY'
import os, re, sys

src, quiet = sys.argv[1], sys.argv[2] == "1"
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
files = {}  # basename -> node
for d, _, names in os.walk(src):
    for n in names:
        if n.endswith((".c", ".h")):
            rel = os.path.relpath(os.path.join(d, n), src)
            files.setdefault(n, []).append(rel)
def node(rel):
    # a private header (translate_priv.h) is its module's own
    n = os.path.splitext(rel)[0]
    return n[:-5] if n.endswith("_priv") else n
edges = {}
for n, rels in files.items():
    for rel in rels:
        text = open(os.path.join(src, rel), errors="replace").read()
        a = node(rel)
        edges.setdefault(a, set())
        for h in inc.findall(text):
            # the include dirs: the file's own folder first, then by name
            here = os.path.normpath(os.path.join(os.path.dirname(rel), h))
            if os.path.exists(os.path.join(src, here)):
                b = node(here)
            elif os.path.basename(h) in files:
                b = node(files[os.path.basename(h)][0])
            else:
                continue  # a system, libbpf or generated header
            if b != a:
                edges[a].add(b)
if not quiet:
    for a in sorted(edges):
        for b in sorted(edges[a]):
            print(f"{a} -> {b}")
# Tarjan's strongly connected components: a component of more than one
# node is a circle.
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
def visit(v):
    work = [(v, iter(sorted(edges.get(v, ()))))]
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    while work:
        u, it = work[-1]
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1
                stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
                break
            if w in on:
                low[u] = min(low[u], index[w])
        else:
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[u])
            if low[u] == index[u]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == u:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
for v in sorted(edges):
    if v not in index:
        visit(v)
for c in comps:
    print("circle: " + " <-> ".join(c))
print(f"{len(edges)} files, {sum(len(e) for e in edges.values())} includes, "
      f"{len(comps)} circle(s)")
sys.exit(1 if comps else 0)
PY
