#!/bin/sh
# SPDX-License-Identifier: MIT
# t158-kmem-dwarf: kmemleak and kmemprof on --call-graph dwarf stacks of a program built
# without frame pointers (tests/load/mallocloop as build/load/mallocloop-fpless, -O2
# -fomit-frame-pointer).  mallocloop -m leak mallocs N blocks from alloc_path() and frees
# them, and mallocs K blocks of SIZE bytes from leak_here() that it never frees.  Uprobes on
# libc's malloc (its return: the pointer) and free, stacks unwound from the copies:
#   kmemleak  one leaking stack, leak_here -> main, K objects and K*SIZE bytes; nothing of
#             alloc_path; the JSON stack is ...;main;leak_here
#   kmemprof  allocations keyed by pointer: K never freed from leak_here -> main, N allocated
#             and freed from alloc_path -> main
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "--call-graph dwarf is x86-64 only, not $(uname -m)"
need_mallocloop_libc
PROG=$PP_LOAD/mallocloop-fpless
[ -x "$PROG" ] || skip "no $PROG: run make"

N=3000
K=13
SIZE=1000
ALLOC="uprobe:$LIBC:malloc//size=arg1/,uretprobe:$LIBC:malloc//ptr=ret/"
FREE="uprobe:$LIBC:free//ptr=arg1/"

# stack_after REPORT HEADER: the frame names (symbol without +offset) of the stack printed
# under the first line of REPORT that starts with HEADER, innermost first, one a line
stack_after() {
	awk -v h="$2" 'index($0, h) == 1 { on = 1; next }
		on && /^    [0-9a-f]+ / { s = $2; sub(/\+0x.*/, "", s); print s; next }
		on { exit }' "$1"
}

# 32 MB of ring a CPU (-m 8192, four times --call-graph dwarf's own): the load mallocs as
# fast as it can, each event with an 8 KB stack copy, and a busy machine (a build on the
# other CPU) keeps the reader from the rings; a loss splits kmemleak's report in two
"$PP_RECORD" -m 8192 --for "kmemleak --alloc '$ALLOC' --free '$FREE' --call-graph dwarf" \
	-o leak.cap -- "$PROG" -m leak -n $N -k $K -s $SIZE >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
grep -q "^LOAD mallocloop .*leaks=$K " rec.out || { cat rec.out; fail "no LOAD line"; }
grep -q ' lost: 0;' rec.out || skip "the recording lost events (busy machine): $(grep lost: rec.out)"
"$PP_ANALYZE" leak.cap info >info.out 2>&1 || { cat info.out; fail "info"; }
grep -q '^user stacks ' info.out || { cat info.out; fail "the capture holds no stack copies"; }
"$PP_ANALYZE" leak.cap kmemleak --alloc "$ALLOC" --free "$FREE" >report 2>err ||
	{ cat err; fail "kmemleak exited $?"; }
cat report
assert_eq "leaking stacks" 1 "$(grep -c '^Leak of' report)"
grep -q "^Leak of $((K * SIZE)) bytes in $K objects allocated from:\$" report ||
	fail "not $K objects of $SIZE bytes leaking"
frames=$(stack_after report "Leak of" | tr '\n' ' ')
case $frames in
"leak_here main "*) ;;
*) fail "the leak's stack is '$frames', not leak_here <- main (unwound through an FP-less build)" ;;
esac
grep -q "alloc_path\|free_path" report && fail "a freed path is reported as leaking"
"$PP_ANALYZE" leak.cap kmemleak --alloc "$ALLOC" --free "$FREE" --format json >report.json 2>err ||
	{ cat err; fail "kmemleak --format json exited $?"; }
python3 - "$K" "$SIZE" <<'PY' || fail "JSON report"
import json, sys
k, size = int(sys.argv[1]), int(sys.argv[2])
leaks = [r for l in open("report.json") for r in json.loads(l).get("leaks", [])]
assert len(leaks) == 1, leaks
assert leaks[0]["stack"].endswith(";main;leak_here"), leaks
assert leaks[0]["objects"] == k and leaks[0]["bytes"] == k * size, leaks
PY

# kmemprof: the pointer is the key (malloc's return, free's argument); every block counts
# SIZE bytes, so objects are the ground truth
KM="kmemprof -e uretprobe:$LIBC:malloc//key=ret/size=$SIZE/stack/ -e uprobe:$LIBC:free//key=arg1/stack/"
"$PP_RECORD" -m 8192 --for "$KM --call-graph dwarf" -o prof.cap -- \
	"$PROG" -m leak -n $N -k $K -s $SIZE >rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
grep -q ' lost: 0;' rec.out || skip "the recording lost events (busy machine): $(grep lost: rec.out)"
# shellcheck disable=SC2086
"$PP_ANALYZE" prof.cap $KM >prof.out 2>err || { cat err; fail "kmemprof exited $?"; }
cat prof.out
unfreed="Allocate $((K * SIZE)) (100.0%) bytes on $K (100.0%) objects:"
freed="Allocate $((N * SIZE)) (100.0%) bytes on $N (100.0%) objects:"
grep -q "total alloc $((K * SIZE)) bytes on $K objects but not freed" prof.out ||
	fail "kmemprof: not $K objects never freed"
frames=$(stack_after prof.out "$unfreed" | tr '\n' ' ')
case $frames in
"leak_here main "*) ;;
*) fail "kmemprof: the unfreed stack is '$frames', not leak_here <- main" ;;
esac
frames=$(stack_after prof.out "$freed" | tr '\n' ' ')
case $frames in
"alloc_path main "*) ;;
*) fail "kmemprof: the $N freed objects' stack is '$frames', not alloc_path <- main" ;;
esac
exit 0
