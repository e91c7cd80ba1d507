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
cat >expect <<'EOT'
2026-01-01 00:00:01.000010 
[CPU]     CYCLES      INSNS    IPC     RUN%
[000] 2000000000 3000000000   1.50  100.00%
[001] 1500000000 1200000000   0.80   75.00%
2026-01-01 00:00:02.000010 
[CPU]     CYCLES      INSNS    IPC     RUN%
[000] 1000000000  500000000   0.50  100.00%
[001]  800000000 2000000000   2.50   50.00%
2026-01-01 00:00:03.000010 
[CPU]     CYCLES      INSNS    IPC     RUN%
[000]    4000000    1000000   0.25  100.00%
[001]  333333333  111111111   0.33   33.33%
EOT
check_output expect actual

# t384.2
run_ok actual "$PP_ANALYZE" hwcounters.ppcap hwstat -i 2000
cat >expect <<'EOT'
2026-01-01 00:00:02.000010 
[CPU]     CYCLES      INSNS    IPC     RUN%
[000] 3000000000 3500000000   1.17  100.00%
[001] 2300000000 3200000000   1.39   62.50%
2026-01-01 00:00:04.000010 
[CPU]     CYCLES      INSNS    IPC     RUN%
[000]    4000000    1000000   0.25  100.00%
[001]  333333333  111111111   0.33   33.33%
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" hwcounters.ppcap hwstat -C 1 --format json
cat >expect <<'EOT'
{"time":"2026-01-01 00:00:01.000020","cpu":1,"cycles":1500000000,"instructions":1200000000,"ipc":0.80,"run_pct":75.00}
{"time":"2026-01-01 00:00:02.000020","cpu":1,"cycles":800000000,"instructions":2000000000,"ipc":2.50,"run_pct":50.00}
{"time":"2026-01-01 00:00:03.000020","cpu":1,"cycles":333333333,"instructions":111111111,"ipc":0.33,"run_pct":33.33}
EOT
check_output expect actual
"$PP_ANALYZE" hwcounters.ppcap hwstat -i 1500 >out 2>err && fail "t384.2: -i 1500 accepted"
grep -q 'not a multiple of the period' err || { cat err; fail "t384.2: -i 1500"; }
assert_eq "t384.2 -i 1500: one line" 1 "$(wc -l <err)"
"$PP_ANALYZE" hwcounters.ppcap hwstat -e cycles >out 2>err && fail "t384.2: -e accepted"
grep -q 'does not take -e' err || { cat err; fail "t384.2: -e"; }

# t384.3
run_ok actual "$PP_ANALYZE" hwcounters.ppcap llcstat
cat >expect <<'EOT'
2026-01-01 00:00:01.000010 
[CPU] L3 REFERENCE    MISSES    HIT%    RUN%  MISS-LATENCY
[000]      1000000    250000  75.00% 100.00%  <not supported>
[001]      2000000     20000  99.00%  75.00%  <not supported>
2026-01-01 00:00:02.000010 
[CPU] L3 REFERENCE    MISSES    HIT%    RUN%  MISS-LATENCY
[000]            0         0   0.00% 100.00%  <not supported>
[001]            3         1  66.67%  50.00%  <not supported>
2026-01-01 00:00:03.000010 
[CPU] L3 REFERENCE    MISSES    HIT%    RUN%  MISS-LATENCY
[000]          400       500   0.00% 100.00%  <not supported>
[001]       123456     23456  81.00%  33.33%  <not supported>
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" hwcounters.ppcap llcstat -C 0 --format csv
cat >expect <<'EOT'
time,cpu,references,misses,hit_pct,run_pct
2026-01-01 00:00:01.000010,0,1000000,250000,75.00,100.00
2026-01-01 00:00:02.000010,0,0,0,0.00,100.00
2026-01-01 00:00:03.000010,0,400,500,0.00,100.00
EOT
check_output expect actual

