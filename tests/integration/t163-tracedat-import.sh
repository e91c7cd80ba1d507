#!/bin/sh
# SPDX-License-Identifier: MIT
# t163-tracedat-import: a trace.dat recorded with kernel stacks (trace-cmd record -T) and
# imported with `import -o`: info and event-care agree on the events (per CPU, none lost or
# out of order), every kernel frame of the carried stacks resolves through the file's own
# kallsyms, the sleeper's switches end in __schedule, and info says no kernel stacks lack.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
. "$TOP/tests/integration/lib-tracedat.sh"
need_event sched:sched_switch
need_trace_cmd
CAPCHECK=$PP_LOAD/../tests/capcheck
[ -x "$CAPCHECK" ] || fail "missing $CAPCHECK: run make first"

tc_record -T -e sched:sched_switch -o st.dat "$PP_LOAD/sleeper" -n 50 -s 1ms
td_capture st.dat st.ppcap
pid=$(load_field "$LOAD" pid)

# t163.1 info and event-care: the same count, split the same way over the CPUs
ev=$(td_fact st.ppcap events)
assert_ge "events imported" 100 "$ev"
run_ok care.txt "$PP_ANALYZE" st.ppcap event-care
tail -1 care.txt | grep -q 'event-care: ok' || { cat care.txt; fail "event-care"; }
assert_eq "event-care's events over the CPUs" "$ev" \
	"$(awk '$1 ~ /^\[[0-9]+\]$/ { n += $2 } END { print n }' care.txt)"
assert_eq "event-care's lost and out of order" 0 \
	"$(awk '$1 ~ /^\[[0-9]+\]$/ { n += $3 + $4 + $5 } END { print n }' care.txt)"
assert_eq "events trace-cmd report lists" "$ev" \
	"$(trace-cmd report st.dat 2>/dev/null | grep -c ' sched_switch: ')"

# t163.2 the stacks: resolved by the file's kallsyms, the sleeper's through __schedule
set -- $("$CAPCHECK" st.ppcap kframes | tr '=' ' ')
assert_ge "kernel frames carried" "$ev" "$2"
assert_eq "kernel frames no KSYM resolves" 0 "$4"
"$CAPCHECK" st.ppcap stacks "$pid" >stacks.txt
grep -q '__schedule_\[k\]' stacks.txt || { head stacks.txt; fail "no __schedule in the sleeper's stacks"; }
grep -q 'no kernel stacks' st.ppcap.info && fail "info says kernel stacks lack"
exit 0
