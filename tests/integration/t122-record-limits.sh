#!/bin/sh
# SPDX-License-Identifier: MIT
# t122-record-limits: the production options where they make sense and refused with a
# reason where they do not.  --max-size alone ends a file or a stream (-o -) at that size;
# --trigger ends a stream --post-trigger after the first matching event; rotation and the
# flight recorder are refused on a stream, and the meaningless combinations are refused
# with exit status 2 and one line naming the problem.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch
need_event sched:sched_process_exec

# refused: status 2 and a message containing $2
refused() {
	msg=$1
	shift
	"$PP_RECORD" "$@" >out.cap 2>err.txt
	rc=$?
	cat err.txt
	assert_eq "exit status of pp-record $*" 2 $rc
	grep -q -- "$msg" err.txt || fail "pp-record $*: no '$msg' in the message"
	[ "$(wc -l <err.txt)" -eq 1 ] || fail "pp-record $*: more than one line"
}
refused "one stream" -e sched:sched_switch -o - --max-size 1M --rotate 2
refused "cannot write into -o -" -e sched:sched_switch -o - --flight-recorder 1M
refused "needs --max-size" -e sched:sched_switch -o r.cap --rotate 3
refused "needs --trigger" -e sched:sched_switch -o r.cap --post-trigger 1s
refused "does not apply" -e sched:sched_switch -o r.cap --flight-recorder 1M --max-size 1M
refused "at least 64K" -e sched:sched_switch -o r.cap --max-size 1000
refused "at least 64K" -e sched:sched_switch -o r.cap --flight-recorder 1000
refused "expected a size" -e sched:sched_switch -o r.cap --max-size lots
refused "--trigger" -e sched:sched_switch -o r.cap --trigger nosuchsys:nosuchevent
refused "expected a number of files" -e sched:sched_switch -o r.cap --max-size 1M --rotate -1

"$PP_LOAD/ctxsw" -n 3000000 >/dev/null &
lpid=$!
trap 'kill $lpid 2>/dev/null; rm -rf "$T"' EXIT

# --max-size on a file: stops early, at about that size
start=$(date +%s)
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup --max-size 300K --duration 30 \
	-o max.cap 2>max.err
rc=$?
took=$(($(date +%s) - start))
cat max.err
assert_eq "exit status (--max-size)" 0 $rc
grep -q "reached --max-size 300" max.err || fail "no message about --max-size"
[ $took -lt 25 ] || fail "--max-size did not end the recording ($took s)"
size=$(stat -c %s max.cap)
echo "max.cap: $size bytes"
assert_ge "file size" 307200 "$size"
[ "$size" -le $((3 * 1024 * 1024)) ] || fail "file of $size bytes: far over --max-size"
"$PP_ANALYZE" max.cap info | grep -q "^integrity *ok" || fail "max.cap: integrity"

# --max-size on a stream
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup --max-size 300K --duration 30 \
	-o - 2>smax.err | cat >smax.cap
cat smax.err
size=$(stat -c %s smax.cap)
echo "stream: $size bytes"
assert_ge "stream size" 307200 "$size"
[ "$size" -le $((3 * 1024 * 1024)) ] || fail "stream of $size bytes: far over --max-size"
"$PP_ANALYZE" - info <smax.cap >smax.info 2>&1 || { cat smax.info; fail "the stream does not read"; }
grep -q "sched:sched_switch" smax.info || fail "no events in the stream"

# --trigger on a stream: ends --post-trigger after the exec
cp /bin/true ./marker-exec
"$PP_RECORD" -a -e sched:sched_switch --trigger 'sched:sched_process_exec/filename~"*marker-exec*"/' \
	--post-trigger 0.3s --duration 30 -o - 2>trig.err | cat >trig.cap &
rp=$!
sleep 1.5
./marker-exec
wait $rp
cat trig.err
grep -q "trigger: sched:sched_process_exec" trig.err || fail "the trigger did not fire on the stream"
"$PP_ANALYZE" - trace <trig.cap >trig.txt 2>&1 || fail "the triggered stream does not read"
grep -q "sched_process_exec:.*marker-exec" trig.txt || fail "the trigger event is not in the stream"
dur=$("$PP_ANALYZE" - info <trig.cap | sed -n 's/^time .*(\([0-9.]*\) s)$/\1/p')
echo "stream duration $dur s"
# the 0.3 s after the trigger at least, and what came before it (pp-record may take a good
# part of the 1.5 s to start on a busy machine)
assert_between "stream duration (s)" 0.4 6 "$dur"

# --duration on a stream (and with the flight recorder)
"$PP_RECORD" -a -e sched:sched_switch --duration 1 -o - 2>/dev/null | "$PP_ANALYZE" - info \
	>dur.info 2>&1 || fail "--duration -o -"
"$PP_RECORD" -a -e sched:sched_switch --duration 1 --flight-recorder 1M -o fr.cap 2>/dev/null ||
	fail "--duration with --flight-recorder"
[ -f fr.cap.0 ] || fail "--duration: no final flight-recorder dump"
exit 0
