#!/bin/sh
# ftf-dump's command line on the fixtures in tests/data/fixtures: the dump equals the text
# of Fuchsia's reader (only "fxt-dump" -> "ftf-dump" on the last line),
# bad files give exit 1 and an "ERROR @N" line at Fuchsia's offset,
# --check and --summary say what the fixtures hold, usage and file errors
# give exit 2.   Usage: ftf_dump_cli.sh FTF_DUMP FIXTURES_DIR
set -u
dump=$1
fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

for f in minimal full; do
	"$dump" "$fx/$f.fxt" >"$tmp/$f.out" 2>"$tmp/$f.err"
	rc=$?
	[ $rc -eq 0 ] || fail "$f: exit $rc"
	sed 's/^fxt-dump: /ftf-dump: /' "$fx/$f.decoded.txt" >"$tmp/$f.want"
	if diff -u "$tmp/$f.want" "$tmp/$f.out"; then
		pass "$f.fxt dump equals $f.decoded.txt"
	else
		fail "$f.fxt dump differs from $f.decoded.txt"
	fi
	[ -s "$tmp/$f.err" ] && fail "$f: stderr not empty: $(cat "$tmp/$f.err")"
done

for f in "$fx"/bad-*.fxt; do
	b=$(basename "$f")
	"$dump" "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$b: exit $rc, want 1"
	want=$(sed -n '1s/^ERROR @\([0-9]*\):.*/\1/p' "$f.reader.txt")
	got=$(sed -n '1s/^ERROR @\([0-9]*\):.*/\1/p' "$tmp/err")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "$b: ERROR @$got as Fuchsia's reader"
	else
		fail "$b: ERROR @$got, Fuchsia's reader @$want ($(cat "$tmp/err"))"
	fi
	"$dump" --check "$f" >"$tmp/out" 2>&1
	rc=$?
	{ [ $rc -eq 1 ] && grep -q '^FAILED ' "$tmp/out"; } ||
		fail "$b: --check exit $rc: $(cat "$tmp/out")"
done

out=$("$dump" --check "$fx/full.fxt")
rc=$?
[ $rc -eq 0 ] && [ "$out" = "ok records=47 bytes=1424 events=11 threads=1 skipped=0" ] &&
	pass "--check full.fxt: $out" || fail "--check full.fxt: exit $rc: $out"

# the bad-undefined-string event is the begin of the duration whose end
# comes later: --check reports the string ref and the unmatched end
out=$("$dump" --check "$fx/bad-undefined-string.fxt")
echo "$out" | grep -q 'string ref 28672 was never defined' &&
	echo "$out" | grep -q 'has no open begin' &&
	pass "--check bad-undefined-string.fxt names both problems" ||
	fail "--check bad-undefined-string.fxt: $out"

# One byte changed (issue 19): the event record at offset 928 of full.fxt
# (header byte 0x44: type 4, 4 words) made 15 words long (0xf4) ends
# inside the next event, whose words then read as a record of type 12,
# which the format does not define; --check used to skip it, exit 0.
# Fuchsia's reader reports it ("unknown type 12").
cp "$fx/full.fxt" "$tmp/onebyte.fxt"
printf '\364' | dd of="$tmp/onebyte.fxt" bs=1 seek=928 conv=notrunc 2>/dev/null
out=$("$dump" --check "$tmp/onebyte.fxt")
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'record type 12 .*not defined' &&
	echo "$out" | grep -q 'unknown_types=1' &&
	pass "--check fails on a one-byte size change: $(echo "$out" | tail -1)" ||
	fail "--check on a one-byte size change: exit $rc: $out"
# The provider section record at offset 32 (header byte 2: 0x12, section
# of provider 1) switched to provider 2 (0x22), which nothing declared.
cp "$fx/full.fxt" "$tmp/provider.fxt"
printf '\042' | dd of="$tmp/provider.fxt" bs=1 seek=34 conv=notrunc 2>/dev/null
out=$("$dump" --check "$tmp/provider.fxt")
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'provider section for provider 2' &&
	pass "--check fails on a section of an undeclared provider" ||
	fail "--check on an undeclared provider's section: exit $rc: $out"
# --summary still counts what it skipped
"$dump" --summary "$tmp/onebyte.fxt" | grep -q 'unknown (skipped): 1' &&
	pass "--summary counts the undefined record" ||
	fail "--summary: $("$dump" --summary "$tmp/onebyte.fxt")"

