#!/bin/sh
# SPDX-License-Identifier: MIT
# t842-fleet-hosts: rows of different machines stay apart, totals add up.  Three captures of
# the syscalls load recorded under two host names (UTS namespaces): fleet-a (2 x 1000
# getppid() calls) and fleet-b (1 x 1500, 2 x 500).  By host, the same key (getppid) is one row
# per host, each the replays of that host's captures; --perins rows are labelled with their
# host and are each host's own merge, row for row; without --by-host the totals add up.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-fleet.sh"
need_fleet
need_event raw_syscalls:sys_enter
command -v unshare >/dev/null || skip "no unshare(1) to record under another host name"
unshare -u true 2>/dev/null || skip "cannot make a UTS namespace here"

record_load a1 2 1000 fleet-a
record_load b1 1 1500 fleet-b
record_load b2 2 500 fleet-b
for c in a1 b1 b2; do
	run_ok $c.csv "$PP_ANALYZE" $c.ppcap syscalls --format csv
	run_ok /dev/null "$PP_ANALYZE" $c.ppcap syscalls --perins --state-out $c.state
done
CAPS="a1.ppcap b1.ppcap b2.ppcap"

# t842.1 --by-host: getppid is one row per host, each its own captures' calls
run_ok host.csv "$PP" fleet syscalls --by-host --format csv $CAPS
assert_eq "fleet-a's getppid calls" "$(calls_csv a1.csv)" "$(calls_csv host.csv fleet-a)"
assert_eq "fleet-b's getppid calls" $(($(calls_csv b1.csv) + $(calls_csv b2.csv))) \
	"$(calls_csv host.csv fleet-b)"
assert_eq "getppid rows" 2 "$(awk -F, -v n="$GETPPID_NR" '$4 == n' host.csv | wc -l)"
run_ok host.txt "$PP" fleet syscalls --by-host $CAPS
# (the text table: host, then the report's time in two words, then the syscall)
assert_eq "text: the hosts' getppid rows" "fleet-a fleet-b" \
	"$(awk '$4 == "getppid" { print $1 }' host.txt | tr '\n' ' ' | sed 's/ $//')"

# t842.2 without --by-host (and without --perins) the totals add up over the machines
run_ok all.csv "$PP" fleet syscalls --format csv $CAPS
assert_eq "all getppid calls" $(($(calls_csv a1.csv) + $(calls_csv b1.csv) + $(calls_csv b2.csv))) \
	"$(calls_csv all.csv)"

# t842.3 --perins: by host by default; each host's rows are its own merge's, row for row
run_ok perins.csv "$PP" fleet syscalls --perins --format csv $CAPS
run_ok /dev/null "$PP_ANALYZE" merge b1.state b2.state -o b.state
run_ok a.csv "$PP_ANALYZE" report a1.state --format csv
run_ok b.csv "$PP_ANALYZE" report b.state --format csv
for h in a b; do
	awk -F, -v h=fleet-$h 'NR > 1 && $1 == h' perins.csv | cut -d, -f2- >fleet-$h.rows
	tail -n +2 $h.csv >$h.rows
	check_output $h.rows fleet-$h.rows
	[ -s $h.rows ] || fail "no rows of fleet-$h"
done
assert_eq "rows without a host" 0 "$(awk -F, 'NR > 1 && $1 != "fleet-a" && $1 != "fleet-b"' perins.csv | wc -l)"

# t842.4 JSON: one group per host, with its captures
run_ok perins.json "$PP" fleet syscalls --perins --format json $CAPS
"$FLEET_PY" -c '
import json
d = json.load(open("perins.json"))
g = [(h["host"], h["captures"]) for h in d["hosts"]]
assert g == [("fleet-a", ["a1.ppcap"]), ("fleet-b", ["b1.ppcap", "b2.ppcap"])], g
' || fail "--perins --format json: not one group per host"
exit 0
