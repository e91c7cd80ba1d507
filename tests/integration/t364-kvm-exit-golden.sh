#!/bin/sh
# SPDX-License-Identifier: MIT
# t364-kvm-exit-golden: kvm-exit on a built capture (tests/fixtures/kvm-exit.desc) with known
# exit/entry pairs of two vCPU threads: exact calls, total/min/avg/max and %gsys per exit
# reason; --perins by thread; --than (HLT excluded); -i; --filter on kvm_exit only;
# --heatmap; JSON.  Unpaired exits and entries are not counted.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture kvm-exit

# t364.1 one table at the end, by total
run_ok actual "$PP_ANALYZE" kvm-exit.ppcap kvm-exit
cat >expect <<'EOT'
2026-01-01 00:00:00.004500 kvm-exit latency
exit_reason                     calls        total(us)      min(us)      avg(us)      p99(us)      max(us)  %gsys
---------------------------- -------- ---------------- ------------ ------------ ------------ ------------ ------
HLT                                 1         2000.000     2000.000     2000.000     2000.000     2000.000 100.00
IO_INSTRUCTION                      1         1500.000     1500.000     1500.000     1500.000     1500.000 100.00
EPT_VIOLATION                       3           18.000        3.000        6.000       10.000       10.000  72.22
INVALID_STATE FAILED_VMENTRY        1            4.000        4.000        4.000        4.000        4.000   0.00
MSR_WRITE                           2            3.000        1.000        1.500        2.000        2.000  66.67
EXTERNAL_INTERRUPT                  1            1.000        1.000        1.000        1.000        1.000 100.00

EOT
check_output expect actual

# t364.2 per thread, and the slow pairs (IO_INSTRUCTION 1.5 ms; the 2 ms HLT is not printed)
run_ok actual "$PP_ANALYZE" kvm-exit.ppcap kvm-exit --perins --than 1ms
cat >expect <<'EOT'
2026-01-01 00:00:00.003000        CPU_0/KVM   1001 .... [000] 3000.003000: kvm:kvm_exit: vcpu 0 reason IO_INSTRUCTION rip 0xffffffff81000600 info1 0x0000000003f80008 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000 requests 0x0000000000000000
2026-01-01 00:00:00.004500        CPU_0/KVM   1001 .... [000] 3000.004500: kvm:kvm_entry: vcpu 0, rip 0xffffffff81000600 intr_info 0x00000000 error_code 0x00000000
2026-01-01 00:00:00.004500 kvm-exit latency
[THREAD] exit_reason                     calls        total(us)      min(us)      avg(us)      p99(us)      max(us)  %gsys
-------- ---------------------------- -------- ---------------- ------------ ------------ ------------ ------------ ------
  [1001] HLT                                 1         2000.000     2000.000     2000.000     2000.000     2000.000 100.00
  [1001] IO_INSTRUCTION                      1         1500.000     1500.000     1500.000     1500.000     1500.000 100.00
  [1001] EPT_VIOLATION                       2            8.000        3.000        4.000        5.000        5.000  37.50
  [1001] MSR_WRITE                           1            1.000        1.000        1.000        1.000        1.000   0.00
  [1002] EPT_VIOLATION                       1           10.000       10.000       10.000       10.000       10.000 100.00
  [1002] INVALID_STATE FAILED_VMENTRY        1            4.000        4.000        4.000        4.000        4.000   0.00
  [1002] MSR_WRITE                           1            2.000        2.000        2.000        2.000        2.000 100.00
  [1002] EXTERNAL_INTERRUPT                  1            1.000        1.000        1.000        1.000        1.000 100.00

EOT
check_output expect actual

# t364.3 1 ms intervals, only EPT violations and HLT
run_ok actual "$PP_ANALYZE" kvm-exit.ppcap kvm-exit -i 1 --filter 'exit_reason==48||exit_reason==12'
cat >expect <<'EOT'
2026-01-01 00:00:00.001100 kvm-exit latency
exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us)  %gsys
-------------------- -------- ---------------- ------------ ------------ ------------ ------------ ------
EPT_VIOLATION               3           18.000        3.000        6.000       10.000       10.000  72.22

2026-01-01 00:00:00.003100 kvm-exit latency
exit_reason             calls        total(us)      min(us)      avg(us)      p99(us)      max(us)  %gsys
-------------------- -------- ---------------- ------------ ------------ ------------ ------------ ------
HLT                         1         2000.000     2000.000     2000.000     2000.000     2000.000 100.00

EOT
check_output expect actual

# t364.4 JSON, and the heatmap: one 'exit time, delay' line per pair
run_ok actual "$PP_ANALYZE" kvm-exit.ppcap kvm-exit --format json --heatmap hm
cat >expect <<'EOT'
{"kvm_exit":[{"exit_reason":"HLT","calls":1,"total_us":2000.000,"min_us":2000.000,"avg_us":2000.000,"p99_us":2000.000,"max_us":2000.000,"gsys_pct":100.00},{"exit_reason":"IO_INSTRUCTION","calls":1,"total_us":1500.000,"min_us":1500.000,"avg_us":1500.000,"p99_us":1500.000,"max_us":1500.000,"gsys_pct":100.00},{"exit_reason":"EPT_VIOLATION","calls":3,"total_us":18.000,"min_us":3.000,"avg_us":6.000,"p99_us":10.000,"max_us":10.000,"gsys_pct":72.22},{"exit_reason":"INVALID_STATE FAILED_VMENTRY","calls":1,"total_us":4.000,"min_us":4.000,"avg_us":4.000,"p99_us":4.000,"max_us":4.000,"gsys_pct":0.00},{"exit_reason":"MSR_WRITE","calls":2,"total_us":3.000,"min_us":1.000,"avg_us":1.500,"p99_us":2.000,"max_us":2.000,"gsys_pct":66.67},{"exit_reason":"EXTERNAL_INTERRUPT","calls":1,"total_us":1.000,"min_us":1.000,"avg_us":1.000,"p99_us":1.000,"max_us":1.000,"gsys_pct":100.00}]}
EOT
check_output expect actual
cat >expect <<'EOT'
3000000100000 3000
3000000150000 10000
3000000200000 1000
3000000300000 5000
3000000500000 2000
3000000700000 1000
3000001000000 4000
3000000400000 2000000
3000003000000 1500000
EOT
check_output expect hm.lat
exit 0
