#!/bin/sh
# ftf-merge on outputs and inputs that are not regular files (issue 19):
# a failed merge into a device node leaves the node as it was (it used to
# be unlinked), a FIFO or directory output is refused with one line, an
# existing trace survives a failed merge byte for byte; a piped input and
# a FIFO input are merged in full (each used to be opened twice: the pipe
# lost, the FIFO hung). Event counts come from the fixtures themselves
# (ftf-dump --summary of each input), not from the merged output.
# Usage: ftf_merge_hostile.sh FTF_MERGE FTF_DUMP FIXTURES_DIR
set -u
merge=$1
dump=$2
fx=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }
events() { "$dump" --summary "$1" | sed -n 's/^  event: //p'; }
# a bounded run: a hang fails the test instead of the suite's timeout
bounded() { timeout 60 "$@"; }

# 1. a device node output (a private /dev/null) and a merge that fails
mknod "$tmp/null" c 1 3 || { echo "SKIP: mknod needs root"; exit 77; }
bounded "$merge" "$fx/full.fxt" --offset 1s "$fx/bad-truncated.fxt" \
	-o "$tmp/null" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ -c "$tmp/null" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
	pass "failed merge into a device: exit $rc, node kept: $(cat "$tmp/err")"
else
	fail "device output: exit $rc, $(ls -l "$tmp/null" 2>&1), $(cat "$tmp/err")"
fi
# and one that would work: still refused, the node untouched
bounded "$merge" "$fx/full.fxt" -o "$tmp/null" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ -c "$tmp/null" ] && grep -q 'not a regular file' "$tmp/err" &&
	pass "device output refused: $(cat "$tmp/err")" ||
	fail "device output: exit $rc, $(ls -l "$tmp/null" 2>&1), $(cat "$tmp/err")"
mkfifo "$tmp/outfifo"
bounded "$merge" "$fx/full.fxt" -o "$tmp/outfifo" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ -p "$tmp/outfifo" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	pass "FIFO output refused: $(cat "$tmp/err")" ||
	fail "FIFO output: exit $rc, $(cat "$tmp/err")"
mkdir "$tmp/dir"
bounded "$merge" "$fx/full.fxt" -o "$tmp/dir" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ -d "$tmp/dir" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	pass "directory output refused: $(cat "$tmp/err")" ||
	fail "directory output: exit $rc, $(cat "$tmp/err")"

# 2. an existing trace survives a failed merge, and no stray file is left
cp "$fx/full.fxt" "$tmp/keep.fxt"
bounded "$merge" "$fx/full.fxt" --offset 1s "$fx/bad-truncated.fxt" \
	-o "$tmp/keep.fxt" 2>"$tmp/err"
rc=$?
left=$(ls "$tmp" | grep -c 'keep.fxt.')
if [ $rc -eq 1 ] && cmp -s "$fx/full.fxt" "$tmp/keep.fxt" && [ "$left" -eq 0 ]; then
	pass "failed merge: the existing output byte-identical, no temporary left"
else
	fail "failed merge over a trace: exit $rc, $(cmp "$fx/full.fxt" "$tmp/keep.fxt" 2>&1), $left temporary files"
fi

# 3. a piped input and a FIFO input, merged in full
want=$(($(events "$fx/full.fxt") + $(events "$fx/minimal.fxt")))
cat "$fx/minimal.fxt" | bounded "$merge" "$fx/full.fxt" --offset 1ms \
	/dev/stdin -o "$tmp/piped.fxt" 2>"$tmp/err"
rc=$?
got=$(events "$tmp/piped.fxt" 2>/dev/null)
[ $rc -eq 0 ] && [ "$got" = "$want" ] &&
	pass "piped input: $got events (the inputs' $want)" ||
	fail "piped input: exit $rc, ${got:-no} events of $want: $(cat "$tmp/err")"
mkfifo "$tmp/in.fifo"
gzip -c "$fx/minimal.fxt" >"$tmp/in.fifo" &
bounded "$merge" "$fx/full.fxt" --offset 1ms "$tmp/in.fifo" \
	-o "$tmp/fifo.fxt.gz" 2>"$tmp/err"
rc=$?
wait
got=$(events "$tmp/fifo.fxt.gz" 2>/dev/null)
check=$("$dump" --check "$tmp/fifo.fxt.gz" 2>&1)
[ $rc -eq 0 ] && [ "$got" = "$want" ] && echo "$check" | grep -q '^ok ' &&
	pass "FIFO input (gzip): $got events (the inputs' $want), $check" ||
	fail "FIFO input: exit $rc, ${got:-no} events of $want, $check: $(cat "$tmp/err")"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
