#!/bin/sh
# SPDX-License-Identifier: MIT
# t382-bpf-kvm-exit-golden: bpf-kvm-exit (perf-prof's bpf:kvm_exit) on a built capture
# (tests/fixtures/bpf-kvm-exit.desc): three vCPU threads of two VMs whose exits have known
# delays, switches, sleeps and run delays.  Exact tables per reason, per process, per thread
# (--detail: HLT kept per process), process mode (-p), --threshold, -i, --than (HLT by its
# run delay), --output2, -vv, JSON and CSV; the name bpf:kvm_exit everywhere a user types
# one; a kernel without kvm tracepoints refused in one line; live on this machine.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture bpf-kvm-exit

# t382.1 one table at the end: exits over 1 ms, with the time asleep and the run delay
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit
cat >expect <<'EOT'
2026-01-01 00:00:00.013500 kvm_exit latency
exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us) total wait(us) rundelay(us)
-------------------- -------- ---------------- ------------ ------------ ------------ ------------ -------------- ------------
HLT                         2         6700.000     2100.000     3350.000     4600.000     4600.000       6000.000      510.000
EXTERNAL_INTERRUPT          1         3200.000     3200.000     3200.000     3200.000     3200.000          0.000     3000.000
MSR_WRITE                   1         3000.000     3000.000     3000.000     3000.000     3000.000       1000.000     1500.000
EPT_VIOLATION               1         2200.000     2200.000     2200.000     2200.000     2200.000          0.000     2000.000
IO_INSTRUCTION              1         2000.000     2000.000     2000.000     2000.000     2000.000          0.000        0.000

EOT
check_output expect actual
[ -s stderr.out ] && { cat stderr.out; fail "t382.1: stderr is not empty"; }

# t382.2 per process, and the exits over 2 ms (2.0 ms is not over; HLT: run delay 0.5 ms)
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit --perins --than 2ms
cat >expect <<'EOT'
2026-01-01 00:00:00.004200          CPU_0/KVM     1001    [000] 3000.004200: bpf:kvm_exit: EXTERNAL_INTERRUPT lat 3200000 wait 0 rundelay 3000000 sw 1
2026-01-01 00:00:00.005000          CPU_1/KVM     1002    [001] 3000.005000: bpf:kvm_exit: MSR_WRITE lat 3000000 wait 1000000 rundelay 1500000 sw 2
2026-01-01 00:00:00.012700          CPU_0/KVM     3001    [001] 3000.012700: bpf:kvm_exit: EPT_VIOLATION lat 2200000 wait 0 rundelay 2000000 sw 1
2026-01-01 00:00:00.013500 kvm_exit latency
   PID exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us) total wait(us) rundelay(us)
------ -------------------- -------- ---------------- ------------ ------------ ------------ ------------ -------------- ------------
  1000 HLT                         2         6700.000     2100.000     3350.000     4600.000     4600.000       6000.000      510.000
  1000 EXTERNAL_INTERRUPT          1         3200.000     3200.000     3200.000     3200.000     3200.000          0.000     3000.000
  1000 MSR_WRITE                   1         3000.000     3000.000     3000.000     3000.000     3000.000       1000.000     1500.000
  1000 IO_INSTRUCTION              1         2000.000     2000.000     2000.000     2000.000     2000.000          0.000        0.000
  3000 EPT_VIOLATION               1         2200.000     2200.000     2200.000     2200.000     2200.000          0.000     2000.000

EOT
check_output expect actual

# t382.3 --detail: per thread, HLT per process (THREAD = PID, the process's comm)
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit --perins --detail
cat >expect <<'EOT'
2026-01-01 00:00:00.013500 kvm_exit latency
   PID THREAD COMM            exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us) total wait(us) rundelay(us)
------ ------ --------------- -------------------- -------- ---------------- ------------ ------------ ------------ ------------ -------------- ------------
  1000   1000 qemu-system-x86 HLT                         2         6700.000     2100.000     3350.000     4600.000     4600.000       6000.000      510.000
  1000   1001 CPU_0/KVM       EXTERNAL_INTERRUPT          1         3200.000     3200.000     3200.000     3200.000     3200.000          0.000     3000.000
  1000   1001 CPU_0/KVM       IO_INSTRUCTION              1         2000.000     2000.000     2000.000     2000.000     2000.000          0.000        0.000
  1000   1002 CPU_1/KVM       MSR_WRITE                   1         3000.000     3000.000     3000.000     3000.000     3000.000       1000.000     1500.000
  3000   3001 CPU_0/KVM       EPT_VIOLATION               1         2200.000     2200.000     2200.000     2200.000     2200.000          0.000     2000.000

EOT
check_output expect actual

# t382.4 process mode (-p): the threads of pid 1000, latency only, HLT per thread
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit -p 1000 --perins
cat >expect <<'EOT'
2026-01-01 00:00:00.013500 kvm_exit latency
   PID THREAD COMM            exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us)
