#!/bin/sh
# SPDX-License-Identifier: MIT
# t130-unwind-vdso: the vDSO is a binary too.  A program calling clock_gettime() in a loop
# (tests/load/vdsoloop) spends its time in [vdso]; pp-record writes the vDSO's symbols (from
# its own process: one image per boot) and, when unwind tables are asked for, its unwind
# table, as a DSO named [vdso].  profile's top frames are then the vDSO's (its clock_gettime,
# or [vdso]+OFFSET for a function it does not export), never [unknown]; the stacks go through
# its clock_gettime, and trace -g says [vdso].
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are not supported on $(uname -m)"

"$PP_RECORD" -F 997 --call-graph dwarf -o v.cap -- "$PP_LOAD/vdsoloop" -d 1 \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" v.cap profile >prof.txt 2>&1 || { cat prof.txt; fail "pp-analyze profile exited $?"; }
# The vDSO's own frames: its clock_gettime, or a function of its own it calls, which its
# symbol table (the exported functions only) does not name - the pvclock reader of a
# paravirtualized guest -: [vdso]+OFFSET then, never [unknown].
vdso_self=$(awk '/^------/ { on = 1; next } on && NF >= 4 &&
	($4 == "clock_gettime" || $4 == "__vdso_clock_gettime" || $4 ~ /^\[vdso\]\+0x/) {
		sub("%", "", $2); n += $2 } END { print int(n) }' prof.txt)
assert_ge "self share of the vDSO's frames (%)" 50 "$vdso_self"
if awk '/^------/ { on = 1; next } on && $4 == "[unknown]" { f = 1 } END { exit !f }' prof.txt; then
	cat prof.txt
	fail "a frame is [unknown], not named by its binary"
fi
# whatever the top frame, the stacks go through the vDSO's clock_gettime
"$PP_ANALYZE" v.cap profile -g >profg.txt 2>&1 ||
	{ cat profg.txt; fail "pp-analyze profile -g exited $?"; }
children=$(awk '/^------/ { on = 1; next } on && ($4 == "clock_gettime" || $4 == "__vdso_clock_gettime") {
	sub("%", "", $1); if ($1 + 0 > n) n = $1 + 0 } END { print int(n) }' profg.txt)
assert_ge "children share of the vDSO's clock_gettime (%)" 50 "$children"
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
