#!/bin/sh
# SPDX-License-Identifier: MIT
# t130-unwind-vdso: the vDSO is a binary too.  A program calling clock_gettime() in a loop
# (tests/load/vdsoloop) spends its time in [vdso]; pp-record writes the vDSO's symbols (from
# its own process: one image per boot) and, when unwind tables are asked for, its unwind
# table, as a DSO named [vdso].  profile's top frame is then the vDSO's clock_gettime, not
# [unknown], and trace -g says [vdso].
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are not supported on $(uname -m)"

"$PP_RECORD" -F 997 --call-graph dwarf -o v.cap -- "$PP_LOAD/vdsoloop" -d 1 \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" v.cap profile >prof.txt 2>&1 || { cat prof.txt; fail "pp-analyze profile exited $?"; }
top=$(awk '/^------/ { getline; print $4; exit }' prof.txt)
case "$top" in
clock_gettime | __vdso_clock_gettime) ;;
*) cat prof.txt; fail "the top frame is '$top', not the vDSO's clock_gettime" ;;
esac
share=$(awk '/^------/ { getline; sub("%", "", $2); print int($2); exit }' prof.txt)
assert_ge "self share of the vDSO's clock_gettime (%)" 50 "$share"
"$PP_ANALYZE" v.cap trace -g >trace.txt 2>&1 || fail "pp-analyze trace -g exited $?"
grep -q 'clock_gettime+0x[0-9a-f]* (\[vdso\])' trace.txt ||
	{ head -20 trace.txt; fail "trace -g does not name clock_gettime in [vdso]"; }
# the [vdso] DSO record, its symbols, then its unwind rows
"$PP_ANALYZE" v.cap dump >dump.txt 2>&1 || fail "pp-analyze dump exited $?"
awk '/^DSO / { in_v = ($2 == "[vdso]") } in_v && /^SYM .* __vdso_clock_gettime$/ { s = 1 }
     END { exit !s }' dump.txt ||
	{ grep -A3 'DSO \[vdso\]' dump.txt; fail "no [vdso] DSO with __vdso_clock_gettime"; }
rows=$(awk '/^DSO / { in_v = ($2 == "[vdso]") } in_v && /^UNWIND / { sub("rows=", "", $3); n += $3 }
	END { print n + 0 }' dump.txt)
assert_ge "unwind rows of [vdso]" 5 "$rows"
exit 0
