#!/bin/sh
# SPDX-License-Identifier: MIT
# t835-jobs-digests: side-band digests (issue 19; docs/capture-format.md "Side-band digests").
# A recording of a shell that forks and execs /bin/true 800 times beside the syscalls load
# (side band in nearly every segment), with and without call stacks: pp-record writes DIGEST
# segments (info counts them); -j 1, 2 and 4 print the same bytes; the parts after the first
# take the side band before them from the digests (-v: segments from digests, none skimmed,
# far fewer bytes decompressed than the same capture without digests skims); the capture
# with its digests stripped (as recorded before them) or falsified (a copy missing: counts that
# do not add up) prints the same bytes, the parts skimming; damaged (a flipped byte), the same
# bytes as its own -j 1, which reports the damage.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
[ -x "$CAPHOSTILE" ] || fail "missing $CAPHOSTILE: run make first"

# the side band of part 2 in file F (-v line): "DIGESTS DIGEST_BYTES SKIMMED SKIM_BYTES"
prepass() {
	sed -n 's/.*part 2: side band before it: \([0-9]*\) segments from digests (\([0-9]*\) bytes decompressed), \([0-9]*\) skimmed (\([0-9]*\) bytes.*/\1 \2 \3 \4/p' "$1"
}

for g in nostack stack; do
	opt=
	[ $g = stack ] && opt="-e cpu-clock -F 997 -g"
	# shellcheck disable=SC2086
	"$PP_RECORD" -m 4096 -a -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
		$opt -o $g.ppcap -- sh -c "i=0; while [ \$i -lt 800 ]; do /bin/true; i=\$((i+1)); done & '$PP_LOAD/syscalls' -n 150000; wait" \
		>rec.out 2>rec.err || { cat rec.err; fail "pp-record exited $?"; }
	segs=$("$PP_ANALYZE" $g.ppcap info | awk '$1 == "segments"')
	echo "$g: $segs"
	nd=$(echo "$segs" | sed -n 's/.*, digest \([0-9]*\)$/\1/p')
	assert_ge "$g: digest segments" 1 "${nd:-0}"
	"$CAPHOSTILE" digest-strip $g.ppcap $g-strip.ppcap 2>/dev/null || fail "caphostile digest-strip"
	"$CAPHOSTILE" digest-lie $g.ppcap $g-lie.ppcap 2>/dev/null || fail "caphostile digest-lie"
	"$CAPHOSTILE" digest-flip $g.ppcap $g-flip.ppcap 2>/dev/null || fail "caphostile digest-flip"
	"$PP_ANALYZE" $g-strip.ppcap info | grep -q '^segments.*digest' && fail "$g: digests left after digest-strip"

	set -- task-state --perins
	[ $g = stack ] && set -- profile -g
	for a in 1 2; do
		[ $a = 2 ] && set -- syscalls --perins
		n=$g.$a
		"$PP_ANALYZE" -j 1 $g.ppcap "$@" >$n.1 2>$n.1.err || { cat $n.1.err; fail "$n -j 1 exited $?"; }
		[ -s $n.1 ] || fail "$n: nothing printed"
		for j in 2 4; do
			"$PP_ANALYZE" -v -j $j $g.ppcap "$@" >$n.$j 2>$n.$j.err || { cat $n.$j.err; fail "$n -j $j exited $?"; }
			cmp -s $n.1 $n.$j || { diff -u $n.1 $n.$j | head -20; fail "$n: -j $j differs from -j 1"; }
		done
		# the damaged one's reports say so (corrupt segments, no record lost): its own -j 1
		"$PP_ANALYZE" -j 1 $g-flip.ppcap "$@" >$n.flip1 2>/dev/null || fail "$n flip -j 1 exited $?"
		for v in strip lie flip; do
			"$PP_ANALYZE" -v -j 2 $g-$v.ppcap "$@" >$n.$v 2>$n.$v.err || { cat $n.$v.err; fail "$n $v exited $?"; }
			want=$n.1
			[ $v = flip ] && want=$n.flip1
			cmp -s $want $n.$v || { diff -u $want $n.$v | head -20; fail "$n: -j 2 on the $v capture differs"; }
		done
	done
	# t835.1 the part's pre-pass used the digests, the others' the skim
	set -- $(prepass $g.1.2.err)
	[ $# = 4 ] || { cat $g.1.2.err; fail "$g: no pre-pass line at -v"; }
	echo "$g with digests: $1 segments from digests ($2 bytes), $3 skimmed ($4 bytes)"
	assert_ge "$g: segments from digests" 1 "$1"
	assert_eq "$g: segments skimmed" 0 "$3"
	dbytes=$2
	for v in strip lie flip; do
		set -- $(prepass $g.1.$v.err)
		[ $# = 4 ] || { cat $g.1.$v.err; fail "$g $v: no pre-pass line at -v"; }
		echo "$g $v: $1 segments from digests ($2 bytes), $3 skimmed ($4 bytes)"
		assert_eq "$g $v: segments from digests" 0 "$1"
		assert_ge "$g $v: segments skimmed" 1 "$3"
		[ $v = strip ] && sbytes=$4
	done
	# t835.2 the digests' bytes are a small share of what the skim decompresses
	assert_ge "$g: skim bytes / 10 over digest bytes" "$dbytes" $((sbytes / 10))
done
exit 0