# t384.4
run_ok actual "$PP_ANALYZE" hwcounters.ppcap tlbstat
cat >expect <<'EOT'
2026-01-01 00:00:01.000010 
[CPU]     LOADS    MISSES     HIT%    STORES    MISSES     HIT%    RUN%
[000]  10000000    100000   99.00%   5000000     50000   99.00% 100.00%
[001]   3000000     30000   99.00%      4000      1000   75.00%  75.00%
2026-01-01 00:00:02.000010 
[CPU]     LOADS    MISSES     HIT%    STORES    MISSES     HIT%    RUN%
[000]      8000      2000   75.00%         0         0    0.00% 100.00%
[001]      1000       500   50.00%      1000       900   10.00%  50.00%
2026-01-01 00:00:03.000010 
[CPU]     LOADS    MISSES     HIT%    STORES    MISSES     HIT%    RUN%
[000]         1         1    0.00%         3         2   33.33% 100.00%
[001]         0         0    0.00%         0         0    0.00%  33.33%
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" hwcounters.ppcap tlbstat -i 3000 --format csv
cat >expect <<'EOT'
time,cpu,loads,load_misses,load_hit_pct,stores,store_misses,store_hit_pct,run_pct
2026-01-01 00:00:03.000010,0,10008001,102001,98.98,5000003,50002,99.00,100.00
2026-01-01 00:00:03.000010,1,3001000,30500,98.98,5000,1900,62.00,52.78
EOT
check_output expect actual

# t384.5
run_ok actual "$PP_ANALYZE" splitlock.ppcap split-lock
cat >expect <<'EOT'
2026-01-01 00:00:01.000010 split-lock
      SAMPLED_RIP     N
 0000000000401136     2 host-user
 0000000000401150     1 host-user
 CPU  SPLIT_LOCKS  RUN%
   0         3000   100
2026-01-01 00:00:02.000010 split-lock
      SAMPLED_RIP     N
 0000000000401136     2 host-user
 ffffffff81234567     1 host-kernel
 CPU  SPLIT_LOCKS  RUN%
   0         1000    50
   1         2000   100
      SAMPLED_RIP     N
 0000000000401150     1 host-user
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" splitlock.ppcap split-lock -g -i 2000 -C 1
cat >expect <<'EOT'
2026-01-01 00:00:01.400000     pid   1000 tid   1001 [001] 1001.400000: split-lock: 1000 host-user ip 00401136
    0000000000401136 bump_counter+0x36 (/usr/bin/splitter)
    00000000004011a0 main+0x20 (/usr/bin/splitter)
2026-01-01 00:00:01.900000     pid   1000 tid   1001 [001] 1001.900000: split-lock: 1000 host-user ip 00401136
    0000000000401136 bump_counter+0x36 (/usr/bin/splitter)
    00000000004011a0 main+0x20 (/usr/bin/splitter)
2026-01-01 00:00:02.000020 split-lock
      SAMPLED_RIP     N
 0000000000401136     2 host-user
 CPU  SPLIT_LOCKS  RUN%
   1         2000   100
2026-01-01 00:00:03.500000     pid   1000 tid   1001 [001] 1003.500000: split-lock: 1000 host-user ip 00401150
    0000000000401150 bump_counter+0x50 (/usr/bin/splitter)
    00000000004011a0 main+0x20 (/usr/bin/splitter)
      SAMPLED_RIP     N
 0000000000401150     1 host-user
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" splitlock.ppcap split-lock --format json
cat >expect <<'EOT'
{"time":"2026-01-01 00:00:01.000010","rips":[{"rip":"0x401136","n":2,"mode":"host-user"},{"rip":"0x401150","n":1,"mode":"host-user"}],"counts":[{"cpu":0,"split_locks":3000,"run_pct":100}]}
{"time":"2026-01-01 00:00:02.000010","rips":[{"rip":"0x401136","n":2,"mode":"host-user"},{"rip":"0xffffffff81234567","n":1,"mode":"host-kernel"}],"counts":[{"cpu":0,"split_locks":1000,"run_pct":50},{"cpu":1,"split_locks":2000,"run_pct":100}]}
{"time":"2026-01-01 00:00:03.500000","rips":[{"rip":"0x401150","n":1,"mode":"host-user"}],"counts":[]}
EOT
check_output expect actual
"$PP_ANALYZE" hwcounters.ppcap split-lock >out 2>err && fail "t384.5: split-lock without r10f4/r125"
grep -q 'no split-lock event (r10f4 on Intel, r125 on AMD)' err || { cat err; fail "t384.5 refusal"; }

