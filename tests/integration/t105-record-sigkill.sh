#!/bin/sh
# SPDX-License-Identifier: MIT
# t105-record-sigkill: pp-record killed with SIGKILL while recording leaves a capture that
# reads up to its last whole segment: no error, the events written so far, and the reader
# reports the cut (no index).  Segments are closed at least once a second, so a 3 s
# recording killed at ~2.5 s keeps at least 1.5 s of events - without the spill file
# (--spill-max 0): with it, tracefs pages wait there while the CPUs are busy, and on a
# busy machine a SIGKILL loses that backlog (docs/production.md).
# The tracefs instances pp-record reads tracepoints from (instances/pp-PID) and maps their
# clock with (instances/pp-PID-clock) do not die with it: its guardian process removes them,
# and instances left by a recorder whose guardian died too are removed by the next pp-record.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch

"$PP_LOAD/ctxsw" -n 100000000 -c 0 >/dev/null 2>&1 &
lpid=$!
"$PP_RECORD" -a -e sched:sched_switch --spill-max 0 -o kill.cap --duration 30 2>rec.err &
rpid=$!
sleep 2.5
kill -KILL $rpid
wait $rpid 2>/dev/null
kill $lpid
wait $lpid 2>/dev/null
[ -s kill.cap ] || fail "no capture left"

tfs=/sys/kernel/tracing
if [ -d $tfs/instances ]; then
	gone=0
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		[ -d $tfs/instances/pp-$rpid ] || [ -d $tfs/instances/pp-$rpid-clock ] ||
			{ gone=1; break; }
		sleep 0.2
	done
	assert_eq "instances/pp-$rpid and pp-$rpid-clock removed by the guardian after SIGKILL" 1 $gone
	# a recorder and its guardian both killed: the next start removes what they left
	sleep 30 &
	dead=$!
	kill -KILL $dead
	wait $dead 2>/dev/null
	mkdir $tfs/instances/pp-$dead $tfs/instances/pp-$dead-clock || fail "cannot make a stale instance"
	"$PP_RECORD" -e sched:sched_switch -o stale.cap --duration 0.2 2>stale.err
	cat stale.err
	for i in pp-$dead pp-$dead-clock; do
		[ -d $tfs/instances/$i ] && { rmdir $tfs/instances/$i; fail "a stale instance $i was left"; }
	done
	grep -q "removed 2 tracefs instances" stale.err || fail "the removal is not reported"
	# any instance of a pp-record that no longer runs (another test's live pp-record may
	# have its own meanwhile: make check runs alone, a developer's machine may not)
	for i in $(ls $tfs/instances | grep "^pp-[0-9]*$"); do
		kill -0 "${i#pp-}" 2>/dev/null ||
			fail "an instance is left after a normal exit: $(ls $tfs/instances)"
	done
else
	echo "no tracefs instances here: the instance checks are skipped"
fi

check_capture "a killed capture" kill.cap
assert_eq "the cut is reported" 1 "$(sv kill.cap truncated)"
assert_ge "sched_switch events kept" 1000 "$(sv kill.cap samples)"
first=$(sv kill.cap first_ns)
last=$(sv kill.cap last_ns)
span=$(( (last - first) / 1000000 ))
echo "events span ${span} ms"
assert_ge "time span kept (ms)" 1000 "$span"
if "$PP_ANALYZE" kill.cap info >info.txt 2>&1; then
	cat info.txt
else
	cat info.txt
	fail "pp-analyze info fails on a killed capture"
fi
exit 0
