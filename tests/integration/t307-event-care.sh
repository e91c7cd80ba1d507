#!/bin/sh
# SPDX-License-Identifier: MIT
# t307-event-care: integrity per instance (losses, LATE events) and of the file
# (corrupt segment, truncation); exit 0 only for a whole capture
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
build_fixture care-late
# a clean capture: 4 segments of samples
printf 'event 1 sched:sched_wakeup %s/formats/sched_wakeup.format\nrepeat 4000 1000\nsample 1000 0 7 7 1 pid=7\nend\n' \
	"$FIX" >clean.desc
"$CAPBUILD" -s 4096 -l -5 clean.desc clean.ppcap || fail "capbuild clean"

# t307.1 clean
golden care-clean "$PP_ANALYZE" clean.ppcap event-care || fail "a clean capture is not ok"

# t307.2 losses (sched-basic: 7 on cpu 1) and LATE samples: exit 1
golden care-lost "$PP_ANALYZE" sched-basic.ppcap event-care && fail "losses not reported"
golden care-late "$PP_ANALYZE" care-late.ppcap event-care && fail "LATE not reported"
golden care-late-json "$PP_ANALYZE" care-late.ppcap event-care --format json && fail "LATE not reported (json)"

# t307.3 a corrupt segment: its records are counted as lost; the rest is read
cp clean.ppcap corrupt.ppcap
printf '\125\125\125\125\125\125\125\125' | dd of=corrupt.ppcap bs=1 seek=3000 conv=notrunc 2>/dev/null
"$PP_ANALYZE" corrupt.ppcap event-care >corrupt.out && fail "corruption not reported"
grep -Eq '^segment [0-9]+ at offset [0-9]+: .* \([0-9]+ records lost\)$' corrupt.out ||
	{ cat corrupt.out; fail "no corrupt segment line"; }
grep -q '^event-care: [0-9]* problems*$' corrupt.out || { cat corrupt.out; fail "problem count"; }

# t307.4 truncated in the middle of a segment
size=$(wc -c <clean.ppcap)
head -c $((size / 2)) clean.ppcap >cut.ppcap
"$PP_ANALYZE" cut.ppcap event-care >cut.out && fail "truncation not reported"
grep -q '^truncated: the file ends inside a segment' cut.out || { cat cut.out; fail "no truncation line"; }

# t307.5 the other analyzers read what is whole, exit 0, and say on stderr that it was not all
"$PP_ANALYZE" cut.ppcap trace >trace.out 2>trace.err || { cat trace.err; fail "trace on a cut capture failed"; }
[ -s trace.out ] || fail "trace printed nothing of the whole segments"
grep -Eq "warning: 'cut.ppcap' is truncated after segment [0-9]+ \(offset [0-9]+\), last event at [0-9]+\.[0-9]{6}: the reports end there" trace.err ||
	{ cat trace.err; fail "no truncation warning"; }
"$PP_ANALYZE" corrupt.ppcap top -e sched:sched_wakeup >top.out 2>top.err || fail "top on a corrupt capture"
grep -Eq "warning: 'corrupt.ppcap': 1 corrupt segments skipped, [0-9]+ records lost \(details: pp-analyze corrupt.ppcap event-care\)" top.err ||
	{ cat top.err; fail "no corruption warning"; }
"$PP_ANALYZE" clean.ppcap trace >/dev/null 2>clean.err || fail "trace on the clean capture"
[ -s clean.err ] && { cat clean.err; fail "a warning about a whole capture"; }
exit 0
