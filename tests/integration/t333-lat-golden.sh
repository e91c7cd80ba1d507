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
check_golden t333/1 actual

# t333.2 --perins: one row per CPU; the pair cut by the loss is not counted
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --perins
check_golden t333/2 actual

# t333.3 --than: the slow pair, than(reqs); -i: one table per interval
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --than 100us -i 10
check_golden t333/3 actual

# t333.4 --detail=-50us,+20us: events before, between and after; the unmatched entry at the end
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,irq:irq_handler_entry//untraced/,irq:irq_handler_exit//untraced/,sched:sched_wakeup//untraced/,sched:sched_switch//untraced/' --than 100us --detail=-50us,+20us
check_golden t333/4 actual

# t333.5 --detail=samecpu,hide<5us: only CPU 0's events, close ones hidden
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,irq:irq_handler_entry//untraced/,irq:irq_handler_exit//untraced/,sched:sched_wakeup//untraced/,sched:sched_switch//untraced/' --than 100us '--detail=samecpu,hide<5us'
check_golden t333/5 actual

# t333.6 --lower and alias=: pairs faster than 3 us
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e 'irq:softirq_entry//alias=in/' -e 'irq:softirq_exit//alias=out/' --lower 3us
check_golden t333/6 actual

# t333.7 --impl pair: paired and unpaired counts, unpaired entries printed
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --impl pair
check_golden t333/7 actual

# t333.8 --format json
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --perins --than 400us --format json
check_golden t333/8 actual

# t333.9 key= and printkey=: one key for every softirq vector
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e 'irq:softirq_entry//key=vec/printkey=printf("vec%02d",key)/' -e 'irq:softirq_exit//key=vec/' --perins
check_golden t333/9 actual

# t333.10 nested-trace call-delay: the call tree with each function's latency
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit
check_golden t333/10 actual

# t333.11 nested-trace --impl delay
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit --impl delay
check_golden t333/11 actual

# t333.12 rundelay: wakeup, preemption (R and R+) and wakeup_new delays; a wakeup of a running task is no start
run_ok actual "$PP_ANALYZE" lat-sched.ppcap rundelay
check_golden t333/12 actual

# t333.13 rundelay --perins --than --detail=samekey with an untraced extra
run_ok actual "$PP_ANALYZE" lat-sched.ppcap rundelay --perins --than 1ms --detail=samekey -e 'sched:sched_wakeup*,sched:sched_switch' -e 'sched:sched_switch,sched:sched_migrate_task//untraced/key=pid/'
check_golden t333/13 actual

# t333.14 rundelay --filter and -t
run_ok actual "$PP_ANALYZE" lat-sched.ppcap rundelay --filter 'serv*' , rundelay -t 200
check_golden t333/14 actual

# t333.15 syscalls --perins: names from the capture's table, errors, exit_group closed by sched_process_free
run_ok actual "$PP_ANALYZE" lat-syscalls.ppcap syscalls --perins
check_golden t333/15 actual

# t333.16 syscalls --than: the slow calls and the unfinished exit_group
run_ok actual "$PP_ANALYZE" lat-syscalls.ppcap syscalls --than 200us
check_golden t333/16 actual

# t333.17 kmemprof: bytes per stack, allocations never freed
run_ok actual "$PP_ANALYZE" lat-kmem.ppcap kmemprof -e kmem:kmalloc -e kmem:kfree -k ptr
check_golden t333/17 actual

# t333.18 multi-trace --cycle with role=: running time between switches of one CPU
run_ok actual "$PP_ANALYZE" lat-sched.ppcap multi-trace -e 'sched:sched_switch//role=(next_pid?1:0)|(prev_pid?2:0)/' --cycle
check_golden t333/18 actual

# t333.19 kmemprof --format json
run_ok actual "$PP_ANALYZE" lat-kmem.ppcap kmemprof -e kmem:kmalloc -e kmem:kfree -k ptr --format json
check_golden t333/19 actual

# t333.20 nested-trace --format json
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap nested-trace -e irq:softirq_entry,irq:softirq_exit -e irq:irq_handler_entry,irq:irq_handler_exit --format json
check_golden t333/20 actual

# t333.21 syscalls --format csv
run_ok actual "$PP_ANALYZE" lat-syscalls.ppcap syscalls --perins --format csv
check_golden t333/21 actual

# t333.22 trigger: each irq_handler_entry (untraced) prints the table of the pairs since
# the last one (none between 10.100 and the previous: no table), then itself
run_ok actual "$PP_ANALYZE" lat-softirq.ppcap multi-trace -e irq:softirq_entry -e 'irq:softirq_exit,irq:irq_handler_entry//untraced/trigger/'
check_golden t333/22 actual

exit 0
