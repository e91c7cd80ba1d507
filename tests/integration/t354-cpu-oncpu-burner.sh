#!/bin/sh
# SPDX-License-Identifier: MIT
# t354-cpu-oncpu-burner: a burner pinned to one CPU.  Per CPU (sched_switch), its time on
# that CPU matches its own CPU time (getrusage user+sys in cpuburn's LOAD line) within
# 10 %, and with SCHED_FIFO it holds the CPU nearly all the time (the kernel leaves 5 %
# to others: sched_rt_runtime_us).  Per thread (sched_stat_runtime, -p) the same.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_stat_runtime
command -v python3 >/dev/null || skip "needs python3 to read the JSON"

idle_cpu
cpu=$IDLE_CPU	# the burner is switched in from idle: that must be traced
burn="$PP_LOAD/cpuburn -d 3 -c $cpu"
fifo=0
if chrt -f 10 true 2>/dev/null; then burn="chrt -f 10 $burn"; fifo=1; fi
"$PP_RECORD" -e sched:sched_switch -e sched:sched_stat_runtime -a -m 1024 -o oncpu.pp -- $burn \
	>rec.out 2>rec.err || { cat rec.err; fail "pp-record"; }
load=$(grep '^LOAD cpuburn' rec.err) || fail "no LOAD line"
lv() { printf '%s\n' "$load" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
pid=$(lv pid)
cpu_ms=$(awk -v u="$(lv user_s)" -v s="$(lv sys_s)" 'BEGIN { printf "%d", (u + s) * 1000 }')
wall_ms=$(awk -v w="$(lv wall_s)" 'BEGIN { printf "%d", w * 1000 }')

# t354.1 per CPU, one report over the whole capture
"$PP_ANALYZE" oncpu.pp oncpu -C "$cpu" -i 100000 --format json >cpu.json || fail "oncpu -C"
ms=$(python3 -c "
import json
rows = [r for l in open('cpu.json') for r in json.loads(l)['oncpu']]
print(int(sum(r['ms'] for r in rows if r['tid'] == $pid and r['cpu'] == $cpu)))")
assert_between "burner's ms on CPU $cpu vs its CPU time $cpu_ms ms" \
	$((cpu_ms * 9 / 10)) $((cpu_ms * 11 / 10)) "$ms"
[ $fifo = 1 ] && assert_between "burner's share of CPU $cpu (ms of $wall_ms)" \
	$((wall_ms * 85 / 100)) $((wall_ms + 50)) "$ms"

# t354.2 the text layout: CPU line with the burner first
"$PP_ANALYZE" oncpu.pp oncpu -C "$cpu" -i 100000 --detail >cpu.txt || fail "oncpu text"
grep -q '^CPU SUM(ms) COMM:TID(ms/switches/max_ms)$' cpu.txt || fail "no header"
[ $fifo = 1 ] && { grep -Eq "^$(printf %03d "$cpu") [0-9]+ +cpuburn:$pid\(" cpu.txt ||
	{ cat cpu.txt; fail "the burner is not first on CPU $cpu"; }; }

# t354.3 per thread from sched_stat_runtime
"$PP_ANALYZE" oncpu.pp oncpu -p "$pid" -i 100000 --format json >thr.json || fail "oncpu -p"
ms=$(python3 -c "
import json
rows = [r for l in open('thr.json') for r in json.loads(l)['oncpu']]
print(int(sum(r['ms'] for r in rows if r['tid'] == $pid)))")
assert_between "burner's sched_stat_runtime vs its CPU time $cpu_ms ms" \
	$((cpu_ms * 9 / 10)) $((cpu_ms * 11 / 10)) "$ms"
"$PP_ANALYZE" oncpu.pp oncpu -p "$pid" -i 100000 >thr.txt || fail "oncpu -p text"
grep -Eq "^$pid +cpuburn +[0-9]+ +$cpu\([0-9]+ms\)" thr.txt || { cat thr.txt; fail "no thread line"; }
exit 0
