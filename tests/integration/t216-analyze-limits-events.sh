#!/bin/sh
# SPDX-License-Identifier: MIT
# t216-analyze-limits-events: counts a capture claims (docs/capture-format.md, Limits;
# issue 20).  Segments whose headers claim 2^32-1 records and samples each (over 2^40 in
# all) and a STAT of 2^40 samples: nothing is sized from the claims, info counts the 3*10^6
# events the segments hold, in the memory of a small capture.  10^6 samples each of a task
# of its own: under a 32 MiB side-band budget the task table stops growing (one warning)
# and the replay counts every event; with 4 GiB it grows (the control).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
[ -x "$CAPHOSTILE" ] || fail "missing $CAPHOSTILE: run make first"

"$CAPHOSTILE" events 1000 small.ppcap || fail "caphostile events 1000"
base=$(peak_rss base "$PP_ANALYZE" small.ppcap info)
base_ec=$(peak_rss base-ec "$PP_ANALYZE" small.ppcap event-care)

# t216.1 claims of 2^40 events
"$CAPHOSTILE" events 3000000 ev.ppcap || fail "caphostile events"
"$PP_ANALYZE" ev.ppcap dump 2>&1 | grep '^# segment' >segs.out || fail "dump"
claimed=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^records=/) { sub("records=", "", $i); s += $i } }
	END { printf "%.0f", s }' segs.out)
echo "segment headers claim $claimed records"
[ "${#claimed}" -ge 13 ] || { head -3 segs.out; fail "the capture does not claim 2^40 records"; }
rss=$(peak_rss ev "$PP_ANALYZE" ev.ppcap info)
grep -q '^events       3000000$' ev.out || { cat ev.out; fail "info: the events held"; }
grep -q '^  cpu-clock  *3000000$' ev.out || { cat ev.out; fail "info: the events of cpu-clock"; }
echo "info: peak RSS $rss KiB (1000 events: $base KiB)"
assert_between "info on 2^40 claimed events: peak RSS (KiB)" 1 $((base + SAN_K * 8192)) "$rss"

# t216.2 10^6 tasks from the samples
"$CAPHOSTILE" etasks 1000000 et.ppcap || fail "caphostile etasks"
rss=$(PP_SIDEBAND_MAX=32M peak_rss et "$PP_ANALYZE" et.ppcap event-care)
[ "$(grep -c "the capture's side-band data passed the 32.00 MiB limit" et.err)" -eq 1 ] ||
	{ cat et.err; fail "tasks from samples: not one warning"; }
grep -q '^\[000\] 500000 ' et.out && grep -q '^\[001\] 500000 ' et.out ||
	{ cat et.out; fail "tasks from samples: every event counted"; }
big=$(PP_SIDEBAND_MAX=4G peak_rss et4g "$PP_ANALYZE" et.ppcap event-care)
echo "event-care on 10^6 tasks: peak RSS $rss KiB under 32 MiB, $big KiB under 4 GiB (1000 events: $base_ec KiB)"
assert_between "tasks from samples: peak RSS under a 32 MiB budget (KiB)" 1 $((base_ec + SAN_K * (32768 + 16384))) "$rss"
assert_ge "tasks from samples: peak RSS under a 4 GiB budget (KiB)" $((base_ec + 65536)) "$big"
exit 0
