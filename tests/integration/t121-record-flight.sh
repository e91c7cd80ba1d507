#!/bin/sh
# SPDX-License-Identifier: MIT
# t121-record-flight: --flight-recorder 64K keeps only the newest 64 KiB of compressed
# events segments.  A dump on SIGUSR1 (the recorder keeps running) holds at most 64 KiB of
# events, ends within a few hundred ms of the signal, does not reach back to the start,
# and its events are exactly the newest ones: a plain recording of the same event made
# alongside has the very same events in that time range, none missing in between.  The
# dump analyses alone.  The end writes one more dump.  With --trigger the first matching
# event dumps the buffer --post-trigger later and ends the recording; the dump holds the
# trigger event even when the window after it fills the buffer, which then ends it early.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch
need_event sched:sched_process_exec
command -v python3 >/dev/null 2>&1 || skip "no python3 (reads segment headers and the clock)"

mono() { python3 -c 'import time; print(time.monotonic_ns())'; }
# events_bytes FILE: bytes of the events segments (headers included) of a capture
events_bytes() {
	python3 - "$1" <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read()
	off, tot = 64, 0
	while off + 64 <= len(d):
	    magic, kind = struct.unpack_from('<IH', d, off)
	    if magic != 0x47535050:
	        break
	    csize = struct.unpack_from('<I', d, off + 32)[0]
	    if kind == 2:
	        tot += 64 + csize
	    off += 64 + csize
	print(tot)
	EOF
}

"$PP_LOAD/sleeper" -n 40000 -s 100us >sleeper.out &
lpid=$!
t0=$(mono)
"$PP_RECORD" -a -e sched:sched_switch --duration 12 -o full.cap 2>full.err &
fpid=$!
"$PP_RECORD" -a -e sched:sched_switch --flight-recorder 64K --duration 12 -o fr.cap 2>fr.err &
rpid=$!
sleep 5
tu=$(mono)
kill -USR1 $rpid
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q "wrote 'fr.cap.0'" fr.err && break
	sleep 0.2
done
kill -0 $rpid 2>/dev/null || fail "pp-record did not keep running after SIGUSR1"
wait $rpid
rc=$?
wait $fpid
kill $lpid 2>/dev/null
wait $lpid 2>/dev/null
cat fr.err
assert_eq "pp-record exit status" 0 $rc
ls -l fr.cap.* full.cap
[ -f fr.cap.0 ] || fail "no dump on SIGUSR1"
[ -f fr.cap.1 ] || fail "no dump at the end"
pushed=$(sed -n 's/.*, \([0-9]*\) segments pushed out.*/\1/p' fr.err)
assert_ge "segments pushed out of the ring" 1 "$pushed"

for f in fr.cap.0 fr.cap.1; do
	"$PP_ANALYZE" $f info >info.$f 2>&1 || { cat info.$f; fail "$f: pp-analyze info"; }
	grep -q "^integrity *ok" info.$f || { cat info.$f; fail "$f: integrity"; }
	grep -q "^format .*indexed" info.$f || { cat info.$f; fail "$f: not indexed"; }
	eb=$(events_bytes $f)
	echo "$f: $eb bytes of events segments"
	[ "$eb" -le 65536 ] || fail "$f holds $eb bytes of events, more than 64K"
	assert_ge "$f events bytes" 8192 "$eb"
done

first=$(sv fr.cap.0 first_ns)
last=$(sv fr.cap.0 last_ns)
echo "recording started ~$t0, SIGUSR1 at $tu, dump covers $first .. $last"
[ "$first" -gt $((t0 + 1000000000)) ] || fail "the dump reaches back to the start: old events were kept"
[ "$last" -ge $((tu - 400000000)) ] || fail "the dump ends $(((tu - last) / 1000000)) ms before SIGUSR1"
[ "$last" -le $((tu + 500000000)) ] || fail "the dump ends after SIGUSR1 + 500 ms"

