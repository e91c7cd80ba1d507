#!/bin/sh
# SPDX-License-Identifier: MIT
# t389-analyzer-source: perf-prof's analyzers named as events (-e 'profile/-F 999 -g/',
# 'task-state', 'page-faults/-N 10/'): pp-record records what the named analyzer's plan
# records, with that plan's rate and stacks on its events alone, and an analyzer matches the
# capture's events of that plan under the source's name.
#  .1 one recording with a profile source at 999 Hz with stacks beside sched:sched_switch
#     without: the cpu-clock evsel has freq 999 and stacks, sched_switch has none; a
#     page-faults source with a period beside it (no "-F and --period exclude each other").
#  .2 trace -e 'profile/-F 999/' delivers exactly the cpu-clock samples (info's count).
#  .3 python: the handler is named after the source, profile(event), with perf-prof's
#     sample fields (pid, tid, cpu, read['value']); it sees every sample.
#  .4 multi-trace with the source untraced and -k pid (the source's events key by pid).
#  .5 a bad option inside the source is one line naming it.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch

"$PP_RECORD" -q -e 'sched:sched_switch,profile/-F 999 -g/,page-faults/-N 10/' -o src.cap -- \
	"$PP_LOAD/cpuburn" -d 1 >/dev/null 2>rec.err || { cat rec.err; fail "t389.1 record"; }
"$PP_ANALYZE" src.cap dump >dump.txt || fail "dump"
grep '^EVENT' dump.txt
grep -q '^EVENT id=[0-9]* kind=2 flags=0x4 .* name=cpu-clock ' dump.txt ||
	fail "t389.1 the profile source's cpu-clock has no stacks (-g)"
grep -q '^EVENT id=[0-9]* kind=1 flags=0 .* name=sched:sched_switch ' dump.txt ||
	fail "t389.1 sched_switch took the source's stacks"
nclock=$("$PP_ANALYZE" src.cap list | awk '$1 == "cpu-clock" { print $2 }')
assert_ge "t389.1 cpu-clock samples" 100 "$nclock"

# t389.2
n=$("$PP_ANALYZE" src.cap trace -e 'profile/-F 999/' | grep -c ' cpu-clock\| profile')
assert_eq "t389.2 trace of the source: every cpu-clock sample" "$nclock" "$n"

# t389.3
cat >prof.py <<'PY'
n = 0
bad = 0
def profile(event):
    global n, bad
    n += 1
    if event.pid != event._pid or event.cpu != event._cpu or not isinstance(event.read, dict):
        bad += 1
    if event.read['value'] < 1:
        bad += 1
def __exit__():
    print("profile", n, "bad", bad)
PY
"$PP_ANALYZE" src.cap python -e 'profile/-F 999/' prof.py >py.out 2>py.err || { cat py.err; fail "python"; }
cat py.out
assert_eq "t389.3 python profile(event) calls, fields right" "profile $nclock bad 0" "$(tail -1 py.out)"

# t389.4
"$PP_ANALYZE" src.cap multi-trace -e 'sched:sched_switch//key=prev_pid/' \
	-e 'sched:sched_switch//key=next_pid/,profile/-F 999/untraced/' -k pid -i 100000 --than 1ms --detail=samecpu \
	>mt.out 2>mt.err || { cat mt.err; fail "t389.4 multi-trace with an untraced source"; }
[ -s mt.err ] && { cat mt.err; fail "t389.4 stderr"; }

# t389.5
"$PP_RECORD" -q -e 'profile/--bogus/' -o bad.cap -- true >/dev/null 2>bad.err && fail "t389.5 accepted"
cat bad.err
assert_eq "t389.5 one line" 1 "$(wc -l <bad.err)"
grep -q 'bogus' bad.err || fail "t389.5 the bad option is not named"
echo PASS
