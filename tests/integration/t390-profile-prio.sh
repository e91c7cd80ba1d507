#!/bin/sh
# SPDX-License-Identifier: MIT
# t390-profile-prio: profile --prio (perf-prof's priority filter) on real samples.  A CPU
# burner runs SCHED_FIFO 50 (kernel priority 49) pinned to CPU 0 for 1 s while another runs
# at nice 0 (120) on CPU 1: --prio 0-99 keeps the real-time burner's samples (about a second
# of them at 997 Hz, nearly all of its process: pp-record's ring reader is real-time too), --prio 120 the other's; the ranges 0-99 and 100-139
# together are every sample whose CPU had switched once; a bad list is one line.  (A task's
# priority is the one it last switched in with: chrt's child sleeps once at its new priority.)
# .4 on a built capture (tests/fixtures/profile-prio.desc): a sample sorted just after or
# just before a switch has the priority of the task it names (the last one a switch gave it).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

# t390.4 first: it needs no event of this machine
PP_JOBS_CHECK=0 build_fixture profile-prio
fsamples() { "$PP_ANALYZE" profile-prio.ppcap profile --prio "$1" | sed -n 's/^profile: \([0-9]*\) samples.*/\1/p'; }
assert_eq "t390.4 real-time samples at switch boundaries (migration/0's only)" 4 "$(fsamples 0-99)"
assert_eq "t390.4 nice-0 samples at switch boundaries" 14 "$(fsamples 100-139)"
assert_eq "t390.4 every sample of a task with a known priority" 18 "$(fsamples 0-139)"
"$PP_ANALYZE" profile-prio.ppcap profile --prio 0-99 --format json 2>/dev/null >fx.json
grep -q '"pid":15,"comm":"migration/0","samples":4' fx.json || { cat fx.json; fail "t390.4 the real-time samples are not migration/0's"; }
need_event sched:sched_switch
command -v chrt >/dev/null 2>&1 || skip "no chrt (util-linux) to start a real-time task"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

"$PP_RECORD" -q --for 'profile --prio 0-139' -a -o prio.cap -- sh -c \
	"chrt -f 50 sh -c 'sleep 0.05; exec $PP_LOAD/cpuburn -d 1 -c 0' 2>rt.err &
	 $PP_LOAD/cpuburn -d 1 -c 1 2>nrm.err; wait" \
	2>rec.err || { cat rec.err; fail "record"; }
rtpid=$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' rt.err)
[ -n "$rtpid" ] || rtpid=$(grep -o 'pid=[0-9]*' rt.err | head -1 | cut -d= -f2)
procs() { "$PP_ANALYZE" prio.cap profile --prio "$1" --format json 2>/dev/null; }
samples() { "$PP_ANALYZE" prio.cap profile --prio "$1" | sed -n 's/^profile: \([0-9]*\) samples.*/\1/p'; }
rt=$(samples 0-99)
low=$(samples 100-139)
all=$(samples 0-139)
echo "rt=$rt normal=$low all=$all"
assert_ge "t390.1 real-time samples (1 s at 997 Hz)" 800 "$rt"
assert_eq "t390.2 the two ranges make every sample" "$all" $((rt + low))
"$PP_ANALYZE" prio.cap profile --prio 0-99 >rt.txt
grep -q 'cpuburn' rt.txt || { cat rt.txt; fail "t390.1 the real-time samples are not the burner's"; }
# the burner has its second at 997 Hz; the other real-time samples can only be pp-record's
# (its ring reader runs SCHED_FIFO: on a busy machine it wakes more), the burner's starter
# (chrt's sh, its sleep) and the burner's own helpers (under ASan, LeakSanitizer's tracer
# at its exit, a process named cpuburn too), or another real-time task of the machine (the
# kernel's migration/N, irq/N-..., which a busy machine wakes more) - never the nice-0
# burner, nor any task that is not real-time (its policy, asked now: a task gone since must
# be one of ours)
burner=$(awk -v pid="$rtpid" '$1 == pid { print $3 }' rt.txt)
assert_between "t390.1 the real-time burner's samples (pid $rtpid, 1 s at 997 Hz)" 800 1100 "${burner:-0}"
nrmpid=$(grep -o 'pid=[0-9]*' nrm.err | head -1 | cut -d= -f2)
[ -n "$nrmpid" ] || { cat nrm.err; fail "no pid in the nice-0 burner's LOAD line"; }
awk -v pid="$rtpid" '/^ *PID COMM/ { t = 1; next } t && $1 ~ /^[0-9]+$/ && $1 != pid { print $1, $2 }' \
	rt.txt >others.txt
# policy PID: the scheduling policy of a live process (field 41 of /proc/PID/task/TID/stat,
# counted after the comm's closing parenthesis: 1 FIFO, 2 RR, 6 DEADLINE): the real-time one
# of any of its threads (another test's pp-record has a SCHED_FIFO ring reader beside a
# SCHED_OTHER main thread), else its main thread's; empty if the process is gone
policy() {
	cat /proc/"$1"/task/*/stat 2>/dev/null | sed -n 's/.*) //p' |
		awk 'NR == 1 { p = $39 } $39 == 1 || $39 == 2 || $39 == 6 { p = $39; exit } END { print p }'
}
while read -r opid ocomm; do
	[ "$opid" != "$nrmpid" ] || { cat rt.txt; fail "t390.1 real-time samples of the nice-0 burner"; }
	case $(policy "$opid") in
	1 | 2 | 6) continue ;;
	"") case $ocomm in pp-record | sh | sleep | chrt | cpuburn) continue ;; esac ;;
	esac
	cat rt.txt
	fail "t390.1 real-time samples of a task that is not real-time: $opid $ocomm"
done <others.txt
"$PP_ANALYZE" prio.cap profile --prio 200 >/dev/null 2>bad.err && fail "t390.3 --prio 200 accepted"
assert_eq "t390.3 one line" 1 "$(wc -l <bad.err)"
echo PASS
