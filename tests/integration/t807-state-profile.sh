#!/bin/sh
# SPDX-License-Identifier: MIT
# t807-state-profile: mergeable state of profile and page-faults --summary on the project's
# loads (issue 19, 2026-12-05).  cpuburn (its known call tree) and pagetouch (one fault per
# page) are recorded; each capture is cut in two with --time ,T and --time T+1ns,: the report
# of the merge of the halves' states is the one-pass report byte for byte (text, JSON, CSV),
# A+B and B+A are the same bytes, each half alone is not the whole, and the report of the
# merge needs no capture (it is removed first: the names are in the state).  Ground truth:
# the merge holds cpuburn's four functions, and pagetouch's N*R faults in touch_pages.
# States of other options refuse to merge; --state-out refuses what prints per sample.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"
need_root

AWAY=1 # the reports of merges need no capture

# t807.1 profile on cpuburn: the flame tree and the processes add by name and pid
"$PP_RECORD" --for 'profile -F 997 -g' -o burn.cap -- "$PP_LOAD/cpuburn" -d 2 >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record cpuburn"; }
grep -q '^LOAD cpuburn' rec.err || fail "cpuburn printed no LOAD line"
T=$(mid burn.cap)
check_at prof-g burn.cap "$T" text profile -g
check_at prof-g-json burn.cap "$T" json profile -g
check_at prof-ip burn.cap "$T" text profile
check_at prof-children burn.cap "$T" csv profile -g --sort children --top 12
check_at prof-all burn.cap "$T" text profile -g --all --no-inline
check_at prof-pid burn.cap "$T" text profile -g -p "$(load_field "$(grep '^LOAD cpuburn' rec.err)" pid)"
# ground truth: the merge has cpuburn's tree (check_at's last report: -p of the burner)
for f in burn_a burn_b burn_c burn_d main; do
	grep -q " $f\$" merged.out || { cat merged.out; fail "t807.1: $f missing from the merge"; }
done

# t807.2 page-faults --summary on pagetouch: faults by symbol and by process
N=4000 R=3
"$PP_RECORD" --for 'page-faults -g' -o pf.cap -- "$PP_LOAD/pagetouch" -n $N -r $R >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record pagetouch"; }
load=$(grep '^LOAD pagetouch' rec.err) || fail "pagetouch printed no LOAD line"
T=$(mid pf.cap)
check_at pf pf.cap "$T" text page-faults --summary
check_at pf-json pf.cap "$T" json page-faults --summary
check_at pf-csv pf.cap "$T" csv page-faults --summary --top 5
run_ok /dev/null "$PP_ANALYZE" pf.cap page-faults --summary --time ",${T}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" pf.cap page-faults --summary --time "$((T + 1))ns," --state-out b.state
run_ok merged.out "$PP_ANALYZE" report a.state b.state
# (a sanitizer build of the load also faults in its shadow memory from touch_pages)
if sanitized; then
	assert_ge "touch_pages faults of the merge" $((N * R)) \
		"$(awk '$NF == "touch_pages" { print $1 }' merged.out)"
else
	assert_eq "touch_pages faults of the merge" $((N * R)) \
		"$(awk '$NF == "touch_pages" { print $1 }' merged.out)"
fi

# t807.3 refusals: other options, and what prints per sample (single-stream)
refused() {
	_what=$1 _msg=$2
	shift 2
	"$@" >/dev/null 2>err.out && fail "t807.3 $_what: accepted"
	[ "$(wc -l <err.out)" -eq 1 ] || { cat err.out; fail "t807.3 $_what: not one line"; }
	grep -q -- "$_msg" err.out || { cat err.out; fail "t807.3 $_what: message"; }
}
run_ok /dev/null "$PP_ANALYZE" burn.cap profile -g --time ",${T}ns" --state-out g.state
run_ok /dev/null "$PP_ANALYZE" burn.cap profile --sort children --time "$((T + 1))ns," --state-out s.state
refused "other options" "cannot merge 'g.state' and 's.state': different options" \
	"$PP_ANALYZE" merge g.state s.state -o x.state
refused "profile --detail" "single-stream" "$PP_ANALYZE" burn.cap profile --detail --state-out x.state
refused "profile --than" "single-stream" "$PP_ANALYZE" burn.cap profile --than 50 --state-out x.state
refused "profile --flame-graph" "holds the tables only" \
	"$PP_ANALYZE" burn.cap profile -g --flame-graph x.svg --state-out x.state
refused "profile -i" "a state holds the whole range" "$PP_ANALYZE" burn.cap profile -i 100 --state-out x.state
refused "page-faults listing" "single-stream" "$PP_ANALYZE" pf.cap page-faults --state-out x.state
refused "trace" "stays single-stream" "$PP_ANALYZE" pf.cap trace --state-out x.state
[ -e x.state ] && fail "t807.3: a refused state was written"
exit 0
