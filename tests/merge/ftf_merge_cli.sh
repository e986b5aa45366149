#!/bin/sh
# ftf-merge's command line on the fixtures (traces of an independent
# writer, with the spec's 2-word initialization records): a second such
# input needs --offset, with it every event of both is in the output; a
# missing file, a file that is not FTF, a truncated trace, a bad option:
# one line, non-zero exit, no output file.
# Usage: ftf_merge_cli.sh FTF_MERGE FTF_DUMP FIXTURES_DIR
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

# exit status, one line on stderr, no output file
refused() {
	what=$1 want=$2
	shift 2
	"$merge" "$@" -o "$tmp/out.fxt" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq $want ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		[ ! -e "$tmp/out.fxt" ]; then
		pass "$what: exit $rc: $(cat "$tmp/err")"
	else
		fail "$what: exit $rc (want $want), output $(ls "$tmp/out.fxt" 2>&1): $(cat "$tmp/err")"
	fi
}

refused "2-word init without --offset" 1 "$fx/full.fxt" "$fx/minimal.fxt"
grep -q -- '--offset' "$tmp/err" || fail "the line does not name --offset"
refused "missing file" 1 "$fx/full.fxt" "$tmp/nonexistent.fxt"
printf 'not a trace at all\n' >"$tmp/text.fxt"
refused "not FTF" 1 "$tmp/text.fxt" "$fx/full.fxt"
refused "truncated input" 1 "$fx/full.fxt" --offset 1s "$fx/bad-truncated.fxt"
refused "bad --offset" 2 --offset 5min "$fx/full.fxt"
refused "no input" 2

"$merge" "$fx/full.fxt" --offset 1ms "$fx/minimal.fxt" -o "$tmp/both.fxt.gz" 2>"$tmp/err"
rc=$?
want=$(($(events "$fx/full.fxt") + $(events "$fx/minimal.fxt")))
got=$(events "$tmp/both.fxt.gz")
out=$("$dump" --check "$tmp/both.fxt.gz")
if [ $rc -eq 0 ] && [ "$got" = "$want" ] && echo "$out" | grep -q '^ok '; then
	pass "--offset 1ms: exit 0, $got events (the inputs' $want), $out"
else
	fail "--offset: exit $rc, $got events of $want, $out, $(cat "$tmp/err")"
fi
grep -q 'placed by --offset 0.001000 s' "$tmp/err" ||
	fail "ftf-merge does not say how it placed minimal.fxt: $(cat "$tmp/err")"
grep -q 'warning' "$tmp/err" && fail "--offset 1ms: a warning: $(cat "$tmp/err")"

# --offset far back: every timestamp of minimal.fxt falls before 0, is
# pinned there and counted: one per event record, two for a duration
# complete (begin and end), one per context switch and wakeup
count() { "$dump" --summary "$1" | sed -n "s/^ *$2: //p" | head -1; }
want=$(($(count "$fx/minimal.fxt" event) + $(count "$fx/minimal.fxt" 'duration complete') +
	$(count "$fx/minimal.fxt" 'context switch') + $(count "$fx/minimal.fxt" 'thread wakeup')))
"$merge" "$fx/full.fxt" --offset -1000s "$fx/minimal.fxt" -o "$tmp/neg.fxt" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "warning: $want timestamps fell outside" "$tmp/err"; then
	pass "--offset -1000s: exit 0, warns of the $want timestamps pinned to 0"
else
	fail "--offset -1000s: exit $rc, want a warning of $want timestamps: $(cat "$tmp/err")"
fi
"$merge" --help | grep -q '^Usage: ftf-merge' && pass "--help" || fail "--help"
"$merge" "$fx/full.fxt" >/dev/null 2>&1
[ $? -eq 2 ] && pass "no -o: exit 2" || fail "no -o: exit not 2"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