# t384.6
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-loads
cat >expect <<'EOT'
2026-01-01 00:00:01.600000 
Mem Load Latency                                              samples    total(cycles)  min(cycles)  avg(cycles)  max(cycles)
------------------------------------------------------------ -------- ---------------- ------------ ------------ ------------
L3 hit|SNP HitM|TLB L1 hit                                          1               60           60           60           60
Local RAM hit|SNP Miss|TLB L2 miss|LCK Yes                          2              430          180          215          250
L1 hit|SNP None|TLB L1 or L2 hit                                    3               21            5            7            9
L2                                                                  1               12           12           12           12
Remote RAM hit|SNP Hit or Fwd|BLK  Data                             1              400          400          400          400
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-loads --perins --than 100
cat >expect <<'EOT'
2026-01-01 00:00:00.500000     pid   2000 tid   2000 [000] 2000.500000: ldlat-loads: DATA ADDR ffff888012340000 PHYS 0000000012340000 latency    250 cycles Local RAM hit RIP     ffffffff81400010 clear_page_erms+0x10
2026-01-01 00:00:01.200000     pid   2000 tid   2001 [001] 2001.200000: ldlat-loads: DATA ADDR 00007f1000000000 PHYS 0000000044444000 latency    400 cycles Remote RAM hit RIP     0000000000401260 walk_list+0x60
2026-01-01 00:00:01.400000     pid   2000 tid   2001 [001] 2001.400000: ldlat-loads: DATA ADDR 00007f0000800040 PHYS 0000000022222040 latency    180 cycles Local RAM hit RIP     0000000000401250 walk_list+0x50
2026-01-01 00:00:01.600000 
[CPU] Mem Load Latency                                              samples    total(cycles)  min(cycles)  avg(cycles)  max(cycles)
----- ------------------------------------------------------------ -------- ---------------- ------------ ------------ ------------
[000] Local RAM hit|SNP Miss|TLB L2 miss|LCK Yes                          1              250          250          250          250
[000] L1 hit|SNP None|TLB L1 or L2 hit                                    2               12            5            6            7
[000] L2                                                                  1               12           12           12           12
[001] L3 hit|SNP HitM|TLB L1 hit                                          1               60           60           60           60
[001] Local RAM hit|SNP Miss|TLB L2 miss|LCK Yes                          1              180          180          180          180
[001] L1 hit|SNP None|TLB L1 or L2 hit                                    1                9            9            9            9
[001] Remote RAM hit|SNP Hit or Fwd|BLK  Data                             1              400          400          400          400
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-stores -i 1000 -p 2000 --perins
cat >expect <<'EOT'
2026-01-01 00:00:01.100000 
[THREAD] Mem Load Latency                                              samples    total(cycles)  min(cycles)  avg(cycles)  max(cycles)
-------- ------------------------------------------------------------ -------- ---------------- ------------ ------------ ------------
2000     L1 hit                                                              1                3            3            3            3
2026-01-01 00:00:01.600000 
[THREAD] Mem Load Latency                                              samples    total(cycles)  min(cycles)  avg(cycles)  max(cycles)
-------- ------------------------------------------------------------ -------- ---------------- ------------ ------------ ------------
2001     L1 hit                                                              1                2            2            2            2
2001     L1 miss                                                             1               40           40           40           40
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" ldlat.ppcap ldlat-loads -C 1 --format json
cat >expect <<'EOT'
{"ldlat-loads":[{"time":"2026-01-01 00:00:01.600000","data_src":"L3 hit|SNP HitM|TLB L1 hit","samples":1,"total_cycles":60,"min_cycles":60,"avg_cycles":60,"max_cycles":60},{"time":"2026-01-01 00:00:01.600000","data_src":"Local RAM hit|SNP Miss|TLB L2 miss|LCK Yes","samples":1,"total_cycles":180,"min_cycles":180,"avg_cycles":180,"max_cycles":180},{"time":"2026-01-01 00:00:01.600000","data_src":"L1 hit|SNP None|TLB L1 or L2 hit","samples":1,"total_cycles":9,"min_cycles":9,"avg_cycles":9,"max_cycles":9},{"time":"2026-01-01 00:00:01.600000","data_src":"Remote RAM hit|SNP Hit or Fwd|BLK  Data","samples":1,"total_cycles":400,"min_cycles":400,"avg_cycles":400,"max_cycles":400}]}
EOT
check_output expect actual

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