------ ------ --------------- -------------------- -------- ---------------- ------------ ------------ ------------ ------------
  1000   1001 CPU_0/KVM       HLT                         1         4600.000     4600.000     4600.000     4600.000     4600.000
  1000   1001 CPU_0/KVM       EXTERNAL_INTERRUPT          1         3200.000     3200.000     3200.000     3200.000     3200.000
  1000   1001 CPU_0/KVM       IO_INSTRUCTION              1         2000.000     2000.000     2000.000     2000.000     2000.000
  1000   1002 CPU_1/KVM       MSR_WRITE                   1         3000.000     3000.000     3000.000     3000.000     3000.000
  1000   1002 CPU_1/KVM       HLT                         1         2100.000     2100.000     2100.000     2100.000     2100.000

EOT
check_output expect actual

# t382.5 --threshold 1us counts the 5 us and 500 us exits too; 5 ms intervals (by entry time)
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit --threshold 1us -i 5
cat >expect <<'EOT'
2026-01-01 00:00:00.005100 kvm_exit latency
exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us) total wait(us) rundelay(us)
-------------------- -------- ---------------- ------------ ------------ ------------ ------------ -------------- ------------
EXTERNAL_INTERRUPT          1         3200.000     3200.000     3200.000     3200.000     3200.000          0.000     3000.000
MSR_WRITE                   1         3000.000     3000.000     3000.000     3000.000     3000.000       1000.000     1500.000
EPT_VIOLATION               1            5.000        5.000        5.000        5.000        5.000          0.000        0.000

2026-01-01 00:00:00.010100 kvm_exit latency
exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us) total wait(us) rundelay(us)
-------------------- -------- ---------------- ------------ ------------ ------------ ------------ -------------- ------------
HLT                         2         6700.000     2100.000     3350.000     4600.000     4600.000       6000.000      510.000

2026-01-01 00:00:00.013500 kvm_exit latency
exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us) total wait(us) rundelay(us)
-------------------- -------- ---------------- ------------ ------------ ------------ ------------ -------------- ------------
EPT_VIOLATION               1         2200.000     2200.000     2200.000     2200.000     2200.000          0.000     2000.000
IO_INSTRUCTION              1         2000.000     2000.000     2000.000     2000.000     2000.000          0.000        0.000
EPT_MISCONFIG               1          500.000      500.000      500.000      500.000      500.000          0.000        0.000

EOT
check_output expect actual

# t382.6 --output2: per process and interval the largest delay (HLT: run delay), appended
echo "kept" >out2
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf-kvm-exit --perins --output2 out2 -i 10
cat >expect <<'EOT'
kept
2026-01-01 00:00:00.010100 
   PID  max-latency(us)
  1000  3200.000
2026-01-01 00:00:00.013500 
   PID  max-latency(us)
  1000  2000.000
  3000  2200.000
EOT
check_output expect out2

# t382.7 -vv prints every exit over the threshold, in entry order
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit -v -v
grep 'bpf:kvm_exit:' actual | sed 's/^.*bpf:kvm_exit: //' >lines
cat >expect <<'EOT'
EXTERNAL_INTERRUPT lat 3200000 wait 0 rundelay 3000000 sw 1
MSR_WRITE lat 3000000 wait 1000000 rundelay 1500000 sw 2
HLT lat 2100000 wait 2000000 rundelay 10000 sw 1
HLT lat 4600000 wait 4000000 rundelay 500000 sw 1
IO_INSTRUCTION lat 2000000 wait 0 rundelay 0 sw 0
EPT_VIOLATION lat 2200000 wait 0 rundelay 2000000 sw 1
EOT
check_output expect lines

