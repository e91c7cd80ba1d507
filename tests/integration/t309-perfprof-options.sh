#!/bin/sh
# SPDX-License-Identifier: MIT
# t309-perfprof-options: perf-prof's options and attributes (docs/analyzers.md "perf-prof
# options"): those pp accepts print nothing on stderr without -v and one note each with it,
# those it refuses fail in one line naming pp's way, and the implemented ones change the
# output as they should: --clock-offset shifts the event clock and not the wall time,
# --monotonic keeps the capture's CLOCK_MONOTONIC seconds, cpus= keeps those CPUs' events,
# top reports every second without -i, max-stack= cuts recorded stacks, --watermark
# reaches pp-record.  The offline checks use a built capture; the live ones need root.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic
S=sched-basic.ppcap
run_ok base.out "$PP_ANALYZE" $S trace

# quiet CMD...: CMD must exit 0 with nothing on stderr, its stdout in quiet.out
quiet() {
	"$@" >quiet.out 2>quiet.err || { cat quiet.err; fail "'$*' exited $?"; }
	[ -s quiet.err ] && { cat quiet.err; fail "'$*' printed on stderr"; }
	return 0
}
# refused WHAT CMD...: CMD must fail with one error line containing WHAT, stdout empty
refused() {
	_what=$1
	shift
	"$@" >refused.out 2>refused.err && fail "'$*' was accepted"
	grep -q "error: .*$_what" refused.err || { cat refused.err; fail "'$*': no '$_what' in its error"; }
	[ "$(grep -c 'error:' refused.err)" = 1 ] || { cat refused.err; fail "'$*': not one error line"; }
	[ -s refused.out ] && { cat refused.out; fail "'$*' printed a report"; }
	return 0
}

# t309.1 accepted options that change nothing here: same report, silent stderr
for opt in --monotonic --tsc "--kvmclock 123e4567-e89b-12d3-a456-426614174000" \
	"--usage-self 1000" "--sampling-limit 100" "--watermark 20" -G --exclude-guest \
	--ptrace -q; do
	# shellcheck disable=SC2086
	quiet "$PP_ANALYZE" $S trace $opt
	check_output base.out quiet.out
done
quiet "$PP_ANALYZE" $S task-state --ptrace
# with -v each analysis-side one says why, once
"$PP_ANALYZE" $S trace --tsc --monotonic -v >/dev/null 2>notes.err || fail "trace --tsc -v"
assert_eq "--tsc notes" 1 "$(grep -c 'trace: --tsc: .*CLOCK_MONOTONIC.*times stay in ns' notes.err)"
assert_eq "--monotonic notes" 1 "$(grep -c 'trace: --monotonic: .*CLOCK_MONOTONIC already' notes.err)"

# t309.2 --monotonic: the sec.usec column is the capture's CLOCK_MONOTONIC time
# (sched-basic's first sample is at 1000.000100), the wall time stays the wall time
quiet "$PP_ANALYZE" $S trace --monotonic
head -1 quiet.out |
	grep -q '^2026-01-01 00:00:00.000100 .* \[000\] 1000.000100: sched:sched_wakeup:' ||
	{ head -1 quiet.out; fail "trace --monotonic's clock columns"; }

# t309.3 --clock-offset N adds N ns to the event clock, not to the wall time
clocks() {	# clocks ADD <TRACE: "wall time, event clock + ADD s" of each event line
	awk -v add="$1" '/^20/ { split($0, a, "] "); split(a[2], b, ":")
		printf "%s %.6f\n", substr($0, 1, 26), b[1] + add }'
}
quiet "$PP_ANALYZE" $S trace --clock-offset 2500000000
clocks 2.5 <base.out >shift.want
clocks 0 <quiet.out >shift.got
check_output shift.want shift.got
# ... and everything else on the lines is the same
sed -E 's/\] [0-9]+\.[0-9]+:/] T:/' base.out >b.n
sed -E 's/\] [0-9]+\.[0-9]+:/] T:/' quiet.out >q.n
check_output b.n q.n
# perf-prof drops the offset when it cannot convert to TSC; pp's clock never can be
quiet "$PP_ANALYZE" $S trace --clock-offset 2500000000 --tsc
check_output base.out quiet.out

