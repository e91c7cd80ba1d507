#!/bin/sh
# SPDX-License-Identifier: MIT
# t218-analyze-dump-digests: `pp-analyze FILE dump` shows the DIGEST segments (issue 19;
# docs/capture-format.md "Side-band digests").  On a recording of a shell forking and
# execing /bin/true beside the syscalls load: each digest says a part of -j would use it, each
# entry names the events segment it describes (segment=N, from the header fields it stores)
# and its copies, printed as dump prints those records, are that segment's side band, line
# for line; every segment with side band is named.  Hostile digests (tests/tools/caphostile)
# are shown for what they are, with the records outside them unchanged and exit status 0:
# falsified (a copy missing: the reason given), damaged (its checksum: skipped, no record
# lost), stripped (none), and mangled with their checksums right (40 seeds: never a crash,
# each digest either used or not with a reason).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
command -v python3 >/dev/null 2>&1 || skip "no python3 (reads dump's output)"
[ -x "$CAPHOSTILE" ] || fail "missing $CAPHOSTILE: run make first"
DD="python3 $TOP/tests/integration/dumpdigest.py"

"$PP_RECORD" -m 4096 -a -e sched:sched_switch,raw_syscalls:sys_enter,raw_syscalls:sys_exit -o d.ppcap -- \
	sh -c "i=0; while [ \$i -lt 400 ]; do /bin/true; i=\$((i+1)); done & '$PP_LOAD/syscalls' -n 250000; wait" \
	>rec.out 2>rec.err || { cat rec.err; fail "pp-record exited $?"; }
nd=$("$PP_ANALYZE" d.ppcap info | sed -n 's/^segments.*, digest \([0-9]*\)$/\1/p')
echo "digest segments: $nd"
assert_ge "digest segments" 2 "${nd:-0}"

# t218.1 every digest used; each entry's copies are the side band of the segment it names
"$PP_ANALYZE" d.ppcap dump >d.dump 2>d.err || { cat d.err; fail "dump exited $?"; }
$DD --all --records d.rec d.dump >d.dd || { cat d.dd; fail "the digests do not copy their segments"; }
cat d.dd
set -- $(tail -1 d.dd)
assert_eq "digests in dump" "$nd" "${12}"
assert_eq "digests used" "$nd" "${14}"
assert_ge "segments with side band" 10 "$4"
assert_eq "entries that name no segment" 0 "${10}"
grep -q '^DIGEST_SEG csize=[0-9]* crc=0x[0-9a-f]\{8\} time=[0-9]*\.\.[0-9]* records=[0-9]* samples=[0-9]* stacks=0 copied=[0-9]* segment=[0-9]*$' d.dump ||
	fail "no DIGEST_SEG line of the documented shape"
grep -q '^  [0-9]* COMM pid=[0-9]* tid=[0-9]* exec=1 true$' d.dump || fail "no copy of an exec's COMM"

# t218.2 falsified: the reason, and the copies as they are (one fewer than the segment's)
"$CAPHOSTILE" digest-lie d.ppcap lie.ppcap 2>/dev/null || fail "caphostile digest-lie"
"$PP_ANALYZE" lie.ppcap dump >lie.dump 2>lie.err || { cat lie.err; fail "dump of the falsified capture exited $?"; }
grep -q '^# digest not used: entry [0-9]*: \([0-9]*\) copies follow it, nr_copied says [0-9]* (-j skims the segments it names)$' lie.dump ||
	{ grep '^# digest' lie.dump; fail "no reason for the falsified digest"; }
$DD --records lie.rec lie.dump >lie.dd && { cat lie.dd; fail "the falsified digest copies its segments"; }
grep -q '^segment [0-9]*: the entry copies \([0-9]*\) records, the segment has [0-9]* of side band$' lie.dd ||
	{ cat lie.dd; fail "the copy missing is not seen"; }
cmp -s d.rec lie.rec || fail "the records outside the digests differ (falsified)"