# t382.8 JSON (the exits over 3 ms, then the table) and CSV (the table)
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit --format json --than 3ms --perins --detail
cat >expect <<'EOT'
{"time":3000.004200,"cpu":0,"pid":1000,"tid":1001,"comm":"CPU_0/KVM","exit_reason":"EXTERNAL_INTERRUPT","latency_ns":3200000,"wait_ns":0,"rundelay_ns":3000000,"switches":1}
{"bpf_kvm_exit":[{"pid":1000,"thread":1000,"comm":"qemu-system-x86","exit_reason":"HLT","calls":2,"total_us":6700.000,"min_us":2100.000,"avg_us":3350.000,"p99_us":4600.000,"max_us":4600.000,"wait_us":6000.000,"rundelay_us":510.000},{"pid":1000,"thread":1001,"comm":"CPU_0/KVM","exit_reason":"EXTERNAL_INTERRUPT","calls":1,"total_us":3200.000,"min_us":3200.000,"avg_us":3200.000,"p99_us":3200.000,"max_us":3200.000,"wait_us":0.000,"rundelay_us":3000.000},{"pid":1000,"thread":1001,"comm":"CPU_0/KVM","exit_reason":"IO_INSTRUCTION","calls":1,"total_us":2000.000,"min_us":2000.000,"avg_us":2000.000,"p99_us":2000.000,"max_us":2000.000,"wait_us":0.000,"rundelay_us":0.000},{"pid":1000,"thread":1002,"comm":"CPU_1/KVM","exit_reason":"MSR_WRITE","calls":1,"total_us":3000.000,"min_us":3000.000,"avg_us":3000.000,"p99_us":3000.000,"max_us":3000.000,"wait_us":1000.000,"rundelay_us":1500.000},{"pid":3000,"thread":3001,"comm":"CPU_0/KVM","exit_reason":"EPT_VIOLATION","calls":1,"total_us":2200.000,"min_us":2200.000,"avg_us":2200.000,"p99_us":2200.000,"max_us":2200.000,"wait_us":0.000,"rundelay_us":2000.000}]}
EOT
check_output expect actual
run_ok actual "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit --format csv --than 3ms --perins
cat >expect <<'EOT'
pid,exit_reason,calls,total_us,min_us,avg_us,p99_us,max_us,wait_us,rundelay_us
1000,HLT,2,6700.000,2100.000,3350.000,4600.000,4600.000,6000.000,510.000
1000,EXTERNAL_INTERRUPT,1,3200.000,3200.000,3200.000,3200.000,3200.000,0.000,3000.000
1000,MSR_WRITE,1,3000.000,3000.000,3000.000,3000.000,3000.000,1000.000,1500.000
1000,IO_INSTRUCTION,1,2000.000,2000.000,2000.000,2000.000,2000.000,0.000,0.000
3000,EPT_VIOLATION,1,2200.000,2200.000,2200.000,2200.000,2200.000,0.000,2000.000
EOT
check_output expect actual

# t382.9 the name: bpf-kvm-exit and bpf:kvm_exit are one analyzer, for help and for pp
run_ok a1 "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf-kvm-exit --perins
run_ok a2 "$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit --perins
check_output a1 a2
run_ok help "$PP_ANALYZE" help bpf:kvm_exit
grep -q '^bpf-kvm-exit - ' help || fail "t382.9: pp-analyze help bpf:kvm_exit"
grep -q 'no BPF needed' help || fail "t382.9: the help does not say it needs no BPF"
"$PP_ANALYZE" help | grep -q "^  bpf-kvm-exit .*bpf:kvm_exit" || fail "t382.9: not in pp-analyze help"
ln -s "$PP" perf-prof
./perf-prof bpf:kvm_exit -h 2>help; [ $? = 129 ] || fail "t382.9: perf-prof bpf:kvm_exit -h"
head -1 help | grep -q 'Usage: perf-prof bpf:kvm_exit' || fail "t382.9: perf-prof's usage line"
grep -q '^bpf-kvm-exit - ' help || fail "t382.9: perf-prof bpf:kvm_exit -h: no help"

"$PP_ANALYZE" bpf-kvm-exit.ppcap bpf:kvm_exit -e kvm:kvm_exit >out 2>err && fail "t382.9: -e taken"
grep -q 'error: bpf-kvm-exit: does not take -e' err || { cat err; fail "t382.9: -e refused"; }

# t382.10 a kernel without kvm tracepoints: one line, naming what is missing (PP_TRACEFS: a
# tracefs without events/kvm)
mkdir -p fakefs/events
PP_TRACEFS=$PWD/fakefs "$PP_RECORD" --for 'bpf:kvm_exit -i 1000' -o x.pp --duration 1 \
	>out 2>err && fail "t382.10: pp-record recorded without kvm tracepoints"
cat >expect <<'EOT'
pp-record: error: --for 'bpf:kvm_exit -i 1000': bpf:kvm_exit: this kernel has no kvm:kvm_exit tracepoint: KVM is not loaded (modprobe kvm_intel or kvm_amd)
EOT
check_output expect err
# and `pp bpf:kvm_exit` says that one line and nothing else
PP_TRACEFS=$PWD/fakefs "$PP" bpf:kvm_exit -i 1000 >out 2>err && fail "t382.10: pp ran without kvm tracepoints"
[ -s out ] && { cat out; fail "t382.10: pp printed a report"; }
check_output expect err

# t382.11 live on this machine (root, tracefs with kvm:kvm_exit): no guest runs here, so
# `pp bpf:kvm_exit` prints no table and says, once, that no VM exit was seen
if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events/kvm/kvm_exit ]; then
	echo "t382.11 not run: needs root and the kvm:kvm_exit tracepoint"
	exit 0
fi
if ls -l /proc/[0-9]*/fd/ 2>/dev/null | grep -q 'kvm-vcpu'; then
	echo "t382.11 not run: a KVM guest runs here (its exits would be reported)"
	exit 0
fi
timeout -s INT 3 "$PP" bpf:kvm_exit -i 1000 >live.out 2>live.err
[ -s live.out ] && { cat live.out; fail "t382.11: a report without VM exits"; }
cat >expect <<'EOT'
pp-analyze: warning: bpf-kvm-exit: no VM exit in the capture: no KVM guest ran on the recorded CPUs
EOT
check_output expect live.err
exit 0
