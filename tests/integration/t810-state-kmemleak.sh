#!/bin/sh
# SPDX-License-Identifier: MIT
# t810-state-kmemleak: kmemleak's mergeable state (issue 19, 2026-12-05) on the load of t360:
# mallocloop -m leak mallocs K blocks of SIZE bytes from leak_here() that it never frees among
# N blocks that alloc_path() mallocs and free_path() frees, recorded through uprobes on libc's
# malloc (the size at the entry, the pointer at the return) and free.  Cut inside a malloc
# (its size pending across the cut), between a malloc and its free, and at 1/3, 1/2, 2/3 of
# the capture: the report of the merge of --time ,T and --time T+1ns, is the one-pass report
# byte for byte (text, JSON), A+B = B+A, and it reports leak_here's K objects of K*SIZE bytes
# and nothing of alloc_path; the halves merged with a 1 ns gap (not joined) are not the
# replay at the first two cuts; other options refuse to merge; --flame-graph refuses
# --state-out; hostile section bytes are refused or read.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"
need_mallocloop_libc

N=3000 K=13 SIZE=1000
"$PP_RECORD" -m 1024 -e "uprobe:$LIBC:malloc//size=arg1/stack/,uretprobe:$LIBC:malloc//stack/" \
	-e "uprobe:$LIBC:free" -g -o leak.cap -- \
	"$PP_LOAD/mallocloop" -m leak -n $N -k $K -s $SIZE >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record exited $?"; }
grep -q "^LOAD mallocloop .*leaks=$K " rec.err rec.out || { cat rec.err; fail "no LOAD line"; }
grep -q ' lost: 0;' rec.err || skip "the recording lost events (busy machine): $(grep lost: rec.err)"
KL="kmemleak --alloc uprobe:libc.so.6:malloc//size=arg1/,uretprobe:libc.so.6:malloc//ptr=ret/
--free uprobe:libc.so.6:free//ptr=arg1/ --comm"

# the cuts: 1 us after the entry of a malloc whose return is 3 us later or more (its size
# is pending at the cut), 1 us after a return whose free is 3 us later or more, and thirds
"$PP_ANALYZE" leak.cap trace >trace.out 2>/dev/null || fail "trace"
CUT_SIZE=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(":", "", t) } }
	/uprobes:malloc: / { e = t; next }
	/uprobes:malloc__return: / && e != "" && (t - e) * 1e6 >= 3 { printf "%.0f\n", e * 1e9 + 1500; exit }
	{ e = "" }' trace.out)
CUT_FREE=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(":", "", t) } }
	/uprobes:malloc__return: / { r = t; next }
	/uprobes:free: / && r != "" && (t - r) * 1e6 >= 3 { printf "%.0f\n", r * 1e9 + 1500; exit }
	{ r = "" }' trace.out)
[ -n "$CUT_SIZE" ] && [ -n "$CUT_FREE" ] || skip "no malloc in the trace 3 us from its return or free"

leaks_ok() {	# FILE: the report holds leak_here's K objects, nothing of alloc_path
	grep -A3 '^Leak of' "$1" | grep -B3 ' leak_here+' | grep -q "^Leak of $((K * SIZE)) bytes in $K objects" ||
		{ cat "$1"; fail "$2: leak_here's leak is not $K objects of $((K * SIZE)) bytes"; }
	grep -q "alloc_path\|free_path" "$1" && { cat "$1"; fail "$2: a freed path leaks"; }
	return 0
}

# t810.1 the merge of the halves is the replay; at the first two cuts the join is needed
CUTS="$CUT_SIZE $CUT_FREE" check kl-edges leak.cap $KL
CUTS="$CUT_SIZE $CUT_FREE" check kl-edges-json leak.cap $KL --format json
check kl leak.cap $KL
check kl-json leak.cap $KL --format json
run_ok one.out "$PP_ANALYZE" leak.cap $KL
leaks_ok one.out "the replay"
for t in $CUT_SIZE $CUT_FREE; do
	run_ok /dev/null "$PP_ANALYZE" leak.cap $KL --time ",${t}ns" --state-out a.state
	run_ok /dev/null "$PP_ANALYZE" leak.cap $KL --time "$((t + 1))ns," --state-out b.state
	run_ok /dev/null "$PP_ANALYZE" leak.cap $KL --time "$((t + 2))ns," --state-out g.state
	run_ok merged.out "$PP_ANALYZE" report b.state a.state
	leaks_ok merged.out "the merge at $t"
	run_ok gap.out "$PP_ANALYZE" report a.state g.state
	cmp -s gap.out one.out && fail "at $t: the halves not joined are the replay (the join is untested)"
done
echo "t810: $checks cuts merged back into their replay"

# t810.2 other options do not merge; --flame-graph has no state
run_ok /dev/null "$PP_ANALYZE" leak.cap $KL --than 1ms --time "$((CUT_FREE + 1))ns," --state-out t.state
refused "another --than" "cannot merge 'a.state' and 't.state': different options" \
	"$PP_ANALYZE" merge a.state t.state -o x.state
refused "--flame-graph" "kmemleak: --flame-graph with --state-out" \
	"$PP_ANALYZE" leak.cap $KL --flame-graph x.svg --state-out x.state
[ -e x.state ] && fail "a refused --state-out or merge wrote a state"

# t810.3 hostile bytes in the section (stacks, live allocations, pointers, threads)
state_hostile a.state
exit 0