# t309.4 refused options: one line naming what pp does instead
refused "--overwrite prints at the end: not with exec= or --flame-graph" "$PP_ANALYZE" $S trace \
	--overwrite --flame-graph x.folded
refused "--prio needs sched:sched_switch" "$PP_ANALYZE" $S profile --prio 1-99 -e irq:irq_handler_entry
refused "--python-callchain: .*no Python frames" "$PP_ANALYZE" $S trace -g --python-callchain
refused "--python-callchain" "$PP_ANALYZE" $S python --python-callchain -e sched:sched_switch x.py
refused "--symbols: .*address-to-symbol" "$PP_ANALYZE" $S trace --symbols /bin/true
refused "--prio 1-999: priorities 0-139" "$PP_RECORD" --for 'profile --prio 1-999' -o r.pp
refused "--watermark 101: expected 1 to 100" "$PP_RECORD" --for 'trace -e sched:sched_switch --watermark 101' -o r.pp
refused "-G/--exclude-host and --exclude-guest together" "$PP_RECORD" --for 'profile -G --exclude-guest' -o r.pp

# t309.5 cpus=LIST keeps the event on those CPUs only (sched-basic: 3 switches on CPU 1, 1 on 0)
quiet "$PP_ANALYZE" $S trace -e 'sched:sched_switch//cpus=1/'
assert_eq "cpus=1 switches" "001 001 001" "$(sed -n 's/.* \[\([0-9]*\)\] .*sched_switch.*/\1/p' quiet.out | tr '\n' ' ' | sed 's/ $//')"
quiet "$PP_ANALYZE" $S trace -e 'sched:sched_switch//cpus=0/,sched:sched_wakeup//cpus=0-1/'
assert_eq "cpus=0 switch, cpus=0-1 wakeup" "000 sched_wakeup 000 sched_switch" \
	"$(sed -n 's/.* \[\([0-9]*\)\] [0-9.]*: sched:\([a-z_]*\):.*/\1 \2/p' quiet.out | tr '\n' ' ' | sed 's/ $//')"
# with the event's own filter: both must hold
quiet "$PP_ANALYZE" $S trace -e 'sched:sched_switch/prev_pid>0/cpus=1/'
assert_eq "filter and cpus=" "201 100" "$(sed -n 's/.*prev_pid=\([0-9]*\) .*/\1/p' quiet.out | tr '\n' ' ' | sed 's/ $//')"
# every CPU named: everything
quiet "$PP_ANALYZE" $S trace -e 'sched:sched_switch//cpus=0-1/'
assert_eq "cpus=0-1" 4 "$(grep -c sched_switch quiet.out)"
# the same for an aggregating analyzer: top counts CPU 1's switches only
run_ok top.out "$PP_ANALYZE" $S top -e 'sched:sched_switch//cpus=1/' --format csv	# + a loss on stderr
assert_eq "top with cpus=1" "0,1,<idle> 100,1,bash 201,1,worker-renamed" \
	"$(grep -v '^key' top.out | sort | tr '\n' ' ' | sed 's/ $//')"
refused "cpus=4: the capture was recorded on 2 CPUs" "$PP_ANALYZE" $S trace -e 'sched:sched_switch//cpus=4/'

# t309.6 attributes of perf-prof's live pipes, batch=; analyzers as sources without their events
refused "push= .*pp-record -o FILE" "$PP_ANALYZE" $S trace -e 'sched:sched_switch//push=9900/'
refused "pull= .*pp-analyze FILE" "$PP_ANALYZE" $S multi-trace -e sched:sched_wakeup -e 'sched:sched_switch//pull=9900/'
refused "vm= .*guest" "$PP_ANALYZE" $S trace -e 'sched:sched_switch//vm=6c2e-11ee/'
refused "push= " "$PP_RECORD" -e 'sched:sched_switch//push=9900/' -o r.pp
# perf-prof has no batch= either: the parse error, with its caret line
"$PP_ANALYZE" $S trace -e 'sched:sched_switch//batch=4/' >refused.out 2>refused.err && fail "batch= accepted"
grep -q "\^ unknown attribute 'batch'" refused.err || { cat refused.err; fail "batch= error"; }
# an analyzer as an event source (t389): a capture without its events says so, naming it
refused "event 'profile/-F 500 -g/untraced/' is not in the capture" "$PP_ANALYZE" $S multi-trace \
	-e sched:sched_wakeup -e 'sched:sched_switch,profile/-F 500 -g/untraced/'