# exactly the newest events: the same as the plain recording in that range (per CPU, in
# order; the two perf events read the clock separately, so times differ by a microsecond
# and 5 ms at each edge are left out)
"$PP_ANALYZE" fr.cap.0 trace >dump.txt 2>&1 || fail "pp-analyze trace on the dump"
"$PP_ANALYZE" full.cap trace >full.txt 2>&1 || fail "pp-analyze trace on the plain capture"
python3 - dump.txt full.txt <<-'EOF' || fail "the dump is not the newest events of the plain recording"
	import difflib, re, sys
	pat = re.compile(r'\[(\d+)\] +(\d+\.\d+): (sched:sched_switch: .*)$')
	# a recorder's switches between its own threads are left out of its own capture (its
	# tracefs instance does not trace itself) but not of the other's: compare the rest
	own = re.compile(r'(prev|next)_comm=pp-record')
	# an exiting task's last switch reads its exit_state when each consumer's probe runs,
	# while its parent may be reaping it on another CPU: one recorder sees Z, the other X
	dying = re.compile(r'prev_state=[XZ] ')
	def load(p):
	    out = []
	    for line in open(p):
	        m = pat.search(line)
	        if m and not own.search(m.group(3)):
	            ev = dying.sub('prev_state=X|Z ', m.group(3))
	            out.append((int(m.group(1)), float(m.group(2)), ev))
	    return out
	d, f = load(sys.argv[1]), load(sys.argv[2])
	lo, hi = d[0][1] + 0.005, d[-1][1] - 0.005
	n = 0
	for cpu in sorted(set(e[0] for e in d)):
	    a = [e[2] for e in d if e[0] == cpu and lo <= e[1] <= hi]
	    b = [e[2] for e in f if e[0] == cpu and lo <= e[1] <= hi]
	    # the same events in the same order; two perf consumers of one tracepoint may
	    # differ by an event the kernel drops for one (recursion protection, counted
	    # nowhere): allow 1 in 1000, no more
	    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
	    same = sum(blk.size for blk in sm.get_matching_blocks())
	    if max(len(a), len(b)) - same > max(1, len(b) // 1000):
	        print('cpu %d: %d events in the dump, %d in the plain capture, %d in common' %
	              (cpu, len(a), len(b), same))
	        for op, i1, i2, j1, j2 in sm.get_opcodes():
	            if op != 'equal':
	                print('  %s dump %s plain %s' % (op, a[i1:i2][:4], b[j1:j2][:4]))
	        sys.exit(1)
	    n += len(a)
	print('%d events from %.3f to %.3f match' % (n, lo, hi))
	sys.exit(0 if n >= 500 else 1)
	EOF

# the trigger: an exec of 'marker-exec' dumps the ring 0.5 s later and ends the recording
# (4M: room for 0.5 s of a busy machine's switches)
cp /bin/true ./marker-exec || fail "cannot copy /bin/true"
# trigger_run SIZE POST DURATION OUT ERR: record with the marker-exec trigger, exec it
# after 2 s; sets rc, ts (the exec) and te (pp-record's end), prints ERR
trigger_run() {
	"$PP_RECORD" -a -e sched:sched_switch --flight-recorder "$1" \
		--trigger 'sched:sched_process_exec/filename~"*marker-exec*"/' --post-trigger "$2" \
		--duration "$3" -o "$4" 2>"$5" &
	rpid=$!
	sleep 2
	ts=$(mono)
	./marker-exec
	wait $rpid
	rc=$?
	te=$(mono)
	cat "$5"
}
trigger_run 4M 0.5s 20 tr.cap tr.err
assert_eq "pp-record exit status (trigger)" 0 $rc
[ $((te - ts)) -lt 5000000000 ] || fail "the trigger did not end the recording"
grep -q "trigger: sched:sched_process_exec" tr.err || fail "no trigger message"
[ -f tr.cap.0 ] || fail "no dump after the trigger"
[ ! -f tr.cap.1 ] || fail "more than one dump after the trigger"
"$PP_ANALYZE" tr.cap.0 trace >tr.txt 2>&1 || fail "pp-analyze trace on the trigger dump"
grep -q "sched:sched_process_exec:.*marker-exec" tr.txt || fail "the dump lacks the trigger event"
tt=$(grep "sched:sched_process_exec:.*marker-exec" tr.txt | head -1 |
	sed 's/.*\] *\([0-9.]*\): sched:sched_process_exec.*/\1/')
tl=$(sv tr.cap.0 last_ns)
echo "trigger at $tt s, dump ends at $tl ns"
awk -v t="$tt" -v l="$tl" 'BEGIN { exit !(l / 1e9 >= t + 0.45) }' ||
	fail "the dump does not reach --post-trigger 0.5s past the trigger"

# a post-trigger window that fills SIZE first ends there: memory stays at 2 x SIZE, and
# the dump still holds the trigger event
"$PP_LOAD/ctxsw" -n 2000000 >/dev/null 2>&1 &
lpid=$!
trigger_run 64K 60s 90 tp.cap tp.err
kill $lpid 2>/dev/null
wait $lpid 2>/dev/null
assert_eq "pp-record exit status (post-trigger window full)" 0 $rc
grep -q "post-trigger window filled" tp.err || fail "no message that the window filled"
[ $((te - ts)) -lt 30000000000 ] || fail "a full post-trigger window did not end the recording"
"$PP_ANALYZE" tp.cap.0 trace >tp.txt 2>&1 || fail "pp-analyze trace on the dump"
grep -q "sched:sched_process_exec:.*marker-exec" tp.txt || fail "that dump lacks the trigger event"
held=$(sed -n 's/.*at most \([0-9.]*\) KiB held.*/\1/p' tp.err)
awk -v h="$held" 'BEGIN { exit !(h > 0 && h <= 2 * 64 + 64) }' ||
	fail "the ring held $held KiB, more than 2 x 64 KiB and a segment"
exit 0
