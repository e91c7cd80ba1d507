#!/bin/sh
# SPDX-License-Identifier: MIT
# t384-hwcounters-golden: perf-prof's hardware-counter analyzers on built captures with known
# counts and samples, and their refusals on a machine without a hardware PMU.
#  .1 hwstat per CPU each second: CYCLES INSNS IPC RUN% - CPU 1 multiplexed (75, 50, 33.33%),
#     its RUN% the cycles counter's even though instructions ran all the time
#  .2 hwstat -i 2000 (two periods a round: RUN% 62.50), -C 1 as JSON, -i 1500 and -e refused
#  .3 llcstat: REFERENCE MISSES HIT% RUN% (HIT% 0 when misses are not fewer), CSV
#  .4 tlbstat: LOADS MISSES HIT% STORES MISSES HIT% RUN%, RUN% of dTLB-load-misses, CSV
#  .5 split-lock: the round's sampled RIPs by count and the CPUs' counts with RUN%; -g prints
#     each sample and its stack before its round; JSON; a sample after the last reading
#  .6 ldlat-loads: the data_src table (perf's text, sorted by the word), --perins --than 100
#     (the slow samples' lines), ldlat-stores per -i, JSON
#  .7 plan refusals in one line: -p on the CPU-bound ones, split-lock --test and a CPU of
#     another vendor, ldlat-loads --ldlat out of range; hardware-cache names in suggestions
#  .8 here (no hardware PMU): pp ANALYZER and pp-record --for ANALYZER stop with one line
#     naming the missing hardware PMU and what has one, exit status 2
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture hwcounters
build_fixture splitlock
build_fixture ldlat

# t384.1
run_ok actual "$PP_ANALYZE" hwcounters.ppcap hwstat
check_golden t384/1 actual

# t384.2
run_ok actual "$PP_ANALYZE" hwcounters.ppcap hwstat -i 2000
check_golden t384/2 actual
run_ok actual "$PP_ANALYZE" hwcounters.ppcap hwstat -C 1 --format json
check_golden t384/2b actual
"$PP_ANALYZE" hwcounters.ppcap hwstat -i 1500 >out 2>err && fail "t384.2: -i 1500 accepted"
grep -q 'not a multiple of the period' err || { cat err; fail "t384.2: -i 1500"; }
assert_eq "t384.2 -i 1500: one line" 1 "$(wc -l <err)"
"$PP_ANALYZE" hwcounters.ppcap hwstat -e cycles >out 2>err && fail "t384.2: -e accepted"
grep -q 'does not take -e' err || { cat err; fail "t384.2: -e"; }

# t384.3
run_ok actual "$PP_ANALYZE" hwcounters.ppcap llcstat
check_golden t384/3 actual
run_ok actual "$PP_ANALYZE" hwcounters.ppcap llcstat -C 0 --format csv
check_golden t384/3b actual

# t384.4
run_ok actual "$PP_ANALYZE" hwcounters.ppcap tlbstat
check_golden t384/4 actual
run_ok actual "$PP_ANALYZE" hwcounters.ppcap tlbstat -i 3000 --format csv
check_golden t384/4b actual

# t384.5
run_ok actual "$PP_ANALYZE" splitlock.ppcap split-lock
check_golden t384/5 actual
run_ok actual "$PP_ANALYZE" splitlock.ppcap split-lock -g -i 2000 -C 1
check_golden t384/5b actual
run_ok actual "$PP_ANALYZE" splitlock.ppcap split-lock --format json
check_golden t384/5c actual
"$PP_ANALYZE" hwcounters.ppcap split-lock >out 2>err && fail "t384.5: split-lock without r10f4/r125"
grep -q 'no split-lock event (r10f4 on Intel, r125 on AMD)' err || { cat err; fail "t384.5 refusal"; }

# t384.6
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-loads
check_golden t384/6 actual
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-loads --perins --than 100
check_golden t384/6b actual
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-stores -i 1000 -p 2000 --perins
check_golden t384/6c actual
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-loads -C 1 --format json
check_golden t384/6d actual

# t384.7 (plan refusals come before any event is opened: no PMU or root needed)
refused() {	# refused WHAT PATTERN CMD...: exit 2 and one stderr line matching PATTERN
	_what=$1 _pat=$2
	shift 2
	st=0; "$@" >out 2>err || st=$?
	assert_eq "$_what: exit status" 2 "$st"
	grep -q -- "$_pat" err || { cat err; fail "$_what: no '$_pat'"; }
	assert_eq "$_what: stderr lines" 1 "$(wc -l <err)"
}
for a in hwstat llcstat tlbstat; do
	refused "t384.7 $a -p" "$a can only be bound to CPU" "$PP_RECORD" --for "$a -p 1" -o r.pp
done
refused "t384.7 split-lock --test" "--test: pp starts no load of its own" \
	"$PP_RECORD" --for 'split-lock --test' -o r.pp
PP_CPU_VENDOR=ARM refused "t384.7 split-lock on another CPU" \
	"split-lock exists only on Intel and AMD x86 CPUs (this one: ARM)" \
	"$PP_RECORD" --for split-lock -o r.pp
refused "t384.7 --ldlat 70000" "--ldlat 70000: at most 65535 cycles" \
	"$PP_RECORD" --for 'ldlat-loads --ldlat 70000' -o r.pp
refused "t384.7 suggestion" "did you mean dTLB-loads" "$PP_RECORD" -e dtlb-loads -o r.pp

# t384.8
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	echo "t384.8: this machine has a hardware PMU: the refusals are not tested"
	echo PASS
	exit 0
fi
nopmu="needs a hardware PMU and this machine has none (bare metal or a VM with a virtual PMU has one"
refused "t384.8 pp hwstat" "pp-record: error: hardware event 'cycles' $nopmu" "$PP" hwstat -i 1000
refused "t384.8 pp-record --for hwstat" "hardware event 'cycles' $nopmu" \
	"$PP_RECORD" --for hwstat -o r.pp
refused "t384.8 pp llcstat" "hardware event 'cache-references' $nopmu" "$PP" llcstat
refused "t384.8 pp tlbstat" "hardware event 'dTLB-load-misses' $nopmu" "$PP" tlbstat -C 0
refused "t384.8 pp split-lock" "hardware event 'r1[02][0-9a-f]*' $nopmu" "$PP" split-lock -T 1000
refused "t384.8 pp ldlat-loads" "hardware event 'mem-loads' $nopmu" "$PP" ldlat-loads
refused "t384.8 pp-record --for ldlat-stores" "hardware event 'mem-stores' $nopmu" \
	"$PP_RECORD" --for ldlat-stores -o r.pp
refused "t384.8 a raw event" "hardware event 'r10f4' $nopmu" "$PP_RECORD" -e r10f4 -o r.pp
echo PASS
