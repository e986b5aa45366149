#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite, as CI does:
#   1. scripts/setup.sh (Debian packages, idempotent)
#   2. build/ (gcc, -Werror): unit tests, the real BPF integration tests and
#      the fault suite (these need root: run with sudo)
#   3. build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer): the same
#   4. build-fuzz/ (clang, libFuzzer): short fixed fuzz runs of the trace
#      reader, the stream reader, ftf-merge's core and the ELF readers
#      (suite 'fuzz')
# and ends with one line "N passed, N failed, N skipped" summed over all.
set -uo pipefail
why="the BPF tests need root"
. "$(dirname "$0")/need-root.sh"
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "test.sh: setup failed" >&2; exit 1; }

pass=0 fail=0 skip=0 rc=0

# Perfetto's trace_processor_shell (never part of the project): where the
# workplace's outside validators sit beside the clone, the integration
# tests also check what Perfetto reads of their traces; without it they
# say "SKIPPED" for those checks and keep their own.
if [ -z "${TRACE_PROCESSOR:-}" ]; then
	for tp in ../shared/validators/bin/trace_processor_shell \
		/work/shared/validators/bin/trace_processor_shell; do
		if [ -x "$tp" ] && "$tp" --version >/dev/null 2>&1; then
			TRACE_PROCESSOR=$(realpath "$tp")
			export TRACE_PROCESSOR
			echo "test.sh: Perfetto's checks with $TRACE_PROCESSOR"
			break
		fi
	done
fi

run_suite() { # dir, setup args...
	local dir=$1
	shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >/dev/null || { echo "meson setup $dir failed"; rc=1; fail=$((fail + 1)); return; }
	fi
	if ! ninja -C "$dir"; then
		echo "build in $dir failed"
		rc=1
		fail=$((fail + 1))
		return
	fi
	local log
	log=$(mktemp)
	meson test -C "$dir" ${TEST_ARGS:-} --print-errorlogs --num-processes 1 --timeout-multiplier 3 2>&1 | tee "$log"
	[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
	local ok fl sk ef up to
	ok=$(awk '/^Ok:/{print $2}' "$log" | tail -n1)
	ef=$(awk '/^Expected Fail:/{print $3}' "$log" | tail -n1)
	fl=$(awk '/^Fail:/{print $2}' "$log" | tail -n1)
	up=$(awk '/^Unexpected Pass:/{print $3}' "$log" | tail -n1)
	sk=$(awk '/^Skipped:/{print $2}' "$log" | tail -n1)
	to=$(awk '/^Timeout:/{print $2}' "$log" | tail -n1)
	pass=$((pass + ${ok:-0} + ${ef:-0}))
	fail=$((fail + ${fl:-0} + ${up:-0} + ${to:-0}))
	skip=$((skip + ${sk:-0}))
	rm -f "$log"
}

run_suite build
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false
CC=clang TEST_ARGS="--suite fuzz" run_suite build-fuzz -Dfuzz=true
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] || rc=1
exit $rc