# t218.3 damaged: skipped where it was, with no record lost
"$CAPHOSTILE" digest-flip d.ppcap flip.ppcap 2>/dev/null || fail "caphostile digest-flip"
"$PP_ANALYZE" flip.ppcap dump >flip.dump 2>flip.err || { cat flip.err; fail "dump of the damaged capture exited $?"; }
assert_eq "damaged digests skipped" "$nd" \
	"$(grep -c '^# skipped segment [0-9]* digest offset=[0-9]*: checksum mismatch (copies: no record lost)$' flip.dump)"
grep -q '^DIGEST_SEG' flip.dump && fail "an entry of a damaged digest is shown"
$DD --records flip.rec flip.dump >flip.dd || { cat flip.dd; fail "dumpdigest on the damaged capture"; }
cmp -s d.rec flip.rec || fail "the records outside the digests differ (damaged)"

# t218.4 stripped: no digest at all, the same records
"$CAPHOSTILE" digest-strip d.ppcap strip.ppcap 2>/dev/null || fail "caphostile digest-strip"
"$PP_ANALYZE" strip.ppcap dump >strip.dump 2>&1 || fail "dump of the stripped capture exited $?"
grep -q '^# segment [0-9]* digest\|^DIGEST_SEG\|^# digest\|^# skipped' strip.dump && fail "digest lines in a capture without digests"
$DD --records strip.rec strip.dump >/dev/null || fail "dumpdigest on the stripped capture"
cmp -s d.rec strip.rec || fail "the records outside the digests differ (stripped)"

# t218.5 mangled, checksums right: exit 0, every digest used or not with a reason (a small
# capture of the shell alone, its side band in few segments: 40 dumps of it take seconds)
"$PP_RECORD" -m 1024 -a -e sched:sched_switch -o s.ppcap -- \
	sh -c 'i=0; while [ $i -lt 150 ]; do /bin/true; i=$((i+1)); done' \
	>rec.out 2>rec.err || { cat rec.err; fail "pp-record exited $?"; }
nd=$("$PP_ANALYZE" s.ppcap info | sed -n 's/^segments.*, digest \([0-9]*\)$/\1/p')
assert_ge "digest segments of the small capture" 1 "${nd:-0}"
"$PP_ANALYZE" s.ppcap dump >s.dump 2>s.err || { cat s.err; fail "dump exited $?"; }
$DD --all --records s.rec s.dump >s.dd || { cat s.dd; fail "the digests do not copy their segments (small)"; }
used=0 unused=0
for seed in $(seq 1 40); do
	"$CAPHOSTILE" digest-mangle $seed s.ppcap m.ppcap 2>/dev/null || fail "caphostile digest-mangle $seed"
	"$PP_ANALYZE" m.ppcap dump >m.dump 2>m.err
	rc=$?
	[ $rc = 0 ] || { tail -3 m.err; fail "seed $seed: dump exited $rc"; }
	$DD --records m.rec m.dump >m.dd
	[ $? -le 1 ] || { cat m.dd; fail "seed $seed: dumpdigest"; }
	cmp -s s.rec m.rec || fail "seed $seed: the records outside the digests differ"
	# each digest shown says whether it is used; one not shown was skipped
	set -- $(tail -1 m.dd)
	shown=$(grep -c '^# segment [0-9]* digest ' m.dump)
	assert_eq "seed $seed: digests shown with a check line" "$shown" $(( ${14} + ${16} ))
	[ $((shown + ${18})) -ge "$nd" ] || { cat m.dd; fail "seed $seed: a digest neither shown nor skipped"; }
	# (a reason is a sentence: it ends in a word, a number or a reference in parentheses,
	# as the reader's limit error does: "... limits (docs/capture-format.md, Limits)")
	grep '^# digest not used: ' m.dump | grep -qv '^# digest not used: .*[a-z0-9)] (-j skims the segments it names)$' &&
		{ grep '^# digest not used' m.dump; fail "seed $seed: a reason of an odd shape"; }
	used=$((used + ${14})) unused=$((unused + nd - ${14}))
done
echo "mangled: $used digests still used (what the checks cannot see), $unused not"
assert_ge "mangled digests refused" 10 $unused
exit 0
