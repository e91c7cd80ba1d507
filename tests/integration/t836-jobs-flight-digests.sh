#!/bin/sh
# SPDX-License-Identifier: MIT
# t836-jobs-flight-digests: a flight recorder's dumps carry the digest of their last EVENTS
# segments (issue 19; docs/capture-format.md "Side-band digests", docs/production.md).  A
# flight recorder of a shell forking and execing /bin/true beside the syscalls load (side band
# in every segment) dumps twice on SIGUSR1 and once at its end, with a ring that keeps all
# (fewer segments than a digest covers) and one that wraps; a third dumps after a --trigger
# whose post-trigger window filled its ring.  In each dump every EVENTS
# segment with side band is named by an entry of a digest after it, whose copies are that
# segment's side band (dump); -j 2 -v says part 2 took the side band before it from digests
# and skimmed nothing, -vv that two parts ran; -j 2 prints the bytes -j 1 prints.  Without
# the pending digest a dump lacked the entries of the segments since the last digest (one in
# 16 dumps had none pending), which the part after them skimmed.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
need_event sched:sched_process_exec
command -v python3 >/dev/null 2>&1 || skip "no python3 (reads dump's output)"

# covered DUMP: every events segment with side band (at least 2) is named by an entry of a
# digest after it, whose copies are that side band (dumpdigest.py)
covered() {
	"$PP_ANALYZE" "$1" dump >"$1.dump" 2>"$1.dump.err" || { cat "$1.dump.err"; fail "$1: dump exited $?"; }
	python3 "$TOP/tests/integration/dumpdigest.py" --all "$1.dump" >"$1.dd" || { cat "$1.dd"; return 1; }
	echo "$1: $(cat "$1.dd")"
	[ "$(sed -n 's/.* side \([0-9]*\) .*/\1/p' "$1.dd")" -ge 2 ] || { echo "$1: too little side band"; return 1; }
}

# two flight recorders of the same loads, 7 s, dumping on SIGUSR1 at 2.5 s and 5 s and at the
# end: "slow" keeps everything (scheduler events only, segments closed each second: fewer than
# the 16 after which pp-record writes a digest, so a dump's digests are the one written for it),
# "fast" (the system calls too) wraps its 1M ring many times
sh -c 'while [ ! -e stop ]; do /bin/true; done' &
fpid=$!
"$PP_LOAD/syscalls" -r 100000 -n 800000 >/dev/null 2>&1 &
spid=$!
"$PP_RECORD" -m 1024 -a -e sched:sched_switch,sched:sched_wakeup \
	--flight-recorder 8M --duration 7 -o slow.cap 2>slow.err &
r1=$!
"$PP_RECORD" -m 1024 -a -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	--flight-recorder 1M --duration 7 -o fast.cap 2>fast.err &
r2=$!
# "trig" dumps after a trigger whose post-trigger window fills its ring first (the segments
# after that are not kept, nor the digest written then: a digest of its own covers the last kept)
cp /bin/true ./marker-exec || fail "cannot copy /bin/true"
"$PP_RECORD" -m 1024 -a -e sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	--flight-recorder 256K --trigger 'sched:sched_process_exec/filename~"*marker-exec*"/' \
	--post-trigger 60s --duration 7 -o trig.cap 2>trig.err &
r3=$!
# the exec until the trigger fires (a recorder starting slowly on a busy machine may not see
# the first; only the first that matches triggers)
sleep 1
for i in $(seq 40); do
	./marker-exec
	grep -q "trigger: " trig.err && break
	sleep 0.2
done
for n in 0 1; do
	sleep 2.5
	kill -USR1 $r1 $r2
	for i in $(seq 50); do
		grep -q "wrote 'slow.cap.$n'" slow.err && grep -q "wrote 'fast.cap.$n'" fast.err && break
		sleep 0.1
	done
done
wait $r1
rc1=$?
wait $r2
rc2=$?
wait $r3
rc3=$?
touch stop
kill $spid 2>/dev/null
wait $fpid $spid 2>/dev/null
cat slow.err fast.err trig.err
assert_eq "pp-record exit status (slow)" 0 $rc1
assert_eq "pp-record exit status (fast)" 0 $rc2
assert_eq "pp-record exit status (trig)" 0 $rc3
grep -q "[1-9][0-9]* segments pushed out" fast.err || fail "the fast ring did not wrap"
grep -q "post-trigger window filled" trig.err || fail "trig: the post-trigger window did not fill"
[ ! -f trig.cap.1 ] || fail "trig: more than one dump"

for f in slow.cap.0 slow.cap.1 slow.cap.2 fast.cap.0 fast.cap.1 fast.cap.2 trig.cap.0; do
	[ -f $f ] || fail "no dump $f"
	# t836.1 every events segment with side band is named by a digest after it
	covered $f || fail "$f: an events segment's side band is in no digest"
	# t836.2 -j 2: part 2 read the side band before it from digests, skimmed none, same bytes
	set -- task-state --perins
	case $f in slow*) ;; *) set -- task-state --perins , syscalls --perins ;; esac
	"$PP_ANALYZE" -j 1 $f "$@" >$f.j1 2>$f.j1.err || { cat $f.j1.err; fail "$f: -j 1 exited $?"; }
	[ -s $f.j1 ] || fail "$f: -j 1 printed nothing"
	"$PP_ANALYZE" -vv -j 2 $f "$@" >$f.j2 2>$f.j2.err || { cat $f.j2.err; fail "$f: -j 2 exited $?"; }
	grep -q "part 2: from offset" $f.j2.err || { cat $f.j2.err; fail "$f: -j 2 did not run 2 parts"; }
	pre=$(sed -n 's/.*part 2: side band before it: \([0-9]*\) segments from digests ([0-9]* bytes decompressed), \([0-9]*\) skimmed.*/\1 \2/p' $f.j2.err)
	[ -n "$pre" ] || { cat $f.j2.err; fail "$f: no pre-pass line at -v"; }
	set -- $pre
	echo "$f: part 2: $1 segments from digests, $2 skimmed"
	assert_ge "$f: segments from digests" 1 "$1"
	assert_eq "$f: segments skimmed" 0 "$2"
	cmp -s $f.j1 $f.j2 || { diff -u $f.j1 $f.j2 | head -20; fail "$f: -j 2 differs from -j 1"; }
done
exit 0
