#!/bin/sh
# SPDX-License-Identifier: MIT
# t134-unwind-copies: a binary's unwind table travels with its symbols.  slice keeps the
# UNWIND records of the binaries of the processes it keeps (and drops the others'), scrub
# copies them as they are: the same tables and rows per binary as the original, whose
# process is kept.  Then every DSO of the slice with rows is one of the kept process's.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are not supported on $(uname -m)"

"$PP_RECORD" -a -F 997 --call-graph dwarf -o all.cap -- "$PP_LOAD/vdsoloop" -d 1 \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
pid=$(sed -n 's/^LOAD vdsoloop .* pid=\([0-9]*\).*/\1/p' rec.out)
[ -n "$pid" ] || { cat rec.out; fail "no pid in vdsoloop's LOAD line"; }
# per binary: its rows (the first table of a path: a DSO written twice keeps its first)
rows() {
	"$PP_ANALYZE" "$1" dump 2>/dev/null | awk '/^DSO / { d = $2 }
		/^UNWIND / { sub("rows=", "", $3); n[d] += $3 } END { for (k in n) print k, n[k] }' | sort
}
rows all.cap >all.rows
"$PP_ANALYZE" all.cap slice --pid "$pid" -o slice.cap >slice.out 2>&1 || { cat slice.out; fail "slice exited $?"; }
"$PP_ANALYZE" all.cap scrub --keep paths -o scrub.cap >scrub.out 2>&1 || { cat scrub.out; fail "scrub exited $?"; }
rows slice.cap >slice.rows
rows scrub.cap >scrub.rows
cat all.rows
cmp all.rows scrub.rows || { diff all.rows scrub.rows; fail "scrub changed the unwind tables"; }
grep -q '^\[vdso\] ' slice.rows || fail "the slice lost the [vdso] table"
grep -q 'vdsoloop ' slice.rows || fail "the slice lost vdsoloop's table"
# what the slice keeps, it keeps whole
while read -r d n; do
	grep -qxF "$d $n" all.rows || fail "the slice has $n rows for $d, not the original's"
done <slice.rows
"$PP_ANALYZE" slice.cap info >slice.info 2>&1 || fail "info on the slice"
grep -q '^integrity *ok' slice.info || { cat slice.info; fail "slice integrity"; }
exit 0
