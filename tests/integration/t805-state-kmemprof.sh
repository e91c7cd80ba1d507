#!/bin/sh
# SPDX-License-Identifier: MIT
# t805-state-kmemprof: kmemprof's mergeable state (issue 19, 2026-12-05) on a recorded load:
# kmem:kmalloc and kmem:kfree with kernel stacks while a shell forks /bin/true 100 times (its
# allocations are freed across any cut, some never in the capture).  At three cuts T the
# report of the merge of --time ,T and --time T+1ns, is the one-pass report byte for byte
# (text and json), A+B and B+A are the same bytes; the halves merged with a 1 ns gap (not
# joined) are not the replay; the merge counts every fork's allocations; states of other
# options refuse to merge; -i refuses --state-out; hostile section bytes never crash a report.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-state.sh"
need_event kmem:kmalloc
need_event kmem:kfree

FORKS=100
"$PP_RECORD" -m 1024 -e 'kmem:kmalloc//stack/,kmem:kfree//stack/' -o km.ppcap -- \
	sh -c "i=0; while [ \$i -lt $FORKS ]; do /bin/true; i=\$((i + 1)); done" \
	>rec.out 2>rec.err || { cat rec.err; fail "pp-record exited $?"; }
grep -q ' lost: 0;' rec.err || skip "the recording lost events (busy machine): $(grep lost: rec.err)"
KM="kmemprof -e kmem:kmalloc//size=bytes_alloc/stack/ -e kmem:kfree//stack/ -k ptr"

# t805.1 at each cut, text and json: the merge of the halves is the replay
check km km.ppcap $KM
check km-json km.ppcap $KM --format json
grep -q '"free_event":"kmem:kfree"' one.out || fail "the replay printed no freed allocations"
# the join does the work: with a 1 ns gap the allocations freed across the cut stay unfreed
run_ok one.out "$PP_ANALYZE" km.ppcap $KM
joined=0
for t in $(cuts km.ppcap); do
	run_ok /dev/null "$PP_ANALYZE" km.ppcap $KM --time ",${t}ns" --state-out a.state
	run_ok /dev/null "$PP_ANALYZE" km.ppcap $KM --time "$((t + 2))ns," --state-out g.state
	run_ok gap.out "$PP_ANALYZE" report a.state g.state
	cmp -s gap.out one.out || joined=$((joined + 1))
done
[ $joined -eq 3 ] || fail "kmemprof: $joined of 3 cuts had a free across them (the join is untested)"
run_ok /dev/null "$PP_ANALYZE" km.ppcap $KM --time "$((t + 1))ns," --state-out b.state
run_ok /dev/null "$PP_ANALYZE" merge a.state b.state -o ab.state
echo "t805: $checks cuts merged back into their replay"

# t805.2 ground truth: every fork allocates in the kernel (copy_process), so the merge
# counts at least FORKS objects allocated in a clone; allocated objects are at most the
# capture's kmalloc events, freed ones at most its kfree events
run_ok json.out "$PP_ANALYZE" report ab.state --format json
NMALLOC=$("$PP_ANALYZE" km.ppcap info | awk '$1 == "kmem:kmalloc" { print $2 }')
NFREE=$("$PP_ANALYZE" km.ppcap info | awk '$1 == "kmem:kfree" { print $2 }')
allocs=$(grep -o '"alloc_objects":[0-9]*' json.out | awk -F: '{ s += $2 } END { print s }')
frees=$(grep -o '"free_objects":[0-9]*' json.out | awk -F: '{ s += $2 } END { print s }')
assert_between "objects allocated (merge)" 1 "$NMALLOC" "$allocs"
assert_between "objects freed (merge)" 1 "$NFREE" "$frees"
run_ok text.out "$PP_ANALYZE" report ab.state
clones=$(awk '/^Allocate / { n = $6 } /^Free / { n = 0 } /kernel_clone\+/ { s += n; n = 0 } END { print s + 0 }' text.out)
assert_ge "objects allocated under kernel_clone (top stacks)" "$FORKS" "$clones"

# t805.3 other options do not merge; -i has no state
set -- $(cuts km.ppcap)
run_ok /dev/null "$PP_ANALYZE" km.ppcap kmemprof -e 'kmem:kmalloc//size=bytes_req/stack/' \
	-e kmem:kfree//stack/ -k ptr --time "$(($2 + 1))ns," --state-out r.state
refused "another size=" "cannot merge 'a.state' and 'r.state': different options" \
	"$PP_ANALYZE" merge a.state r.state -o x.state
refused "-i" "-i with --state-out" "$PP_ANALYZE" km.ppcap $KM -i 100 --state-out x.state
[ -e x.state ] && fail "a refused --state-out or merge wrote a state"

# t805.4 hostile bytes in the section (its stack texts, tables and edges): refused or read,
# never a crash (a state of the first 20 ms, small enough for statefix to reach every part)
START=$(ns "$("$PP_ANALYZE" km.ppcap info | awk '$1 == "time" { print $2; exit }')")
run_ok /dev/null "$PP_ANALYZE" km.ppcap $KM --time ",$((START + 20000000))ns" --state-out h.state
state_hostile h.state
exit 0
