#!/bin/sh
# SPDX-License-Identifier: MIT
# t306-expr-list-help: expr (program listing, results, printf, -v), list (counts,
# -v fields, -C, json) and `ANALYZER -e EVENT help` on fixed captures
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
build_fixture print-mix
build_fixture kmemleak
S=sched-basic.ppcap

# t306.1 expr
golden expr-basic "$PP_ANALYZE" $S expr -e sched:sched_switch 'prev_state & 2 ? next_pid : -1' || fail "expr"
golden expr-printf "$PP_ANALYZE" $S expr -e irq:irq_handler_entry 'printf("%s/%d\n", name, irq)' ||
	fail "expr printf"
golden expr-string "$PP_ANALYZE" print-mix.ppcap expr -e sched:sched_process_exec 'filename' || fail "expr string"
"$PP_ANALYZE" $S expr -e sched:sched_wakeup -v 'pid + prio' >v.out || fail "expr -v"
grep -q '^program running:' v.out && grep -q '^result: 0x141$' v.out || { cat v.out; fail "expr -v"; }
"$PP_ANALYZE" $S expr -e sched:sched_wakeup 'pid +' 2>err.out && fail "bad expression accepted"
grep -q '\^ unexpected end of expression' err.out || { cat err.out; fail "no caret"; }
"$PP_ANALYZE" $S expr -e sched:sched_wakeup 2>err.out && fail "expr without an expression"
grep -q 'give one expression' err.out || { cat err.out; fail "expr usage"; }
# expr prints text only: --format json/csv is refused, not ignored
for f in json csv; do
	"$PP_ANALYZE" $S expr -e sched:sched_wakeup --format $f 'pid' >out.txt 2>err.out
	[ $? = 2 ] || fail "expr --format $f: not exit status 2"
	grep -q "expr: --format $f is not available" err.out || { cat err.out; fail "expr --format $f"; }
done

# t306.2 list
golden list "$PP_ANALYZE" print-mix.ppcap list || fail "list"
golden list-v "$PP_ANALYZE" $S list -v wakeup || fail "list -v"
golden list-cpu-json "$PP_ANALYZE" $S list -C 1 --format json || fail "list -C json"

# t306.3 help: the stored format and a command template, for any analyzer
golden help-trace "$PP_ANALYZE" $S trace -e sched:sched_wakeup help || fail "trace help"
"$PP_ANALYZE" $S top -e 'sched:sched_switch//key=prev_pid/' help >top-help.out || fail "top help"
tail -1 top-help.out | sed "s|$PWD/||" >actual
echo 'pp-analyze sched-basic.ppcap top -e "sched:sched_switch/./key=prev_pid/[alias=./top-by=./top-add=./comm=./printkey=./]" [--only-comm] [-C .] [-p .] [-t .] [-i .] [--time .] [--format .] [-o .]' >expect
check_output expect actual
"$PP_ANALYZE" $S num-dist -e 'sched:*' help >nd-help.out || fail "num-dist help"
assert_eq "formats in num-dist help" 2 "$(grep -c '^print fmt:' nd-help.out)"
# kmemleak's events come with --alloc and --free, not -e: so does its template
"$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc 'kmem:kmalloc//ptr=ptr/size=bytes_alloc/' \
	--free 'kmem:kfree//ptr=ptr/' help >km-help.out || fail "kmemleak help"
tail -1 km-help.out >actual
echo 'pp-analyze kmemleak.ppcap kmemleak --alloc "kmem:kmalloc/./ptr=ptr/size=bytes_alloc/[stack/]" --free "kmem:kfree/./ptr=ptr/[stack/]" [--comm] [-C .] [-p .] [-t .] [-i .] [--time .] [--format .] [-o .]' >expect
check_output expect actual

# t306.4 `pp-analyze help NAME` for every name 'pp-analyze help' lists, commands included
for name in $("$PP_ANALYZE" help | awk '/^(Commands|Analyzers):/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	"$PP_ANALYZE" help "$name" >h.out 2>h.err || { cat h.err; fail "pp-analyze help $name"; }
	grep -q "^$name - " h.out && grep -q 'usage' h.out || { cat h.out; fail "help $name: no usage"; }
done
"$PP_ANALYZE" help help >h.out || fail "pp-analyze help help"
grep -q 'ANALYZER -e EVENTS .*help' h.out || { cat h.out; fail "help help"; }
# a 'help' with no analyzer before it says where it goes
"$PP_ANALYZE" $S help >h.out 2>h.err && fail "FILE help without an analyzer accepted"
grep -q "'help' goes after an analyzer" h.err || { cat h.err; fail "FILE help message"; }
"$PP_ANALYZE" help nosuch 2>h.err && fail "help of an unknown name accepted"
grep -q "no analyzer or command named 'nosuch'" h.err || { cat h.err; fail "help nosuch"; }
exit 0
