#!/bin/sh
# SPDX-License-Identifier: MIT
# tracefs_counts.sh RESOLVE_TOOL WORKLOAD WORKLOAD_LIB
#
# Checks, with the kernel's own uprobes (tracefs uprobe_events, no BPF, no
# ftf-bpf), that the offsets probespec resolves are the functions' entries
# and that the workload does what workload.c documents: per worker thread
# work_a 1000, work_b 500, fib 177 entries and 177 returns nested 10 deep,
# args6 once with (11,22,33,44,55,66) returning 1001 (0x3e9), wl_lib_add
# 100 (in the shared library). Root only (exit 77 = skipped otherwise).
set -u
RES=$1 WL=$2 LIB=$3
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
T=/sys/kernel/tracing
MOUNTED=
if [ ! -w $T/uprobe_events ]; then
	# tracefs is not mounted on a fresh machine: mount it for this test
	# and unmount it after, leaving the machine as it was
	mount -t tracefs nodev $T || { echo "cannot mount tracefs on $T"; exit 1; }
	MOUNTED=1
fi
[ -w $T/uprobe_events ] || { echo "no $T/uprobe_events: kernel without uprobe events?"; exit 1; }
G=ftfbsym$$
I=$T/instances/$G
OUT=$(mktemp)

cleanup() {
	echo 0 > $I/events/$G/enable 2>/dev/null
	for e in wa wb fib fibr a6 a6r lib; do
		echo "-:$G/$e" >> $T/uprobe_events 2>/dev/null
	done
	rmdir $I 2>/dev/null
	rm -f "$OUT"
	[ -z "$MOUNTED" ] || umount $T
}
trap cleanup EXIT

off() {
	o=$("$RES" "$1" | cut -f3) || exit 1
	[ -n "$o" ] || { echo "cannot resolve $1"; exit 1; }
	echo "$o"
}
WA=$(off "$WL:work_a") && WB=$(off "$WL:work_b") && FIB=$(off "$WL:fib") &&
A6=$(off "$WL:args6") && LA=$(off "$LIB:wl_lib_add") || exit 1
echo "offsets: work_a $WA work_b $WB fib $FIB args6 $A6 wl_lib_add $LA"

add() { echo "$1" >> $T/uprobe_events || { echo "uprobe_events rejected: $1"; exit 1; }; }
add "p:$G/wa $WL:$WA"
add "p:$G/wb $WL:$WB"
add "p:$G/fib $WL:$FIB"
add "r:$G/fibr $WL:$FIB"
add "p:$G/a6 $WL:$A6 a0=%di a1=%si a2=%dx a3=%cx a4=%r8 a5=%r9"
add "r:$G/a6r $WL:$A6 ret=\$retval"
add "p:$G/lib $LIB:$LA"
mkdir $I || exit 1
echo 4096 > $I/buffer_size_kb
echo 1 > $I/events/$G/enable
"$WL" > /dev/null || { echo "workload failed"; exit 1; }
echo 0 > $I/events/$G/enable
cat $I/trace > "$OUT"

# per thread: counts of each event, max fib depth, args6 args and ret
awk -v want_threads=3 '
/^#/ { next }
{
	task = $1; sub(/-[0-9]+$/, "", task)
	ev = ""
	for (i = 2; i <= NF; i++) if ($i ~ /^[a-z0-9]+:$/ && $(i-1) ~ /:$/) { ev = $i; sub(/:$/, "", ev); break }
	if (ev == "") next
	n[task, ev]++
	tasks[task] = 1
	if (ev == "fib") { d[task]++; if (d[task] > maxd[task]) maxd[task] = d[task] }
	if (ev == "fibr") d[task]--
	if (ev == "a6") args[task] = $(NF-5) " " $(NF-4) " " $(NF-3) " " $(NF-2) " " $(NF-1) " " $NF
	if (ev == "a6r") ret[task] = $NF
}
END {
	bad = 0; nt = 0
	for (t in tasks) {
		nt++
		line = sprintf("%s: work_a %d work_b %d fib %d/%d depth %d args6 %d [%s] ret [%s] wl_lib_add %d",
			t, n[t,"wa"], n[t,"wb"], n[t,"fib"], n[t,"fibr"], maxd[t], n[t,"a6"], args[t], ret[t], n[t,"lib"])
		print line
		if (t !~ /^wl-worker-[012]$/ || n[t,"wa"] != 1000 || n[t,"wb"] != 500 ||
		    n[t,"fib"] != 177 || n[t,"fibr"] != 177 || maxd[t] != 10 ||
		    n[t,"a6"] != 1 || args[t] != "a0=0xb a1=0x16 a2=0x21 a3=0x2c a4=0x37 a5=0x42" ||
		    ret[t] != "ret=0x3e9" || n[t,"lib"] != 100) { print "  ^ WRONG"; bad = 1 }
	}
	if (nt != want_threads) { print "threads seen: " nt ", want " want_threads; bad = 1 }
	exit bad
}' "$OUT"
