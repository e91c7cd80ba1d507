#!/bin/sh
# SPDX-License-Identifier: MIT
# t750-record-faults: pp-record when a system call fails (PP_FAULT, common/sys.h's seam).
#
# Each case makes one call fail the way a machine can: ENOSPC and EIO in the middle of a
# segment (half of it written first), EINTR and short writes (which must cost nothing),
# EMFILE at the third CPU's perf_event_open (the last CPU's on a smaller machine), a uprobe
# refused after two were created, a tracefs read, a ring's mmap, the capture's open.  Each
# failure must give one clear error line and a non-zero exit; the capture, if there is one,
# reads up to its last whole segment; no tracefs instance (instances/pp-PID, pp-PID-clock)
# and no probe (group pp_PID) of that pp-record is left, nor its COMMAND.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch

TR=/sys/kernel/tracing

# rec SPEC ARGS...: pp-record ARGS with PP_FAULT=SPEC; sets rc and pid, stderr in rec.err
rec() {
	_spec=$1
	shift
	rm -f x.cap
	PP_FAULT=$_spec "$PP_RECORD" "$@" >rec.out 2>rec.err &
	pid=$!
	wait $pid
	rc=$?
}

# left_behind CASE: nothing of pp-record $pid may remain in tracefs
left_behind() {
	for d in "$TR/instances/pp-$pid" "$TR/instances/pp-$pid-clock"; do
		[ -e "$d" ] && fail "$1: tracefs instance $d left behind"
	done
	for f in "$TR/uprobe_events" "$TR/kprobe_events"; do
		[ -r "$f" ] || continue
		if grep -q "^[pr]:pp_$pid/" "$f"; then
			cat "$f"
			fail "$1: a probe of pp-record $pid left in $f"
		fi
	done
}

# failed CASE PATTERN: a non-zero exit, exactly one error line, matching PATTERN
failed() {
	cat rec.err
	[ "$rc" -ne 0 ] || fail "$1: exit status 0"
	assert_eq "$1: error lines" 1 "$(grep -c 'error:' rec.err)"
	grep -q "error: $2" rec.err || fail "$1: the error does not say '$2'"
	left_behind "$1"
}

# readable CASE: no capture, or one pp-analyze reads (info exits 0)
readable() {
	[ -e x.cap ] || return 0
	"$PP_ANALYZE" x.cap info >info.out 2>info.err || {
		cat info.err
		fail "$1: pp-analyze x.cap info exits non-zero"
	}
}

# t750.1, t750.2: half a segment written, then no space / an I/O error for good
for err in ENOSPC EIO; do
	case $err in
	ENOSPC) text="No space left on device"; n=300011 ;;
	*) text="Input/output error"; n=300013 ;;
	esac
	rec "write:4:short,write:5+:$err" -e sched:sched_switch -o x.cap -- "$PP_LOAD/ctxsw" -n $n
	failed "$err mid-segment" "cannot write capture 'x.cap': $text"
	readable "$err mid-segment"
	grep -q "cut inside a segment" info.out || { cat info.out; fail "$err: the capture is not cut mid-segment"; }
	nr=$(sed -n 's/^  sched:sched_switch *\([0-9]*\).*/\1/p' info.out)
	assert_ge "$err: events read back" 1 "${nr:-0}"
	"$PP_ANALYZE" x.cap event-care >care.out 2>&1 && fail "$err: event-care calls the capture clean"
	grep -q "recorded; 'x.cap' keeps those of the segments written before the error" rec.err ||
		fail "$err: the summary does not say the capture is short"
	pgrep -f "ctxsw -n $n" >/dev/null && fail "$err: the command is still running"
done

# t750.3: EINTR and short writes are retried: a whole, exact capture
rec "write:2:EINTR,write:3:short,write:5:EINTR,write:6:short,write:9:short,write:10:EINTR" \
	-e sched:sched_switch -o x.cap -- "$PP_LOAD/ctxsw" -n 20000 -c 0