refused "'profile/--nosuch/': unknown option '--nosuch'" "$PP_RECORD" -e 'profile/--nosuch/' -o r.pp

# t309.6b --perfeval-cpus/-pids with --sampling-limit, on sched-basic's switches (CPU 1 at
# 0.15 ms, CPU 0 at 0.2 ms, CPU 1 at 3 and 5 ms), -i 1: per second, the interval's events and
# those on CPU 1; quiet intervals say nothing; over the limit the analysis ends there
run_ok pe.out "$PP_ANALYZE" $S trace -e sched:sched_switch --perfeval-cpus 1 -i 1
cat >pe.exp <<'EOT'
2026-01-01 00:00:00.001150 trace: perfeval cpus(1): sampled 2000 events matched 1000 on 1 instances
2026-01-01 00:00:00.003150 trace: perfeval cpus(1): sampled 1000 events matched 1000 on 1 instances
EOT
grep perfeval pe.out >pe.act
check_output pe.exp pe.act
run_ok pe.out "$PP_ANALYZE" $S trace -e sched:sched_switch --perfeval-pids 201 -i 1 --sampling-limit 500
grep -c 'sched_switch:' pe.out >pe.n
assert_eq "t309.6b events before the limit ended it" 3 "$(cat pe.n)"
grep -q 'perfeval pids(201): sampled 1000 events matched 1000 on 1 instances, exceeds the limit, exit$' pe.out ||
	{ cat pe.out; fail "t309.6b no limit line"; }
grep -q 'trace: perfeval: tid 201 sampled 1 events$' pe.out || { cat pe.out; fail "t309.6b no tid line"; }

# t309.6c trace --overwrite: at the end, the newest events that fit each CPU's -m pages (a
# sched_switch of sched-basic costs 144 bytes in a ring: 64 of header and sample fields, 8
# of callchain size, 72 of raw data), in time order; 200 switches on CPU 0 -> 28 in 4 KiB
sed -n '/^kv\|^event\|^task\|^sync/p' "$FIX/sched-basic.desc" | sed "s|formats/|$FIX/formats/|" >ow.desc
echo 'repeat 200 1000000' >>ow.desc
grep '^sample 1000.000200 0 200 200 1 ' "$FIX/sched-basic.desc" | sed 's/ stack=[^ ]*//' >>ow.desc
echo end >>ow.desc
"$CAPBUILD" ow.desc ow.ppcap || fail "capbuild ow"
run_ok ow.out "$PP_ANALYZE" ow.ppcap trace --overwrite -m 1
assert_eq "t309.6c kept events" 28 "$(grep -c 'sched:sched_switch' ow.out)"
assert_eq "t309.6c the newest first kept" "1000.172200:" "$(head -1 ow.out | awk '{ print $7 }')"
assert_eq "t309.6c the last one" "1000.199200:" "$(tail -1 ow.out | awk '{ print $7 }')"
run_ok ow2.out "$PP_ANALYZE" ow.ppcap trace --overwrite -m 2
assert_eq "t309.6c twice the pages" 56 "$(grep -c 'sched:sched_switch' ow2.out)"

# t309.6d perf-prof's eBPF filters: --exclude_pid drops a process's events (pid 200: its
# threads 200 and 201), the ones a capture cannot answer are refused naming what pp offers
run_ok ex.out "$PP_ANALYZE" $S trace --exclude_pid 200
assert_eq "t309.6d events without pid 200" 3 "$(grep -c ' \[00[01]\] ' ex.out)"
refused "--irqs_disabled: .*irq-off" "$PP_ANALYZE" $S profile --irqs_disabled=1
refused "--sched_policy: .*--prio" "$PP_ANALYZE" $S profile --sched_policy 1

