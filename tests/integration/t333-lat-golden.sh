#!/bin/sh
# SPDX-License-Identifier: MIT
# t333-lat-golden: the latency analyzers' outputs on committed fixture captures
# (tests/fixtures/lat-*.desc, built with capbuild), checked line for line.
# The expected outputs were checked by hand against the fixtures' comments.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

for f in lat-softirq lat-sched lat-syscalls lat-kmem; do
	build_fixture $f
done

# t333.1 the delay table, perf-prof's layout
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit
cat >expect <<'EOT'
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry => softirq_exit       23          700.000        2.000        9.000       21.000      500.000      500.000
EOT
check_output expect actual

# t333.2 --perins: one row per CPU; the pair cut by the loss is not counted
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --perins
cat >expect <<'EOT'
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
CPU         start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
--- -------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
0   softirq_entry => softirq_exit       12          575.000        2.000        7.000      500.000      500.000      500.000
1   softirq_entry => softirq_exit       11          125.000        3.000       11.000       21.000       21.000       21.000
EOT
check_output expect actual

# t333.3 --than: the slow pair, than(reqs); -i: one table per interval
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --than 100us -i 10
cat >expect <<'EOT'
2026-01-01 00:00:00.010000           worker    200 ..s1 [000] 1000.010000: irq:softirq_entry: vec=3 [action=NET_RX]
2026-01-01 00:00:00.010500           worker    200 ..s1 [000] 1000.010500: irq:softirq_exit: vec=3 [action=NET_RX]
2026-01-01 00:00:00.011000 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)    than(reqs)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------ --------------
softirq_entry => softirq_exit       22          690.000        2.000        8.000       21.000      500.000      500.000      1 (  4%)
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)    than(reqs)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------ --------------
softirq_entry => softirq_exit        1           10.000       10.000       10.000       10.000       10.000       10.000      0 (  0%)
EOT
check_output expect actual

