#!/bin/sh
# SPDX-License-Identifier: MIT
# t151-import-perf-syscalls: the syscalls load's exact per-thread counts (K getppid and
# K read(0) per worker) in syscalls --perins of a perf.data of raw_syscalls, read
# directly; the syscall names come from this machine's table (same architecture); the
# JSON says the same; a capture written by import gives the same report byte for byte.
. "$(dirname "$0")/lib.sh"
need_event raw_syscalls:sys_enter
command -v perf >/dev/null || skip "needs perf (linux-perf)"

K=20000
perf record -B -N -q -m 4096 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o sc.data -- \
	"$PP_LOAD/syscalls" -t 2 -n $K -m both >rec.out 2>rec.err || { cat rec.err; fail "perf record"; }
load=$(grep '^LOAD syscalls' rec.err) || { cat rec.err; fail "no LOAD line"; }
tids=$(printf '%s\n' "$load" | tr ' ' '\n' | sed -n 's/^tids=//p')
"$PP_ANALYZE" sc.data info >info.txt 2>/dev/null || fail "info"
grep -q '^lost  *0$' info.txt || skip "perf lost events (busy machine): $(grep '^lost' info.txt)"

"$PP_ANALYZE" sc.data syscalls --perins >sc.txt 2>sc.err || { cat sc.err; fail "syscalls"; }
for tid in $(echo "$tids" | tr ',' ' '); do
	for call in 'getppid(110)' 'read(0)'; do
		n=$(awk -v t="$tid" -v c="$call" '$1 == t && $3 == c { print $4 }' sc.txt)
		assert_eq "$call calls of thread $tid" $K "$n"
	done
done

# the same numbers from a capture written once, byte for byte
"$PP_ANALYZE" sc.data import -o sc.ppcap 2>imp.err || { cat imp.err; fail "import -o"; }
"$PP_ANALYZE" sc.ppcap syscalls --perins >sc2.txt 2>/dev/null || fail "syscalls on the import"
cmp -s sc.txt sc2.txt || { diff sc.txt sc2.txt | head; fail "the import's report differs"; }
"$PP_ANALYZE" -j 2 sc.ppcap syscalls --perins >sc3.txt 2>/dev/null || fail "syscalls -j 2"
cmp -s sc.txt sc3.txt || { diff sc.txt sc3.txt | head; fail "-j 2 on the import differs"; }
exit 0