# t309.6e --inherit: -p and -t also take the tasks they fork in the capture, and theirs
# (inherit.desc: thread 301 of process 300 forks 500, whose thread 501 forks 600); not a
# child there before the recording (350), nor unrelated ones (400, 700), nor tasks whose
# forks name each other (900, 901: the walk ends).  The core's filter (trace, top) and the
# analyzers that match tasks themselves (task-state, rundelay: the grandchild's 2 ms asleep
# and 0.5 ms waiting after the wakeup by 400)
build_fixture inherit
tids_of() {	# tids_of OPTIONS...: the tids trace prints, on one line
	run_ok inh.out "$PP_ANALYZE" inherit.ppcap trace -e sched:sched_wakeup "$@"
	awk '{ print $4 }' inh.out | tr '\n' ' '
}
assert_eq "t309.6e -p 300" "300 301 " "$(tids_of -p 300)"
assert_eq "t309.6e -p 300 --inherit" "300 301 500 501 600 " "$(tids_of -p 300 --inherit)"
assert_eq "t309.6e -t 301 --inherit" "301 500 501 600 " "$(tids_of -t 301 --inherit)"
assert_eq "t309.6e -t 300 --inherit" "300 " "$(tids_of -t 300 --inherit)"
assert_eq "t309.6e -p 950 --inherit" "" "$(tids_of -p 950 --inherit)"
assert_eq "t309.6e -p 800,900 --inherit" "800 900 901 " "$(tids_of -p 800,900 --inherit)"
run_ok inh.out "$PP_ANALYZE" inherit.ppcap top -e sched:sched_wakeup -p 300 --inherit
assert_eq "t309.6e top -p 300 --inherit: rows" "300 301 500 501 600 " \
	"$(awk '$1 ~ /^[0-9]+$/ { print $1 }' inh.out | tr '\n' ' ')"
run_ok inh.out "$PP_ANALYZE" inherit.ppcap task-state -p 300 --inherit --perins
grep -Eq '^ +600 grandchild +S +1 +2000\.000 ' inh.out || { cat inh.out; fail "t309.6e task-state --inherit: no S of 600"; }
grep -Eq '^ +600 grandchild +RD +1 +500\.000 ' inh.out || { cat inh.out; fail "t309.6e task-state --inherit: no RD of 600"; }
run_ok inh.out "$PP_ANALYZE" inherit.ppcap task-state -p 300 --perins
grep -q grandchild inh.out && { cat inh.out; fail "t309.6e task-state without --inherit: 600 there"; }
rd() { "$PP_ANALYZE" inherit.ppcap rundelay -e sched:sched_wakeup,sched:sched_switch -e sched:sched_switch -p 300 "$@"; }
rd --inherit >inh.out || fail "t309.6e rundelay --inherit"
grep -Eq '^sched_wakeup => sched_switch +1 +500\.000 ' inh.out || { cat inh.out; fail "t309.6e rundelay --inherit"; }
rd >inh.out || fail "t309.6e rundelay"
grep -q 'sched_wakeup =>' inh.out && { cat inh.out; fail "t309.6e rundelay without --inherit: a delay"; }

# t309.7 top reports every second without -i, as perf-prof's (-i 1000); -i 0 too
sed -n '/^kv\|^event\|^task\|^sync/p' "$FIX/sched-basic.desc" | sed "s|formats/|$FIX/formats/|" >iv.desc
for t in 1000.100000 1000.500000 1001.200000 1002.700000; do
	echo "sample $t 0 100 100 1 prev_comm=bash prev_pid=100 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120"
done >>iv.desc
"$CAPBUILD" iv.desc iv.ppcap || fail "capbuild iv.desc"
quiet "$PP_ANALYZE" iv.ppcap top -e sched:sched_switch --format csv
cp quiet.out top-default.out
assert_eq "top tables without -i" "key,SCHED_SWITCH,comm 100,2,bash key,SCHED_SWITCH,comm 100,1,bash key,SCHED_SWITCH,comm 100,1,bash" \
	"$(tr '\n' ' ' <top-default.out | sed 's/ $//')"
quiet "$PP_ANALYZE" iv.ppcap top -e sched:sched_switch --format csv -i 1000
check_output top-default.out quiet.out
quiet "$PP_ANALYZE" iv.ppcap top -e sched:sched_switch --format csv -i 0
check_output top-default.out quiet.out

# --- live: pp-record and pp on this machine --------------------------------
if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events/sched/sched_switch ]; then
	echo "note: the live checks need root and tracefs; the offline ones passed"
	exit 0
fi

