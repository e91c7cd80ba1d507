#!/bin/sh
# SPDX-License-Identifier: MIT
# t157-profile-truncated: DWARF stacks that cannot be continued are counted and shown alike in
# every output of profile.  unwind-c (no frame pointers, main -> level1 -> level2 -> level3 ->
# leaf_sort -> qsort -> cmp_int) is recorded with 512-byte stack copies, too small for most
# of its stacks, then: the unwinder's own count (info: "N of M unwound stacks truncated") is
# the count of profile's summary line ("N of M stacks truncated"), of its [truncated] row
# (its children share, kept in the table with --top 3, by symbol and by binary) and of the
# folded stacks under [truncated]; -j 2 and a merged state print the same; a capture whose
# copies are whole (8 KiB) says nothing of truncation.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-analyze.sh"
. "$(dirname "$0")/lib-state.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "--call-graph dwarf is x86-64 only, not $(uname -m)"

"$PP_RECORD" -F 997 --call-graph dwarf,512 -o t.cap -- "$PP_LOAD/unwind-c" -d 1 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
run_ok info.out "$PP_ANALYZE" t.cap info
# "user stacks  N copies, ...; T of U unwound stacks truncated"
set -- $(sed -n 's/.*; \([0-9]*\) of \([0-9]*\) unwound stacks truncated.*/\1 \2/p' info.out)
[ $# = 2 ] || { cat info.out; fail "info: no count of truncated stacks"; }
cut=$1 unwound=$2
assert_ge "truncated stacks" $((unwound / 2)) "$cut"	# 512 bytes hold no whole stack of unwind-c

run_ok one.out "$PP_ANALYZE" t.cap profile -g --top 3
samples=$(sed -n '1s/^profile: \([0-9]*\) samples.*/\1/p' one.out)
assert_eq "profile samples" "$unwound" "$samples"
grep -q "^profile: $samples samples of cpu-clock, with call stacks; $cut of $samples stacks truncated\$" one.out ||
	{ head -3 one.out; fail "profile's summary line does not say $cut of $samples stacks truncated"; }
# the [truncated] row: children = the truncated share, shown though it sorts last (self 0)
want=$(awk -v c="$cut" -v n="$samples" 'BEGIN { printf "%.2f%%", 100 * c / n }')
for sort in sym dso dso,sym children; do
	run_ok s.out "$PP_ANALYZE" t.cap profile -g --top 3 --sort "$sort"
	row=$(awk '$NF == "[truncated]" { print $1 }' s.out)
	[ "$row" = "$want" ] || { cat s.out; fail "--sort $sort: [truncated] row '$row', expected $want"; }
	grep -q "; $cut of $samples stacks truncated" s.out || fail "--sort $sort: no summary count"
done
# folded stacks: COMM;[truncated];... for exactly the truncated samples
run_ok /dev/null "$PP_ANALYZE" t.cap profile -g --flame-graph t.folded
folded=$(awk '{ n = $NF; sub(/ [0-9]+$/, ""); split($0, f, ";"); if (f[2] == "[truncated]") c += n }
	END { print c + 0 }' t.folded)
assert_eq "folded samples under [truncated]" "$cut" "$folded"
# -j 2 and a state merged from two halves: the same lines
PP_PARTS_PER_JOB=3 run_ok j.out "$PP_ANALYZE" -j 2 t.cap profile -g --top 3
diff -u one.out j.out >diff.out || { head -20 diff.out; fail "-j 2: not the one pass"; }
check_at "profile -g state, truncated stacks" t.cap "$(mid t.cap)" text profile -g --top 3
grep -q "; $cut of $samples stacks truncated" merged.out || fail "the merged state lost the count"

# whole copies: no stack of unwind-c is cut, and nothing is said of truncation
"$PP_RECORD" -F 997 --call-graph dwarf -o w.cap -- "$PP_LOAD/unwind-c" -d 1 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
run_ok w.out "$PP_ANALYZE" w.cap profile -g
run_ok info.out "$PP_ANALYZE" w.cap info
wcut=$(sed -n 's/.*; \([0-9]*\) of [0-9]* unwound stacks truncated.*/\1/p' info.out)
if [ "${wcut:-0}" = 0 ]; then
	grep -q 'truncated' w.out && { head -3 w.out; fail "8 KiB copies: profile speaks of truncation"; }
else	# a start-up stack deeper than 8 KiB: then the same count
	grep -q "; $wcut of [0-9]* stacks truncated" w.out || fail "8 KiB copies: not $wcut truncated"
fi
exit 0