"$dump" --summary "$fx/full.fxt" >"$tmp/sum"
for line in 'records: 47' '  string: 22' '    duration begin: 1' \
	'    flow step: 1' '  context switch: 1' '  thread wakeup: 1' \
	'  large blob: 2' 'first_ts: 100' 'last_ts: 280' 'bytes: 1424'; do
	grep -qx "$line" "$tmp/sum" || fail "--summary lacks '$line'"
done
pass "--summary full.fxt"


# gzip (gzip(1) compresses, independently of libftf): the same dump and
# the same errors at the same offsets; recognised by content, not name
for f in full bad-size-past-end bad-truncated; do
	gzip -c "$fx/$f.fxt" >"$tmp/$f.fxt.gz"
	"$dump" "$fx/$f.fxt" >"$tmp/plain.out" 2>"$tmp/plain.err"
	rc1=$?
	"$dump" "$tmp/$f.fxt.gz" >"$tmp/gz.out" 2>"$tmp/gz.err"
	rc2=$?
	sed -i 's/\.fxt\.gz: /.fxt: /' "$tmp/gz.out"
	if [ $rc1 -eq $rc2 ] && cmp -s "$tmp/plain.out" "$tmp/gz.out" &&
		cmp -s "$tmp/plain.err" "$tmp/gz.err"; then
		pass "$f.fxt.gz reads as $f.fxt (exit $rc2)"
	else
		fail "$f.fxt.gz: exit $rc2 (plain $rc1): $(diff "$tmp/plain.out" "$tmp/gz.out" | head -5) $(cat "$tmp/gz.err")"
	fi
done
cp "$tmp/full.fxt.gz" "$tmp/full-named-plain.fxt"
out=$("$dump" --check "$tmp/full-named-plain.fxt")
[ "$out" = "ok records=47 bytes=1424 events=11 threads=1 skipped=0" ] &&
	pass "gzip named .fxt read by content" || fail "gzip named .fxt: $out"
# without its 8-byte trailer (a killed writer): whole, with a note
gz_size=$(stat -c %s "$tmp/full.fxt.gz")
head -c $((gz_size - 8)) "$tmp/full.fxt.gz" >"$tmp/notrailer.fxt.gz"
out=$("$dump" --check "$tmp/notrailer.fxt.gz" 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && [ "$out" = "ok records=47 bytes=1424 events=11 threads=1 skipped=0" ] &&
	grep -q 'note: .*without its trailer' "$tmp/err" &&
	pass "gzip without trailer: whole, exit 0, $(cat "$tmp/err")" ||
	fail "gzip without trailer: exit $rc: $out $(cat "$tmp/err")"
# cut inside the deflate data: the records up to the cut, a framing error
head -c $((gz_size / 2)) "$tmp/full.fxt.gz" >"$tmp/cut.fxt.gz"
out=$("$dump" --check "$tmp/cut.fxt.gz" 2>"$tmp/err")
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q 'runs past the end\|trailing bytes' &&
	pass "gzip cut mid-record: exit 1: $(echo "$out" | head -1)" ||
	fail "gzip cut mid-record: exit $rc: $out"

# from a pipe (opened once: sniffing the magic must not eat the first
# bytes), plain and gzip: the same check as the file
for f in "$fx/full.fxt" "$tmp/full.fxt.gz"; do
	out=$(cat "$f" | "$dump" --check /dev/stdin 2>"$tmp/err")
	rc=$?
	[ $rc -eq 0 ] && [ "$out" = "ok records=47 bytes=1424 events=11 threads=1 skipped=0" ] &&
		pass "$(basename "$f") through a pipe: $out" ||
		fail "$(basename "$f") through a pipe: exit $rc: $out $(cat "$tmp/err")"
done

"$dump" /nonexistent.fxt 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	pass "missing file: exit 2, one line: $(cat "$tmp/err")" ||
	fail "missing file: exit $rc: $(cat "$tmp/err")"
# a directory is a file error too (it read as a gzip stream, exit 1)
"$dump" "$tmp" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "Is a directory" "$tmp/err" &&
	pass "a directory: exit 2, one line: $(cat "$tmp/err")" ||
	fail "a directory: exit $rc: $(cat "$tmp/err")"
"$dump" >/dev/null 2>&1
[ $? -eq 2 ] && pass "no FILE: exit 2" || fail "no FILE: exit not 2"
"$dump" --bogus x >/dev/null 2>&1
[ $? -eq 2 ] && pass "bad option: exit 2" || fail "bad option: exit not 2"
"$dump" --help | grep -q '^Usage: ftf-dump' && pass "--help" || fail "--help"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