cat rec.err
assert_eq "EINTR and short writes: exit status" 0 "$rc"
grep -q 'error:\|warning:' rec.err && fail "EINTR and short writes: a message"
"$CAPCHECK" x.cap summary >sum.out || { cat sum.out; fail "capcheck"; }
assert_eq "EINTR and short writes: corrupt segments" 0 "$(sed -n 's/^corrupt=//p' sum.out)"
assert_eq "EINTR and short writes: truncated" 0 "$(sed -n 's/^truncated=//p' sum.out)"
assert_eq "EINTR and short writes: order" ok "$(sed -n 's/^order=//p' sum.out)"
# every event the recorder counted is in the file; pinned to one CPU, each of the 20000
# round trips switches each thread out once (a wakeup that preempts its waker moves a switch
# between trips, a trip or two at the ends may not block)
said=$(sed -n 's/^  sched:sched_switch *\([0-9]*\).*/\1/p' rec.err)
infile=$(sed -n 's/^events\.sched:sched_switch=//p' sum.out)
assert_eq "EINTR and short writes: events in the file, as the recorder counted them" "$said" "$infile"
assert_ge "EINTR and short writes: sched_switch events" 39990 "$infile"
left_behind "EINTR and short writes"

# t750.4: EMFILE at the third CPU's perf_event_open (the last CPU's below three CPUs);
# the tracefs instance of sched_switch exists by then
ncpu=$(getconf _NPROCESSORS_ONLN)
want=$((ncpu > 2 ? 2 : ncpu - 1))
found=""
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
	rec "perf_event_open:$k:EMFILE" -a -e sched:sched_switch,cpu-clock -o x.cap --duration 1
	if grep -q "on CPU $want:" rec.err; then
		found=$k
		break
	fi
	left_behind "EMFILE at perf_event_open $k"
done
[ -n "$found" ] || { cat rec.err; fail "no perf_event_open of CPU $want"; }
failed "EMFILE on CPU $want" "cannot open .* on CPU $want: too many open files (raise 'ulimit -n')"
readable "EMFILE on CPU $want"

# t750.5: the third uprobe is refused after two were created: both are removed again
if [ -w "$TR/uprobe_events" ]; then
	B=$PP_LOAD/uprobe_target
	rec uprobe:3:EBUSY -e "uprobe:$B:pp_probe_target,uretprobe:$B:pp_probe_target,uprobe:$B:main" \
		-o x.cap --duration 1
	failed "a refused third uprobe" "uprobe:$B:main: the kernel refused probe 'p:pp_$pid/main .*': Device or resource busy"
	readable "a refused third uprobe"
else
	echo "no uprobe_events: t750.5 skipped"
fi

# t750.6: tracefs cannot be read (the event's id)
rec tracefs_read:1:EIO -a -e sched:sched_switch -o x.cap --duration 1
failed "a tracefs read" "cannot read the id of sched:sched_switch: Input/output error"
readable "a tracefs read"

# t750.7: a ring cannot be mapped
rec mmap:1:ENOMEM -a -e sched:sched_switch,cpu-clock -o x.cap --duration 1
failed "mmap" "cannot map a 256-page ring buffer on CPU [0-9]*: Cannot allocate memory (try a smaller -m)"
readable "mmap"

# t750.8: the capture cannot be created
rec open:1:EACCES -a -e sched:sched_switch -o x.cap --duration 1
failed "open" "cannot write capture 'x.cap': Permission denied"
readable "open"

# t750.9: a malformed PP_FAULT is one line and exit status 2
rec write:0:EIO -e sched:sched_switch -o x.cap --duration 1
failed "a bad PP_FAULT" "PP_FAULT: bad rule 'write:0:EIO'"
assert_eq "a bad PP_FAULT: exit status" 2 "$rc"
exit 0
