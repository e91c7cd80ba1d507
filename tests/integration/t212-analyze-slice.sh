#!/bin/sh
# SPDX-License-Identifier: MIT
# t212-analyze-slice: `pp-analyze FILE slice [--time A,B] [--pid P] [-e EVENTS] -o OUT`
# writes a smaller capture that stands on its own, on which analyzers given the same
# --time, -p and -e print what they print on the original (issue 20).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

# t212.1 refusals
build_fixture sched-basic sb.ppcap
"$PP_ANALYZE" sb.ppcap slice --time 1,2 2>err.out && fail "slice without -o accepted"
grep -q -- "-o OUT is required" err.out || { cat err.out; fail "slice without -o: message"; }
"$PP_ANALYZE" sb.ppcap slice -e 'sched:sched_switch/prev_pid==1/' -o x.ppcap 2>err.out &&
	fail "slice -e with a filter accepted"
grep -q "keeps whole events" err.out || { cat err.out; fail "slice -e filter: message"; }
"$PP_ANALYZE" sb.ppcap slice --time 2,1 -o x.ppcap 2>err.out; [ $? = 2 ] || fail "--time 2,1: exit 2"
grep -q "the end is before the start" err.out || { cat err.out; fail "--time 2,1: message"; }

# t212.2 on the fixture: one task's events of a range; names and kernel stacks still resolve
run_ok s.out "$PP_ANALYZE" sb.ppcap slice --time 1000.000150,1000.003 --pid 200 -o sb-s.ppcap
"$PP_ANALYZE" sb.ppcap trace -g --time 1000.000150,1000.003 -p 200 >a.orig 2>&1
"$PP_ANALYZE" sb-s.ppcap trace -g --time 1000.000150,1000.003 -p 200 >a.slice 2>&1
check_output a.orig a.slice
# the slice holds the events that name the process too (task-state follows a task
# through the sched_switch of another: next_pid=201 is a thread of 200), no other
"$PP_ANALYZE" sb-s.ppcap trace >a.all 2>&1
grep -q 'next_pid=201' a.all || { cat a.all; fail "the switch to a thread of 200 was left out"; }
grep -q 'irq_handler_entry' a.all && fail "the slice kept an event of no kept process"
"$PP_ANALYZE" sb-s.ppcap dump | grep -q '^KV slice.pids=200' || fail "the slice does not say what it kept"

# t212.3 a recording of this machine: a process, a range and the scheduler and syscall
# events; then a range of everything
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
record_with_load sleeper -e 'sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit,cpu-clock' \
	-g -a -o o.ppcap -- "$PP_LOAD/sleeper" -m mixed -n 300 -s 1ms
