#!/bin/sh
# SPDX-License-Identifier: MIT
# t360-kmemleak-mallocloop: mallocloop -m leak mallocs K blocks of SIZE bytes from leak_here()
# that it never frees, among N blocks malloc'ed by alloc_path() and freed by free_path().
# Recorded with `pp-record --for 'kmemleak ...'` (uprobes on libc malloc/free, a uretprobe
# for the pointer), kmemleak reports exactly one leaking stack: leak_here's, with K objects
# and K*SIZE bytes, and nothing allocated from alloc_path.  The JSON report says the same.
. "$(dirname "$0")/lib.sh"
need_mallocloop_libc

N=3000
K=13
SIZE=1000
ALLOC="uprobe:$LIBC:malloc//size=arg1/,uretprobe:$LIBC:malloc//ptr=ret/"
FREE="uprobe:$LIBC:free//ptr=arg1/"

"$PP_RECORD" --for "kmemleak --alloc '$ALLOC' --free '$FREE' -g" -o leak.cap -- \
	"$PP_LOAD/mallocloop" -m leak -n $N -k $K -s $SIZE >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
grep -q "^LOAD mallocloop .*leaks=$K " rec.out || { cat rec.out; fail "no LOAD line"; }

# the short form of the binary (libc.so.6) matches the recorded probes
A2="uprobe:libc.so.6:malloc//size=arg1/,uretprobe:libc.so.6:malloc//ptr=ret/"
F2="uprobe:libc.so.6:free//ptr=arg1/"
"$PP_ANALYZE" leak.cap kmemleak --alloc "$A2" --free "$F2" --comm >report 2>err ||
	{ cat err; fail "kmemleak exited $?"; }
cat report

grep -q '^LEAKED BYTES REPORT:$' report || fail "no bytes report"
leak_line=$(grep -A3 '^Leak of' report | grep -B3 ' leak_here+' | grep '^Leak of')
assert_eq "leak_here's leak" "Leak of $((K * SIZE)) bytes in $K objects allocated from:" "$leak_line"
grep -q "alloc_path\|free_path" report && fail "a freed path is reported as leaking"
grep -q "comms: mallocloop($((K * SIZE))/$K)" report || fail "no comm line for mallocloop"
# every block of alloc_path was freed: the uprobe counts balance
allocs=$(sed -n 's/^TOTAL alloc \([0-9]*\) free \([0-9]*\)$/\1/p' report)
frees=$(sed -n 's/^TOTAL alloc \([0-9]*\) free \([0-9]*\)$/\2/p' report)
assert_ge "allocations seen" $((N + K)) "$allocs"
assert_ge "releases seen" $N "$frees"

"$PP_ANALYZE" leak.cap kmemleak --alloc "$A2" --free "$F2" --format json >report.json 2>err ||
	{ cat err; fail "kmemleak --format json exited $?"; }
python3 - "$K" "$SIZE" <<'PY' || fail "JSON report"
import json, sys
k, size = int(sys.argv[1]), int(sys.argv[2])
lines = [json.loads(l) for l in open("report.json")]
leaks = [r for l in lines for r in l.get("leaks", [])]
mine = [r for r in leaks if r["stack"].endswith(";leak_here")]
assert len(mine) == 1, leaks
assert mine[0]["objects"] == k and mine[0]["bytes"] == k * size, mine
assert not [r for r in leaks if "alloc_path" in r["stack"]], leaks
PY
exit 0
