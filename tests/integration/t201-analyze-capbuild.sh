#!/bin/sh
# SPDX-License-Identifier: MIT
# t201-analyze-capbuild: a capture built by capbuild reads back exactly (info, trace)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture sched-basic

# t201.1 info: everything but the compressed size (zstd-version dependent)
run_ok info.out "$PP_ANALYZE" sched-basic.ppcap info
grep -v '^bytes ' info.out | sed 's|^capture .*|capture      X|' >actual
cat >expect <<'EOT'
capture      X
format       1.2 (indexed)
host         testhost (Linux 6.18.0-test x86_64), 2 CPUs online / 2 possible, page size 4096
command      pp-record -e sched:sched_switch,sched:sched_wakeup,irq:irq_handler_entry -a
recorder     pp-record 0.1.0, clock monotonic
time         1000.000100 .. 1000.005000 (4.900 ms)
wall clock   2026-01-01 00:00:00.000100 .. 2026-01-01 00:00:00.005000
events       6
  sched:sched_switch                                  4
  sched:sched_wakeup                                  1
  irq:irq_handler_entry                               1
lost         7 (cpu1=7)
late         0 (written after the reorder window)
segments     5: meta 1, events 1, ksyms 1, usyms 0, stats 0, digest 1
symbols      kernel: yes (4); user: 0 binaries, 0 symbols
tasks        4 at start, 1 comm changes, 0 mmaps
integrity    ok
EOT
check_output expect actual

# t201.2 trace: fields from the formats, comm history, latency flags, stacks
run_ok actual "$PP_ANALYZE" sched-basic.ppcap trace -g
cat >expect <<'EOT'
2026-01-01 00:00:00.000100           worker    200 d..2 [000] 1000.000100: sched:sched_wakeup: comm=worker-2 pid=201 prio=120 target_cpu=001
2026-01-01 00:00:00.000150           <idle>      0 .... [001] 1000.000150: sched:sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=worker-2 next_pid=201 next_prio=120
2026-01-01 00:00:00.000200           worker    200 .... [000] 1000.000200: sched:sched_switch: prev_comm=worker prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
    ffffffff81100010 schedule+0x10 ([kernel.kallsyms])
    ffffffff81100420 do_nanosleep+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
2026-01-01 00:00:00.001000           <idle>      0 d.h1 [001] 1000.001000: irq:irq_handler_entry: irq=24 name=virtio0-input
2026-01-01 00:00:00.003000   worker-renamed    201 dn.. [001] 1000.003000: sched:sched_switch: prev_comm=worker-renamed prev_pid=201 prev_prio=120 prev_state=D ==> next_comm=bash next_pid=100 next_prio=120
# 7 events lost on cpu1 at 2026-01-01 00:00:00.004000 (1000.004000)
2026-01-01 00:00:00.005000             bash    100 .... [001] 1000.005000: sched:sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
EOT
check_output expect actual

# t201.3 a bad description names the line
printf 'event 1 x:y missing.format\n' >bad.desc
"$CAPBUILD" bad.desc bad.ppcap 2>err.out && fail "capbuild accepted a missing format file"
grep -q "bad.desc:1: cannot open" err.out || { cat err.out; fail "no line number in the error"; }

# t201.4 tasks whose COMM records were lost are named by the events' own comm/pid fields
# (prev_/next_ of sched_switch, comm/pid of sched_wakeup); a known name is never replaced;
# a cpu-clock sample with pid/tid -1 belongs to the task last switched in on its CPU
build_fixture names-lost
run_ok actual "$PP_ANALYZE" names-lost.ppcap trace
cat >expect <<'EOT'
2026-01-01 00:00:00.000100             bash    100 .... [000] 1000.000100: sched:sched_wakeup: comm=lost-a pid=300 prio=120 target_cpu=000
2026-01-01 00:00:00.000200             bash    100 .... [000] 1000.000200: sched:sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=lost-a next_pid=300 next_prio=120
2026-01-01 00:00:00.000300           lost-a    300 .... [000] 1000.000300: sched:sched_switch: prev_comm=lost-a prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=lost-b next_pid=301 next_prio=120
2026-01-01 00:00:00.000400           lost-b    301 .... [000] 1000.000400: sched:sched_switch: prev_comm=lost-b prev_pid=301 prev_prio=120 prev_state=R ==> next_comm=impostor next_pid=100 next_prio=120
2026-01-01 00:00:00.000450             bash    100 .... [000] 1000.000450: cpu-clock: period=1000000 ip=0xffffffff81000000
2026-01-01 00:00:00.000500            <...>    302 .... [000] 1000.000500: sched:sched_wakeup: comm=bash pid=100 prio=120 target_cpu=000
EOT
check_output expect actual

# t201.4 the same without the loss: a task forked between pp-record's two readings of /proc
# and gone before the second has no record at all; its own sched_switch still names it
grep -v '^lost ' "$FIX/names-lost.desc" | sed "s|formats/|$FIX/formats/|" >names-window.desc
"$CAPBUILD" names-window.desc names-window.ppcap || fail "capbuild names-window"
run_ok actual "$PP_ANALYZE" names-window.ppcap trace
check_output expect actual
exit 0