# t309.8 max-stack=N: pp-record asks the kernel for N frames at most
frames() {	# frames CAPTURE: the largest number of frames under one event
	"$PP_ANALYZE" "$1" trace -g | awk '/^20/ { if (n > m) m = n; n = 0; next } { n++ }
		END { if (n > m) m = n; print m + 0 }'
}
"$PP_RECORD" -q -e 'sched:sched_switch//max-stack=2/' -o ms.pp -- "$PP_LOAD/ctxsw" -n 2000 >/dev/null 2>&1 ||
	fail "pp-record max-stack="
"$PP_RECORD" -q -e 'sched:sched_switch//stack/' -o st.pp -- "$PP_LOAD/ctxsw" -n 2000 >/dev/null 2>&1 ||
	fail "pp-record stack"
assert_ge "frames under a whole stack" 3 "$(frames st.pp)"
assert_between "frames under max-stack=2" 1 2 "$(frames ms.pp)"
# ... and offline, pp-analyze cuts a capture's whole stacks to N real frames
frames_sel() {	# frames_sel CAPTURE SELECTOR
	"$PP_ANALYZE" "$1" trace -e "$2" -g | awk '/^20/ { if (n > m) m = n; n = 0; next } { n++ }
		END { if (n > m) m = n; print m + 0 }'
}
assert_eq "frames under an offline max-stack=1" 1 "$(frames_sel st.pp 'sched:sched_switch//max-stack=1/')"
assert_eq "frames under an offline max-stack=2" 2 "$(frames_sel st.pp 'sched:sched_switch//max-stack=2/')"

# t309.9 accepted through pp and pp-record --for: nothing on stderr, events analysed
LOAD="exec $PP_LOAD/ctxsw -n 200 2>/dev/null"	# the load's own line goes to stderr
quiet "$PP" trace -e sched:sched_switch --inherit --ptrace --tsc --monotonic --clock-offset 7 \
	--usage-self 100 --sampling-limit 10 --watermark 20 --exclude-guest -- sh -c "$LOAD"
assert_ge "pp trace lines" 200 "$(grep -c 'sched:sched_switch' quiet.out)"
# with -v, each note once: pp-record says the record-side ones, pp-analyze the others
"$PP" trace -e sched:sched_switch --ptrace --tsc --usage-self 100 -v -- sh -c "$LOAD" \
	>/dev/null 2>live.err || { cat live.err; fail "pp trace -v"; }
for n in "pp-record: trace: --ptrace:" "pp-record: trace: --usage-self:" \
	"pp-analyze: trace: --tsc:"; do
	assert_eq "'$n' lines" 1 "$(grep -c -- "$n" live.err)"
done
# live refusals: pp-record names pp's way first
"$PP" profile --prio 1-999 >/dev/null 2>live.err && fail "pp profile --prio 1-999"
grep -q "pp-record: error: .*--prio 1-999: priorities 0-139" live.err || { cat live.err; fail "pp --prio"; }

# t309.9b --inherit live: a shell forking /bin/true in a loop; each child's exec is its own
# event, which `pp trace -p SHELL` leaves out and --inherit keeps (-N 20 ends it)
sh -c 'while :; do /bin/true; done' &
fl=$!
timeout -s INT 30 "$PP" trace -e sched:sched_process_exec -p $fl --inherit -N 20 >inh.out 2>inh.err ||
	{ cat inh.err; kill $fl; fail "pp trace -p --inherit -N 20 exited $?"; }
timeout -s INT 2 "$PP" trace -e sched:sched_process_exec -p $fl >noinh.out 2>noinh.err
kill $fl
assert_eq "t309.9b children's execs with --inherit" 20 "$(grep -c ' true .*sched:sched_process_exec: filename=/bin/true' inh.out)"
assert_eq "t309.9b children's execs without it" 0 "$(grep -c 'sched:sched_process_exec' noinh.out)"

# t309.10 --watermark reaches pp-record: the tracefs instance wakes it at half of it
# (record/ftrace/ftrace.c's buffer_percent), 25 by default.
"$PP_RECORD" -q --for 'trace -e sched:sched_switch --watermark 80' -o wm.pp --duration 2 &
rec=$!
sleep 1
bp=$(cat /sys/kernel/tracing/instances/pp-$rec/buffer_percent 2>/dev/null)
wait $rec || fail "pp-record --for '... --watermark 80'"
[ -n "$bp" ] || skip "no tracefs instance of pp-record to read (tracepoints through perf rings here)"
assert_eq "buffer_percent for --watermark 80" 40 "$bp"
exit 0
