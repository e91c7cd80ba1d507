#!/bin/sh
# SPDX-License-Identifier: MIT
# t135-record-dwarf-stacks: --call-graph dwarf on a program built without frame pointers
# (tests/load/fpless: main -> fpl_level1 -> fpl_level2 -> fpl_level3 -> qsort -> fpl_cmp),
# the binary deleted before the analysis: >= 99% of the samples reach main in profile -g's
# folded stacks, fpl_level1 is on as many, qsort's callback is under fpl_level3, and info
# counts the copies and the stacks cut short.  Ground truth the other way: frame pointers
# (-g) on the same program reach main in few samples.  Capture bytes per sample: at most a
# quarter of the 8 KiB copies perf.data stores for each.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "--call-graph dwarf is x86-64 only, not $(uname -m)"

cp "$PP_LOAD/fpless" ./fpless-bin || fail "cannot copy the load"
"$PP_RECORD" -F 997 --call-graph dwarf -o d.cap -- ./fpless-bin -d 1.5 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
rm -f ./fpless-bin
"$PP_ANALYZE" d.cap info >info.out 2>&1 || { cat info.out; fail "pp-analyze info exited $?"; }
grep -q '^integrity *ok' info.out || { cat info.out; fail "integrity"; }
grep -q '^user stacks' info.out || { cat info.out; fail "info says nothing of the stack copies"; }
"$PP_ANALYZE" d.cap profile -g --flame-graph d.folded >prof.out 2>&1 ||
	{ cat prof.out; fail "pp-analyze profile exited $?"; }
# samples of the load (its comm), those reaching main, those with the callback under level3
# a sanitizer build's own start and exit (its runtime set up under _dl_init, LeakSanitizer's
# check at exit) are not the program's: a fixed CPU cost, a few percent of the samples when
# the load gets little of a busy machine's CPUs
awk '$0 ~ /^fpless-bin;/ && $0 !~ /__asan::|__lsan::|__sanitizer::/ { n = $NF; t += n
	if ($0 ~ /;main;fpl_level1;fpl_level2;fpl_level3/) m += n
	if ($0 ~ /fpl_level3;.*fpl_cmp/) c += n }
     END { printf "%d %d %d\n", t, m, c }' d.folded >counts
read total main cmp <counts
echo "samples $total, reaching main $main, in fpl_cmp under fpl_level3 $cmp"
assert_ge "samples of the load" 100 "$total"
assert_ge "samples reaching main (99% of $total)" $(((total * 99 + 99) / 100)) "$main"
assert_ge "samples in qsort's callback" $((total / 10)) "$cmp"
cut=$(sed -n 's/.*; \([0-9]*\) of \([0-9]*\) unwound stacks truncated/\1/p' info.out)
assert_ge "truncated stacks at most 1% ($cut)" "$cut" $((total / 100))

# the same program with frame pointers: its callers are lost (the test can fail)
cp "$PP_LOAD/fpless" ./fpless-bin
"$PP_RECORD" -F 997 -g -o fp.cap -- ./fpless-bin -d 0.5 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record -g exited $?"; }
"$PP_ANALYZE" fp.cap profile -g --flame-graph fp.folded >/dev/null 2>&1 || fail "profile of fp.cap"
awk '$0 ~ /^fpless-bin;/ { n = $NF; t += n; if ($0 ~ /;main;fpl_level1;fpl_level2;fpl_level3/) m += n }
     END { printf "%d %d\n", t, m }' fp.folded >fpcounts
read fptotal fpmain <fpcounts
echo "frame pointers: samples $fptotal, reaching main $fpmain"
[ "$fpmain" -lt $((fptotal / 2)) ] || fail "frame pointers reach main in $fpmain of $fptotal: the load has them"

# bytes per sample in the EVENTS segments against perf.data's 8 KiB copy a sample
ev=$("$PP_ANALYZE" d.cap dump 2>/dev/null |
	awk '/^# segment .* events / { for (i = 1; i <= NF; i++) if ($i ~ /^comp=/) { sub("comp=", "", $i); b += $i } }
	     END { print b + 0 }')
nsamp=$(sed -n 's/^events *\([0-9]*\)$/\1/p' info.out)
echo "events segments: $ev bytes for $nsamp samples"
assert_ge "samples in the capture" 100 "$nsamp"
[ $((ev / nsamp)) -le 2048 ] || fail "$((ev / nsamp)) bytes a sample: over a quarter of 8 KiB"
exit 0
