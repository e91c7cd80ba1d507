#!/bin/sh
# SPDX-License-Identifier: MIT
# t132-unwind-tables: with --call-graph dwarf, every binary a sampled process maps that has
# CFI gets UNWIND records right after its DSO record and SYMs (the frames under the IP are
# known only when the stack copy is walked); info and the STATs count them; with -g (frame
# pointers) the capture has none.  Ground truth for the rows: the .eh_frame FDEs readelf
# lists for the load (each FDE gives at least one row, minus merges across neighbours).
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are not supported on $(uname -m)"
. "$(dirname "$0")/lib-record.sh"

"$PP_RECORD" -F 997 -g -o off.cap -- "$PP_LOAD/cpuburn" -d 0.5 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" off.cap dump >off.dump 2>&1 || fail "pp-analyze dump exited $?"
assert_eq "UNWIND records without the switch" 0 "$(grep -c '^UNWIND' off.dump)"

"$PP_RECORD" -F 997 --call-graph dwarf -o on.cap -- "$PP_LOAD/cpuburn" -d 0.5 \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" on.cap dump >on.dump 2>&1 || fail "pp-analyze dump exited $?"
"$PP_ANALYZE" on.cap info >on.info 2>&1 || fail "pp-analyze info exited $?"
grep -q '^integrity *ok' on.info || { cat on.info; fail "integrity"; }
# per DSO path: its UNWIND rows (records may repeat the DSO record: sum per path)
awk '/^DSO / { d = $2 } /^UNWIND / { sub("rows=", "", $3); n[d] += $3 }
     END { for (k in n) print k, n[k] }' on.dump >rows.txt
cat rows.txt
load=$(readlink -f "$PP_LOAD/cpuburn")
grep -q "^$load [0-9]" rows.txt || fail "no unwind rows for $load"
grep -q '/libc\.so\.6 [0-9]' rows.txt || fail "no unwind rows for libc.so.6"
tabs=$(wc -l <rows.txt)
allrows=$(awk '{ n += $2 } END { print n }' rows.txt)
grep -q "^unwind *$tabs tables, $allrows rows" on.info || { cat on.info; fail "info does not count $tabs tables, $allrows rows"; }
assert_eq "STAT unwind_tables" "$tabs" "$("$CAPCHECK" on.cap stat unwind_tables)"
# every DSO with samples but no UNWIND record must be a file without .eh_frame
for d in $(awk '/^DSO / { print $2 }' on.dump | sort -u); do
	grep -q "^$d " rows.txt && continue
	case "$d" in /*) ;; *) continue ;; esac
	[ -r "$d" ] || continue
	readelf -S "$d" 2>/dev/null | grep -q '\.eh_frame ' && fail "$d has .eh_frame but no unwind rows"
done
if command -v readelf >/dev/null 2>&1; then
	fdes=$(readelf --debug-dump=frames "$load" 2>/dev/null | grep -c ' FDE ')
	lrows=$(awk -v l="$load" '$1 == l { print $2 }' rows.txt)
	assert_ge "rows of $load (>= its FDEs / 2)" $((fdes / 2)) "$lrows"
fi
exit 0
