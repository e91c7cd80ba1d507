#!/bin/sh
# SPDX-License-Identifier: MIT
# t841-fleet-local: pp fleet without a scheduler (a local cluster), with --ship, --per-capture,
# JSON and CSV, through pp.fleet.analyze() in Python, and its errors: three captures of the
# syscalls load (600, 1200, 1800 getppid() calls).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-fleet.sh"
need_fleet
need_event raw_syscalls:sys_enter

for i in 1 2 3; do
	record_load l$i 2 $((i * 300))
	run_ok /dev/null "$PP_ANALYZE" l$i.ppcap syscalls --state-out l$i.state
	run_ok l$i.csv "$PP_ANALYZE" l$i.ppcap syscalls --format csv
done
run_ok serial.out "$PP_ANALYZE" report l1.state l2.state l3.state

# t841.1 a local cluster, by path and shipped: the serial merge's report
run_ok local.out "$PP" fleet syscalls --workers 2 l1.ppcap l2.ppcap l3.ppcap
check_output serial.out local.out
run_ok ship.out "$PP" fleet syscalls --ship -- l1.ppcap l2.ppcap l3.ppcap
check_output serial.out ship.out

# t841.2 --per-capture: each capture's own rows, labelled, after the merged report
run_ok per.csv "$PP" fleet syscalls --per-capture --format csv l1.ppcap l2.ppcap l3.ppcap
for i in 1 2 3; do
	assert_eq "l$i's getppid row" "$(calls_csv l$i.csv)" "$(calls_csv per.csv "" l$i.ppcap)"
done
run_ok per.json "$PP" fleet syscalls --per-capture --format json l1.ppcap l2.ppcap l3.ppcap
"$FLEET_PY" - "$GETPPID_NR" "$(cat l1.truth l2.truth l3.truth | tr '\n' ' ')" <<'PY' ||
import json, sys
nr, truth = int(sys.argv[1]), [int(x) for x in sys.argv[2].split()]
d = json.load(open("per.json"))
def calls(rep):
    rows = next(v for v in rep.values() if isinstance(v, list))
    return sum(r["calls"] for r in rows if r.get("id") == nr)
assert d["analyzer"] == "syscalls" and d["captures"] == 3, d.keys()
assert [p["capture"] for p in d["per_capture"]] == ["l1.ppcap", "l2.ppcap", "l3.ppcap"]
per = [calls(p["report"]) for p in d["per_capture"]]
assert calls(d["report"]) == sum(per), (calls(d["report"]), per)
if per != truth:
    print("note: per-capture getppid %s, the loads %s (events missed while recording)" % (per, truth))
PY
	fail "--per-capture --format json"

# t841.3 pp.fleet.analyze() from Python: the same report, and the merged state
PYTHONPATH=$PP_BIN/build/python:${PYTHONPATH:-} "$FLEET_PY" - "$PP_ANALYZE" <<'PY' >api.out ||
import sys
import pp
r = pp.fleet.analyze(["l1.ppcap", "l2.ppcap", "l3.ppcap"], "syscalls", scheduler=None,
                     pp_analyze=sys.argv[1])
open("api.state", "wb").write(r.state)
sys.stdout.write(r.output)
PY
	{ [ -e "$PP_BIN/build/python/pp.so" ] || skip "no pp.so in $PP_BIN/build/python"; fail "pp.fleet.analyze"; }
check_output serial.out api.out
run_ok api-report.out "$PP_ANALYZE" report api.state
check_output serial.out api-report.out

# t841.4 errors: one line each, naming what is wrong
err() {
	want=$1
	shift
	"$PP" fleet "$@" >err.out 2>err.txt && fail "'pp fleet $*' succeeded"
	grep -q -e "$want" err.txt || { cat err.txt; fail "'pp fleet $*': no '$want'"; }
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "'pp fleet $*': more than one line"; }
}
err "no capture given" syscalls
err "missing.ppcap" syscalls l1.ppcap missing.ppcap
err "cannot read capture 'missing.ppcap'" syscalls --ship l1.ppcap missing.ppcap
err "count it twice" syscalls l1.ppcap l1.ppcap
err "l1.ppcap: trace: --state-out: " trace l1.ppcap
err "--format: .xml. is not text, json or csv" syscalls --format xml l1.ppcap
err "cannot reach the Dask scheduler" syscalls --scheduler tcp://127.0.0.1:1 l1.ppcap
err "--workers: 'x' is not a number" syscalls --workers x l1.ppcap
exit 0