pid=$(load_field "$LOAD" pid)
run_ok info.json "$PP_ANALYZE" o.ppcap info --format json
range=$(python3 -c '
import json
i = json.load(open("info.json"))
f, l = i["first_ns"], i["last_ns"]
a, b = f + (l - f) * 3 // 10, f + (l - f) * 7 // 10
print("%d.%09d,%d.%09d" % (a // 10**9, a % 10**9, b // 10**9, b % 10**9))')
run_ok s1.out "$PP_ANALYZE" o.ppcap slice --time "$range" --pid "$pid" -e 'sched:*,raw_syscalls:*' -o s1.ppcap
# same FILTERS ANALYZER ARGS: the report on the original and on the slice, given FILTERS
# (NAMES=numbers: names aside - a replay given --time skips the side-band records of the
# segments before the range, so the original may not know an exec's new name; the slice
# keeps the whole task history and knows it)
same() {
	_f=$1
	shift
	"$PP_ANALYZE" o.ppcap "$@" $_f >a.orig 2>&1 || { cat a.orig; fail "$* $_f on the original"; }
	"$PP_ANALYZE" "$SLICE" "$@" $_f >a.slice 2>&1 || { cat a.slice; fail "$* $_f on the slice"; }
	[ "$(wc -l <a.orig)" -ge 2 ] || { cat a.orig; fail "$*: no report"; }
	if [ "${NAMES:-}" = numbers ]; then
		norm <a.orig >a.orig.n && mv a.orig.n a.orig
		norm <a.slice >a.slice.n && mv a.slice.n a.slice
	fi
	cmp -s a.orig a.slice || { diff a.orig a.slice | head -20; fail "$* $_f: the slice differs"; }
}
norm() { awk 'NR > 1 { for (i = 1; i <= NF; i++) if ($i ~ /[A-Za-z]/) $i = "X" } { print }'; }
SLICE=s1.ppcap
F="--time $range -p $pid"
NAMES=numbers same "$F" task-state --perins
same "$F" task-state
NAMES=numbers same "$F" rundelay --perins
NAMES=numbers same "$F" syscalls --perins
same "$F" syscalls
same "$F" top -e 'raw_syscalls:sys_enter//key=common_pid/'
same "$F" top -e 'sched:sched_switch//key=prev_pid/'
# what holds no other process: the slice alone gives the same numbers
"$PP_ANALYZE" o.ppcap syscalls $F >a.orig 2>&1
"$PP_ANALYZE" s1.ppcap syscalls >a.slice 2>&1
cmp -s a.orig a.slice || { diff a.orig a.slice | head; fail "syscalls on the slice alone differs"; }
# smaller, and whole: integrity ok, the load's binaries and the kernel symbols are there
o_sz=$(stat -c %s o.ppcap)
s_sz=$(stat -c %s s1.ppcap)
[ "$s_sz" -lt $((o_sz / 2)) ] || fail "the slice ($s_sz bytes) is not much smaller than $o_sz"
run_ok s1.info "$PP_ANALYZE" s1.ppcap info
grep -q '^integrity    ok' s1.info || { cat s1.info; fail "the slice is not a whole capture"; }
grep -q 'symbols      kernel: yes' s1.info || fail "the slice lost the kernel symbols"
grep -q "user: [1-9][0-9]* binaries" s1.info || { cat s1.info; fail "the slice lost the load's binaries"; }
grep -q '^  cpu-clock ' s1.info && fail "the slice kept an event -e left out"
# kernel symbols: those the kept samples need (all with --all-ksyms)
ksyms() { sed -n 's/^symbols      kernel: yes (\([0-9]*\)).*/\1/p' "$1"; }
run_ok o.info "$PP_ANALYZE" o.ppcap info
[ "$(ksyms s1.info)" -lt "$(ksyms o.info)" ] || fail "the slice kept every kernel symbol"
run_ok /dev/null "$PP_ANALYZE" o.ppcap slice --time "$range" --pid "$pid" --all-ksyms -o s1a.ppcap
run_ok s1a.info "$PP_ANALYZE" s1a.ppcap info
assert_eq "kernel symbols with --all-ksyms" "$(ksyms o.info)" "$(ksyms s1a.info)"

# every event and process up to the range's end, stacks included: names and user frames
# too are the original's (a range that starts at the beginning skips no side-band)
end=${range#*,}
run_ok s2.out "$PP_ANALYZE" o.ppcap slice --time ",$end" -o s2.ppcap
SLICE=s2.ppcap
F="--time ,$end"
same "$F" profile -g --no-inline
same "$F" task-state --perins
same "$F" syscalls --perins
same "$F" trace -e raw_syscalls:sys_exit -g
[ "$(stat -c %s s2.ppcap)" -lt "$o_sz" ] || fail "a slice of the first 70% is not smaller"
# a slice is a capture: scrub it, the numbers stay
run_ok /dev/null "$PP_ANALYZE" s1.ppcap scrub -o s1-s.ppcap
"$PP_ANALYZE" s1.ppcap syscalls >a.orig && "$PP_ANALYZE" s1-s.ppcap syscalls >a.slice &&
	cmp -s a.orig a.slice || fail "syscalls on the scrubbed slice differs"
