#!/bin/sh
# SPDX-License-Identifier: MIT
# t366-breakpoint-watch: uprobe_target -m write stores to its global pp_watch_var exactly K
# times.  With a write breakpoint on that address, recorded with
# `pp-record --for 'breakpoint ADDR/8:w -g' -p PID`, breakpoint prints K hits, all at the
# same ip, inside main (where the store is), with RIP equal to that ip, and a stack.  On
# x86-64 pp-record saves the instruction bytes at that ip (from /proc/PID/mem; the 2 ms pauses
# keep the process alive until the first hit is written), and breakpoint decodes the store:
# the values written are 1..K in order.
# Machines whose (virtual) CPU does not deliver debug-register traps get no hit at all:
# the test then skips, saying so.
. "$(dirname "$0")/lib.sh"
need_root
K=300

"$PP_LOAD/uprobe_target" -n $K -m write -d 2500 -p 2000 >ready.out 2>load.err &
tpid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q READY ready.out 2>/dev/null && break
	sleep 0.1
done
pid=$(sed -n 's/^READY pid=\([0-9]*\) .*/\1/p' ready.out)
addr=$(sed -n 's/.* pp_watch_var=\(0x[0-9a-f]*\).*/\1/p' ready.out)
[ -n "$pid" ] && [ -n "$addr" ] || { kill $tpid 2>/dev/null; fail "no READY line"; }

"$PP_RECORD" --for "breakpoint $addr/8:w -g" -p "$pid" -o bp.cap >rec.out 2>&1
rc=$?
wait $tpid
[ $rc = 0 ] || { cat rec.out; fail "pp-record exited $rc"; }
grep -q "writes=$K " load.err || { cat load.err; fail "uprobe_target did not write $K times"; }
"$PP_ANALYZE" bp.cap breakpoint >out 2>err || { cat err; fail "breakpoint exited $?"; }
hits=$(grep -c ': breakpoint: ' out)
[ "$hits" = 0 ] && skip "hardware breakpoints do not fire on this machine (a write breakpoint on a variable written $K times got no hit)"
assert_eq "hits" $K "$hits"
ips=$(sed -n 's/.*: breakpoint: [^ ]* ip \([0-9a-f]*\) .*/\1/p' out | sort -u)
assert_eq "distinct ips" 1 "$(echo "$ips" | wc -l)"
sed -n 's/.*: breakpoint: [^ ]* ip [0-9a-f]* \(.*\)$/\1/p' out | sort -u >syms
assert_eq "function of the ip" main "$(cat syms)"
rips=$(sed -n 's/^ *RIP: \([0-9a-f]*\) .*/\1/p' out | sort -u)
[ -z "$rips" ] || assert_eq "RIP register" "$ips" "$rips"
grep -q ' main+0x[0-9a-f]* (.*uprobe_target)$' out || fail "no stack through main"

# the value written, decoded from the store instruction (x86-64 only)
[ "$(uname -m)" = x86_64 ] || exit 0
assert_eq "decoded hits" $K "$(grep -c '^      INSN: .*  ADDR: .*  DATA: ' out)"
sed -n 's/^      INSN: .*  ADDR: \([0-9a-f]*\)  DATA: \([0-9a-f]*\)  (mov.*)$/\1 \2/p' out >data
assert_eq "MOV hits" $K "$(wc -l <data)"
assert_eq "written address" "${addr#0x}" "$(cut -d' ' -f1 data | sort -u)"
i=0
while read -r a v; do
	i=$((i + 1))
	[ "$((0x$v))" = $i ] || fail "hit $i: written value 0x$v, expected $i"
done <data
"$PP_ANALYZE" bp.cap breakpoint --filter 'data == 7' >out 2>err || { cat err; fail "--filter"; }
assert_eq "hits of --filter 'data == 7'" 1 "$(grep -c ': breakpoint: ' out)"
exit 0
