#!/bin/sh
# SPDX-License-Identifier: MIT
# t376-breakpoint-kernel: a write breakpoint on the kernel's jiffies_64, recorded for 2 s
# system-wide.  pp-record saves the instruction bytes at the hits' IPs from /proc/kcore, and
# breakpoint decodes what was written: jiffies only grow, so the decoded values do too.
# Skips without /proc/kcore (CONFIG_PROC_KCORE), without a jiffies_64 data symbol in
# /proc/kallsyms (CONFIG_KALLSYMS_ALL), on a machine that is not x86-64, and when the
# (virtual) CPU delivers no debug-register trap.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "the decoder knows x86-64 only"
[ -r /proc/kcore ] || skip "no /proc/kcore: kernel instruction bytes cannot be saved"
addr=$(awk '$3 == "jiffies_64" { print "0x" $1; exit }' /proc/kallsyms)
[ -n "$addr" ] && [ "$addr" != 0x0000000000000000 ] ||
	skip "no jiffies_64 in /proc/kallsyms (a kernel without CONFIG_KALLSYMS_ALL)"

"$PP_RECORD" -v --for "breakpoint $addr/8:w" -a --duration 2 -o bp.cap >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" bp.cap breakpoint >out 2>err || { cat err; fail "breakpoint exited $?"; }
hits=$(grep -c ': breakpoint: ' out)
[ "$hits" = 0 ] && skip "hardware breakpoints do not fire on this machine (no write to jiffies_64 in 2 s)"
grep -q 'instructions saved at [1-9][0-9]* breakpoint IPs' rec.out ||
	{ cat rec.out; fail "no instruction bytes saved"; }
decoded=$(grep -c '^      INSN: ' out)
assert_eq "decoded hits" "$hits" "$decoded"
# the known values, in time order, grow (a read-modify-write before any known value is '?')
sed -n 's/^      INSN: .*  DATA: \([0-9a-f][0-9a-f]*\)  .*/\1/p' out >data
assert_ge "hits with a known value" 1 "$(wc -l <data)"
prev=0
while read -r v; do
	[ "$((0x$v))" -gt "$prev" ] || fail "jiffies_64 went from $prev to $((0x$v))"
	prev=$((0x$v))
done <data
exit 0
