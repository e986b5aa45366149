#!/usr/bin/env bash
# Sets up, builds, and traces the bundled demo workload (demo/demo.c):
# scheduling of all its threads plus every call of its stage_* functions,
# into demo.fxt; then prints the trace's summary. Run as root (BPF).
set -euo pipefail
why="tracing with BPF needs root"
. "$(dirname "$0")/need-root.sh"
cd "$(dirname "$0")/.."

bash scripts/setup.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

build/src/ftf-bpf -u 'stage_*' --args 1 -o demo.fxt -- build/demo/demo
echo
build/tools/ftf-dump --summary demo.fxt
echo
echo "Open demo.fxt at https://ui.perfetto.dev (Open trace file): each demo"
echo "thread has a track with its stage_parse/stage_checksum slices and its"
echo "scheduling states; the CPU tracks show what ran where."