# t333.4 --detail=-50us,+20us: events before, between and after; the unmatched entry at the end
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,irq:irq_handler_entry//untraced/,irq:irq_handler_exit//untraced/,sched:sched_wakeup//untraced/,sched:sched_switch//untraced/' --than 100us --detail=-50us,+20us
cat >expect <<'EOT'
-Previous 40.000 us
|                                    worker    200 d.h1 [000] 1000.009960: irq:irq_handler_entry: irq=24 name=eth0
|                                    worker    200 d.h1 [000] 1000.009965: irq:irq_handler_exit: irq=24 ret=handled
|                                      bash    100 d..2 [001] 1000.009970: sched:sched_wakeup: comm=server pid=300 prio=120 target_cpu=001
2026-01-01 00:00:00.010000           worker    200 ..s1 [000] 1000.010000: irq:softirq_entry: vec=3 [action=NET_RX]
|+ 500.000 us                        worker    200 d.h1 [000] 1000.010100: irq:irq_handler_entry: irq=24 name=eth0
|                                    worker    200 d.h2 [000] 1000.010103: sched:sched_wakeup: comm=server pid=300 prio=120 target_cpu=001
|                                    worker    200 d.h1 [000] 1000.010104: irq:irq_handler_exit: irq=24 ret=handled
|                                      bash    100 d... [001] 1000.010110: sched:sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=server next_pid=300 next_prio=120
|                                    server    300 ..s1 [001] 1000.010111: irq:softirq_entry: vec=9 [action=RCU]
|                                    server    300 ..s1 [001] 1000.010116: irq:softirq_exit: vec=9 [action=RCU]
|                                    worker    200 d.h1 [000] 1000.010300: irq:irq_handler_entry: irq=25 name=nvme0q1
|                                    worker    200 d.h1 [000] 1000.010302: irq:irq_handler_exit: irq=25 ret=handled
2026-01-01 00:00:00.010500           worker    200 ..s1 [000] 1000.010500: irq:softirq_exit: vec=3 [action=NET_RX]
|                                    worker    200 d... [000] 1000.010510: sched:sched_switch: prev_comm=worker prev_pid=200 prev_prio=120 prev_state=R ==> next_comm=bash next_pid=100 next_prio=120
`After 10.000 us
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
2026-01-01 00:00:00.030000           server    300 ..s1 [001] 1000.030000: irq:softirq_entry: vec=4 [action=BLOCK]
| >= 1000.000 us                       bash    100 ..s1 [000] 1000.030400: irq:softirq_entry: vec=1 [action=TIMER]
|                                      bash    100 ..s1 [000] 1000.030410: irq:softirq_exit: vec=1 [action=TIMER]
|                                      bash    100 d... [000] 1000.031000: sched:sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=worker next_pid=200 next_prio=120
| >= 1000.000 us, event2 may be lost.
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)    than(reqs)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------ --------------
softirq_entry => softirq_exit       23          700.000        2.000        9.000       21.000      500.000      500.000      1 (  4%)
EOT
check_output expect actual

# t333.5 --detail=samecpu,hide<5us: only CPU 0's events, close ones hidden
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,irq:irq_handler_entry//untraced/,irq:irq_handler_exit//untraced/,sched:sched_wakeup//untraced/,sched:sched_switch//untraced/' --than 100us '--detail=samecpu,hide<5us'
cat >expect <<'EOT'
2026-01-01 00:00:00.010000           worker    200 ..s1 [000] 1000.010000: irq:softirq_entry: vec=3 [action=NET_RX]
|+ 500.000 us                        worker    200 d.h1 [000] 1000.010100: irq:irq_handler_entry: irq=24 name=eth0
|      1 hidden
|                                    worker    200 d.h1 [000] 1000.010104: irq:irq_handler_exit: irq=24 ret=handled
|                                    worker    200 d.h1 [000] 1000.010300: irq:irq_handler_entry: irq=25 name=nvme0q1
|      1 hidden
2026-01-01 00:00:00.010500           worker    200 ..s1 [000] 1000.010500: irq:softirq_exit: vec=3 [action=NET_RX]
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
2026-01-01 00:00:00.030000           server    300 ..s1 [001] 1000.030000: irq:softirq_entry: vec=4 [action=BLOCK]
| >= 1000.000 us, event2 may be lost.
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)    than(reqs)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------ --------------
softirq_entry => softirq_exit       23          700.000        2.000        9.000       21.000      500.000      500.000      1 (  4%)
EOT
check_output expect actual

# t333.6 --lower and alias=: pairs faster than 3 us
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e 'irq:softirq_entry//alias=in/' -e 'irq:softirq_exit//alias=out/' --lower 3us
cat >expect <<'EOT'
2026-01-01 00:00:00.001000           worker    200 ..s1 [000] 1000.001000: irq:softirq_entry: vec=1 [action=TIMER]
2026-01-01 00:00:00.001002           worker    200 ..s1 [000] 1000.001002: irq:softirq_exit: vec=1 [action=TIMER]
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
start => end    calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-----    --- -------- ---------------- ------------ ------------ ------------ ------------ ------------
   in => out       23          700.000        2.000        9.000       21.000      500.000      500.000
EOT
check_output expect actual

# t333.7 --impl pair: paired and unpaired counts, unpaired entries printed
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --impl pair
cat >expect <<'EOT'
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
2026-01-01 00:00:00.020000           server    300 ..s1 [001] 1000.020000: irq:softirq_entry: vec=9 [action=RCU]
2026-01-01 00:00:00.030000           server    300 ..s1 [001] 1000.030000: irq:softirq_entry: vec=4 [action=BLOCK]
2026-01-01 00:00:00.031000 irq:softirq_entry unpaired 2
2026-01-01 00:00:00.031000 irq:softirq_entry irq:softirq_exit paired 23
EOT
check_output expect actual

# t333.8 --format json
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --perins --than 400us --format json
cat >expect <<'EOT'
{"slow":{"start":"softirq_entry","end":"softirq_exit","key":0,"delta_us":500.000,"unfinished":false,"events":[{"title":"","time":1000.010000,"cpu":0,"pid":200,"tid":200,"comm":"worker","event":"softirq_entry","fields":"vec=3 [action=NET_RX]"},{"title":"","time":1000.010500,"cpu":0,"pid":200,"tid":200,"comm":"worker","event":"softirq_exit","fields":"vec=3 [action=NET_RX]"}]}}
{"multi-trace":[{"time":"2026-01-01 00:00:00.031000","key":0,"start":"softirq_entry","end":"softirq_exit","calls":12,"total_us":575.000,"min_us":2.000,"p50_us":7.000,"p95_us":500.000,"p99_us":500.000,"max_us":500.000,"than":1},{"time":"2026-01-01 00:00:00.031000","key":1,"start":"softirq_entry","end":"softirq_exit","calls":11,"total_us":125.000,"min_us":3.000,"p50_us":11.000,"p95_us":21.000,"p99_us":21.000,"max_us":21.000,"than":0}]}
EOT
check_output expect actual

# t333.9 key= and printkey=: one key for every softirq vector
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e 'irq:softirq_entry//key=vec/printkey=printf("vec%02d",key)/' -e 'irq:softirq_exit//key=vec/' --perins
cat >expect <<'EOT'
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
vec            start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
------ -------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
vec01  softirq_entry => softirq_exit       11           75.000        2.000        7.000       11.000       11.000       11.000
vec03  softirq_entry => softirq_exit        1          500.000      500.000      500.000      500.000      500.000      500.000
vec09  softirq_entry => softirq_exit       11          125.000        3.000       11.000       21.000       21.000       21.000
EOT
check_output expect actual

# t333.10 nested-trace call-delay: the call tree with each function's latency
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit
cat >expect <<'EOT'
2026-01-01 00:00:00.010100 
    function call R    calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
----------------- - -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry             20          185.000        2.000        8.000       19.000       21.000       21.000
irq_handler_entry          1            5.000        5.000        5.000        5.000        5.000        5.000
2026-01-01 00:00:00.010530 
        function call R    calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
--------------------- - -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry                  2          505.000        5.000        5.000      500.000      500.000      500.000
  |-irq_handler_entry          2            6.000        2.000        2.000        4.000        4.000        4.000
2026-01-01 00:00:00.020100 nested-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
        function call R    calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
--------------------- - -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry                  1           10.000       10.000       10.000       10.000       10.000       10.000
irq_handler_entry              1            2.000        2.000        2.000        2.000        2.000        2.000
EOT
check_output expect actual

# t333.11 nested-trace --impl delay
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit --impl delay
cat >expect <<'EOT'
2026-01-01 00:00:00.020100 nested-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
            start => end                 calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-----------------    ---------------- -------- ---------------- ------------ ------------ ------------ ------------ ------------
    softirq_entry => softirq_exit           23          700.000        2.000        9.000       21.000      500.000      500.000
irq_handler_entry => irq_handler_exit        4           13.000        2.000        2.000        5.000        5.000        5.000
EOT
check_output expect actual

# t333.12 rundelay: wakeup, preemption (R and R+) and wakeup_new delays; a wakeup of a running task is no start
run_ok actual "$PP_ANALYZE" lat-sched.ppcap rundelay
cat >expect <<'EOT'
2026-01-01 00:00:00.011200 
           start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
----------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
    sched_wakeup => sched_switch        5         5130.000       20.000       40.000     5000.000     5000.000     5000.000
    sched_switch => sched_switch        2         1100.000      300.000      300.000      800.000      800.000      800.000
sched_wakeup_new => sched_switch        1           70.000       70.000       70.000       70.000       70.000       70.000
EOT
check_output expect actual

# t333.13 rundelay --perins --than --detail=samekey with an untraced extra
run_ok actual "$PP_ANALYZE" lat-sched.ppcap rundelay --perins --than 1ms --detail=samekey -e 'sched:sched_wakeup*,sched:sched_switch' -e 'sched:sched_switch,sched:sched_migrate_task//untraced/key=pid/'
cat >expect <<'EOT'
2026-01-01 00:00:00.005000           worker    200 d..2 [000] 1000.005000: sched:sched_wakeup: comm=server pid=300 prio=120 target_cpu=001
|+ 5000.000 us
2026-01-01 00:00:00.010000           <idle>      0 d... [001] 1000.010000: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=server next_pid=300 next_prio=120
2026-01-01 00:00:00.011200 
pid    comm                        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)    than(reqs)
------ ---------------- ----------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------ --------------
100    bash                 sched_wakeup => sched_switch        2           70.000       20.000       20.000       50.000       50.000       50.000      0 (  0%)
200    worker               sched_switch => sched_switch        2         1100.000      300.000      300.000      800.000      800.000      800.000      0 (  0%)
300    server               sched_wakeup => sched_switch        3         5060.000       20.000       40.000     5000.000     5000.000     5000.000      1 ( 33%)
301    server-io        sched_wakeup_new => sched_switch        1           70.000       70.000       70.000       70.000       70.000       70.000      0 (  0%)
EOT
check_output expect actual

# t333.14 rundelay --filter and -t
run_ok actual "$PP_ANALYZE" lat-sched.ppcap rundelay --filter 'serv*' , rundelay -t 200
cat >expect <<'EOT'
2026-01-01 00:00:00.011200 
           start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
----------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
    sched_wakeup => sched_switch        3         5060.000       20.000       40.000     5000.000     5000.000     5000.000
sched_wakeup_new => sched_switch        1           70.000       70.000       70.000       70.000       70.000       70.000
2026-01-01 00:00:00.011200 
           start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
----------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
    sched_switch => sched_switch        2         1100.000      300.000      300.000      800.000      800.000      800.000
EOT
check_output expect actual

# t333.15 syscalls --perins: names from the capture's table, errors, exit_group closed by sched_process_free
run_ok actual "$PP_ANALYZE" lat-syscalls.ppcap syscalls --perins
cat >expect <<'EOT'
2026-01-01 00:00:00.006400 
thread comm             syscalls                calls        total(us)      min(us)      avg(us)      max(us)    err
------ ---------------- -------------------- -------- ---------------- ------------ ------------ ------------ ------
200    app              nanosleep(35)               2         2060.000     1010.000     1030.000     1050.000      0
200    app              exit_group(231)             1          300.000      300.000      300.000      300.000      0
200    app              read(0)                     3            9.000        1.000        3.000        5.000      1
201    app-io           getppid(110)                2            1.000        0.400        0.500        0.600      0
201    app-io           999                         1            0.700        0.700        0.700        0.700      1
EOT
check_output expect actual

# t333.16 syscalls --than: the slow calls and the unfinished exit_group
run_ok actual "$PP_ANALYZE" lat-syscalls.ppcap syscalls --than 200us
cat >expect <<'EOT'
2026-01-01 00:00:00.002000              app    200 .... [000] 1000.002000: raw_syscalls:sys_enter: NR 35 (0, 0, 0, 0, 0, 0)
2026-01-01 00:00:00.003050              app    200 .... [000] 1000.003050: raw_syscalls:sys_exit: NR 35 = 0
2026-01-01 00:00:00.004000              app    200 .... [000] 1000.004000: raw_syscalls:sys_enter: NR 35 (0, 0, 0, 0, 0, 0)
2026-01-01 00:00:00.005010              app    200 .... [000] 1000.005010: raw_syscalls:sys_exit: NR 35 = 0
2026-01-01 00:00:00.006000              app    200 .... [000] 1000.006000: raw_syscalls:sys_enter: NR 231 (0, 0, 0, 0, 0, 0)
2026-01-01 00:00:00.006300           <idle>      0 .... [000] 1000.006300: sched:sched_process_free: comm=app pid=200
2026-01-01 00:00:00.006400 
syscalls                calls        total(us)      min(us)      avg(us)      max(us)    err   than(reqs)
-------------------- -------- ---------------- ------------ ------------ ------------ ------ --------------
nanosleep(35)               2         2060.000     1010.000     1030.000     1050.000      0      2 (100%)
exit_group(231)             1          300.000      300.000      300.000      300.000      0      1 (100%)
read(0)                     3            9.000        1.000        3.000        5.000      1      0 (  0%)
getppid(110)                2            1.000        0.400        0.500        0.600      0      0 (  0%)
999                         1            0.700        0.700        0.700        0.700      1      0 (  0%)
EOT
check_output expect actual

# t333.17 kmemprof: bytes per stack, allocations never freed
run_ok actual "$PP_ANALYZE" lat-kmem.ppcap kmemprof -e kmem:kmalloc -e kmem:kfree -k ptr
cat >expect <<'EOT'
2026-01-01 00:00:00.002200 
kmem:kmalloc total alloc 128 bytes on 1 objects but not freed
Allocate 128 (100.0%) bytes on 1 (100.0%) objects:
    ffffffff81100010 __kmalloc+0x10 ([kernel.kallsyms])
    ffffffff81200020 alloc_a+0x20 ([kernel.kallsyms])
    ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])

2026-01-01 00:00:00.002200 
kmem:kmalloc => kmem:kfree
kmem:kmalloc total alloc 4352 bytes on 3 objects
Allocate 4096 (94.1%) bytes on 1 (33.3%) objects:
    ffffffff81100010 __kmalloc+0x10 ([kernel.kallsyms])
    ffffffff81201020 alloc_b+0x20 ([kernel.kallsyms])
    ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])
Allocate 256 (5.9%) bytes on 2 (66.7%) objects:
    ffffffff81100010 __kmalloc+0x10 ([kernel.kallsyms])
    ffffffff81200020 alloc_a+0x20 ([kernel.kallsyms])
    ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])
kmem:kfree total free 4352 bytes on 3 objects
Free 4096 (94.1%) bytes on 1 (33.3%) objects:
    ffffffff81101010 kfree+0x10 ([kernel.kallsyms])
    ffffffff81203020 release_b+0x20 ([kernel.kallsyms])
    ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])
Free 256 (5.9%) bytes on 2 (66.7%) objects:
    ffffffff81101010 kfree+0x10 ([kernel.kallsyms])
    ffffffff81202020 release_a+0x20 ([kernel.kallsyms])
    ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])

EOT
check_output expect actual

# t333.18 multi-trace --cycle with role=: running time between switches of one CPU
run_ok actual "$PP_ANALYZE" lat-sched.ppcap multi-trace -e 'sched:sched_switch//role=(next_pid?1:0)|(prev_pid?2:0)/' --cycle
cat >expect <<'EOT'
2026-01-01 00:00:00.011200 
       start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
sched_switch => sched_switch        9        10350.000       50.000      150.000     8250.000     8250.000     8250.000
EOT
check_output expect actual

# t333.19 kmemprof --format json
run_ok actual "$PP_ANALYZE" lat-kmem.ppcap kmemprof -e kmem:kmalloc -e kmem:kfree -k ptr --format json
cat >expect <<'EOT'
{"kmemprof":{"time":"2026-01-01 00:00:00.002200","alloc_event":"kmem:kmalloc","free_event":"","not_freed":true,"alloc_bytes":128,"alloc_objects":1,"alloc_stacks":[{"bytes":128,"objects":1,"stack":["ffffffff81100010 __kmalloc+0x10 ([kernel.kallsyms])","ffffffff81200020 alloc_a+0x20 ([kernel.kallsyms])","ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])"]}]}}
{"kmemprof":{"time":"2026-01-01 00:00:00.002200","alloc_event":"kmem:kmalloc","free_event":"kmem:kfree","not_freed":false,"alloc_bytes":4352,"alloc_objects":3,"alloc_stacks":[{"bytes":4096,"objects":1,"stack":["ffffffff81100010 __kmalloc+0x10 ([kernel.kallsyms])","ffffffff81201020 alloc_b+0x20 ([kernel.kallsyms])","ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])"]},{"bytes":256,"objects":2,"stack":["ffffffff81100010 __kmalloc+0x10 ([kernel.kallsyms])","ffffffff81200020 alloc_a+0x20 ([kernel.kallsyms])","ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])"]}],"free_bytes":4352,"free_objects":3,"free_stacks":[{"bytes":4096,"objects":1,"stack":["ffffffff81101010 kfree+0x10 ([kernel.kallsyms])","ffffffff81203020 release_b+0x20 ([kernel.kallsyms])","ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])"]},{"bytes":256,"objects":2,"stack":["ffffffff81101010 kfree+0x10 ([kernel.kallsyms])","ffffffff81202020 release_a+0x20 ([kernel.kallsyms])","ffffffff81300030 do_syscall_64+0x30 ([kernel.kallsyms])"]}]}}
EOT
check_output expect actual

# t333.20 nested-trace --format json
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit --format json
cat >expect <<'EOT'
{"nested-trace":{"time":"2026-01-01 00:00:00.010100","calls":[{"function":"softirq_entry","depth":0,"recursive":false,"calls":20,"total_us":185.000,"min_us":2.000,"p50_us":8.000,"p95_us":19.000,"p99_us":21.000,"max_us":21.000},{"function":"irq_handler_entry","depth":0,"recursive":false,"calls":1,"total_us":5.000,"min_us":5.000,"p50_us":5.000,"p95_us":5.000,"p99_us":5.000,"max_us":5.000}]}}
{"nested-trace":{"time":"2026-01-01 00:00:00.010530","calls":[{"function":"softirq_entry","depth":0,"recursive":false,"calls":2,"total_us":505.000,"min_us":5.000,"p50_us":5.000,"p95_us":500.000,"p99_us":500.000,"max_us":500.000},{"function":"irq_handler_entry","depth":1,"recursive":false,"calls":2,"total_us":6.000,"min_us":2.000,"p50_us":2.000,"p95_us":4.000,"p99_us":4.000,"max_us":4.000}]}}
{"nested-trace":{"time":"2026-01-01 00:00:00.031000","calls":[{"function":"softirq_entry","depth":0,"recursive":false,"calls":1,"total_us":10.000,"min_us":10.000,"p50_us":10.000,"p95_us":10.000,"p99_us":10.000,"max_us":10.000},{"function":"irq_handler_entry","depth":0,"recursive":false,"calls":1,"total_us":2.000,"min_us":2.000,"p50_us":2.000,"p95_us":2.000,"p99_us":2.000,"max_us":2.000}]}}
EOT
check_output expect actual

# t333.21 syscalls --format csv
run_ok actual "$PP_ANALYZE" lat-syscalls.ppcap syscalls --perins --format csv
cat >expect <<'EOT'
time,key,comm,syscall,id,calls,total_us,min_us,avg_us,max_us,err
2026-01-01 00:00:00.006400,200,app,nanosleep,35,2,2060.000,1010.000,1030.000,1050.000,0
2026-01-01 00:00:00.006400,200,app,exit_group,231,1,300.000,300.000,300.000,300.000,0
2026-01-01 00:00:00.006400,200,app,read,0,3,9.000,1.000,3.000,5.000,1
2026-01-01 00:00:00.006400,201,app-io,getppid,110,2,1.000,0.400,0.500,0.600,0
2026-01-01 00:00:00.006400,201,app-io,,999,1,0.700,0.700,0.700,0.700,1
EOT
check_output expect actual

# t333.22 trigger: each irq_handler_entry (untraced) prints the table of the pairs since
# the last one (none between 10.100 and the previous: no table), then itself
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,irq:irq_handler_entry//untraced/trigger/'
cat >expect <<'EOT'
2026-01-01 00:00:00.009960 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry => softirq_exit       20          185.000        2.000        8.000       19.000       21.000       21.000
2026-01-01 00:00:00.009960           worker    200 d.h1 [000] 1000.009960: irq:irq_handler_entry: irq=24 name=eth0
2026-01-01 00:00:00.010100           worker    200 d.h1 [000] 1000.010100: irq:irq_handler_entry: irq=24 name=eth0
2026-01-01 00:00:00.010300 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry => softirq_exit        1            5.000        5.000        5.000        5.000        5.000        5.000
2026-01-01 00:00:00.010300           worker    200 d.h1 [000] 1000.010300: irq:irq_handler_entry: irq=25 name=nvme0q1
2026-01-01 00:00:00.010530 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry => softirq_exit        1          500.000      500.000      500.000      500.000      500.000      500.000
2026-01-01 00:00:00.010530             bash    100 d.h1 [000] 1000.010530: irq:irq_handler_entry: irq=24 name=eth0
2026-01-01 00:00:00.020100 multi-trace: lost 5 events on CPU #1
# 5 events lost: cpu1=5
2026-01-01 00:00:00.031000 
        start => end             calls        total(us)      min(us)      p50(us)      p95(us)      p99(us)      max(us)
-------------    ------------ -------- ---------------- ------------ ------------ ------------ ------------ ------------
softirq_entry => softirq_exit        1           10.000       10.000       10.000       10.000       10.000       10.000
EOT
check_output expect actual

exit 0
