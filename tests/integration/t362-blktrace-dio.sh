#!/bin/sh
# SPDX-License-Identifier: MIT
# t362-blktrace-dio: N O_DIRECT reads of 4 KiB (tests/load/dio) from a file on an ext4
# filesystem on a loop device set up for the test.  Recorded with
# `pp-record --for 'blktrace -d /dev/loopN' -- dio ...` (the plan records on every CPU,
# since requests complete in interrupts and kernel threads), blktrace sees N completed
# read requests of 8 sectors on that device, and counts at least N requests in the
# issue => complete stage.  The loop device is removed at the end whatever happens.
. "$(dirname "$0")/lib.sh"
need_event block:block_rq_complete
loop_ext4

N=40
# create the file and read its metadata before recording: only the N reads remain
"$PP_LOAD/dio" -f "$T/mnt/dio.dat" -n 1 -s 4096 >/dev/null 2>prep.err
rc=$?
[ $rc = 3 ] && skip "no O_DIRECT on ext4 here"
[ $rc = 0 ] || { cat prep.err; fail "dio setup run exited $rc"; }
sync

"$PP_RECORD" --for "blktrace -d $LOOP" -o bt.cap -- \
	"$PP_LOAD/dio" -f "$T/mnt/dio.dat" -n $N -s 4096 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
grep -q "^LOAD dio reads=$N size=4096 " rec.out || { cat rec.out; fail "no LOAD line"; }

# every event printed (-vv): the completions of 8-sector reads on this device
"$PP_ANALYZE" bt.cap blktrace -d "$LOOP" -vv >all.out 2>err || { cat err; fail "blktrace -vv"; }
majmin=$(lsblk -dno MAJ:MIN "$LOOP" 2>/dev/null | tr -d ' ')
[ -n "$majmin" ] || majmin="7,$(echo "$LOOP" | sed 's/[^0-9]//g')"
majmin=$(echo "$majmin" | tr ':' ',')
reads=$(grep "block:block_rq_complete: $majmin R[A-Z]* () [0-9]* + 8 " all.out | wc -l)
assert_eq "completed 4 KiB reads on $LOOP" $N "$reads"

"$PP_ANALYZE" bt.cap blktrace -d "$LOOP" >report 2>err || { cat err; fail "blktrace"; }
cat report
done_reqs=$(sed -n 's/^block_rq_issue => block_rq_complete *\([0-9]*\) .*/\1/p' report)
assert_ge "issue => complete requests" $N "$done_reqs"

"$PP_ANALYZE" bt.cap blktrace --format json >report.json 2>err || { cat err; fail "blktrace json"; }
python3 - "$N" <<'PY' || fail "JSON report"
import json, sys
rows = json.load(open("report.json"))["blktrace"]
done = [r for r in rows if r["end"] == "block_rq_complete"][0]
assert done["reqs"] >= int(sys.argv[1]), rows
assert done["min_us"] > 0 and done["max_us"] >= done["avg_us"] >= done["min_us"], rows
PY
exit 0
