#!/bin/sh
# SPDX-License-Identifier: MIT
# t335-lat-memory: without --detail the two-event engine keeps one backup per live key,
# not the events: multi-trace over 400000 softirq pairs peaks within 3 MB of its peak
# over 20000 (two keys, CPU 0 and 1).  Kept events would cost 100 bytes or more each:
# tens of MB for the larger capture.  Needs /usr/bin/time; neither root nor a kernel.
# PP_HUGEPAGES=0: in huge pages the heap's resident size grows 2 MB at a time (analyze/heap.c),
# which would measure the page size, not what the engine keeps.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (GNU time) to measure the peak RSS"

# gen N: N pairs alternating between CPU 0 and 1, every 10 us, lasting 2..8 us
gen() {
	cat <<EOT
kv release 6.18.0-test
event 1 irq:softirq_entry $FIX/formats/softirq_entry.format
event 2 irq:softirq_exit $FIX/formats/softirq_exit.format
task 100 100 1 bash
sync 1000.000000000 1767225600.000000000
EOT
	awk -v n="$1" 'BEGIN {
		for (k = 0; k < n; k++) {
			t = 1000000 + k * 10000
			e = t + 2000 + (k % 7) * 1000
			printf "sample %d.%09d %d 100 100 1 vec=1\n", 1000 + int(t / 1e9), t % 1000000000, k % 2
			printf "sample %d.%09d %d 100 100 2 vec=1\n", 1000 + int(e / 1e9), e % 1000000000, k % 2
		}
	}'
}
gen 20000 >small.desc
gen 400000 >big.desc
"$CAPBUILD" small.desc small.ppcap || fail "capbuild small"
"$CAPBUILD" big.desc big.ppcap || fail "capbuild big"

# peak NAME ARGS...: pp-analyze's peak RSS in KB, on one thread (the engine's state per pair
# is measured, not -j's parts: t830 and make bench see those); the table's calls in calls.NAME
peak() {
	_n=$1
	shift
	PP_JOBS=1 PP_HUGEPAGES=0 /usr/bin/time -f '%M' -o "rss.$_n" "$PP_ANALYZE" "$@" \
		>"out.$_n" 2>"err.$_n" ||
		{ cat "err.$_n"; fail "pp-analyze $*"; }
	awk '$2 == "=>" && $1 != "start" { print $4 }' "out.$_n" >"calls.$_n"
	tail -1 "rss.$_n"
}
for mode in plain than; do
	extra=
	[ $mode = than ] && extra="--than 1ms"
	# shellcheck disable=SC2086 # extra is words
	s=$(peak small-$mode small.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit $extra)
	# shellcheck disable=SC2086
	b=$(peak big-$mode big.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit $extra)
	assert_eq "$mode: pairs of the small capture" 20000 "$(cat calls.small-$mode)"
	assert_eq "$mode: pairs of the big capture" 400000 "$(cat calls.big-$mode)"
	assert_between "$mode: peak RSS over 400000 pairs (KB; 20000 pairs: $s KB)" 1 $((s + 3072)) "$b"
done
exit 0
