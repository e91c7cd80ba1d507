#!/bin/sh
# SPDX-License-Identifier: MIT
# t501-python-golden: the python analyzer on a small built capture: callbacks in time
# order exactly once per event, interval ticks, losses, the pp.Event API, exceptions
# (going on, or stopping with --strict), sys.exit(), the help template, bad scripts, and
# the standalone `import pp` reading the same events.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

"$PP_ANALYZE" help python >/dev/null 2>&1 || skip "pp-analyze has no python analyzer"
if "$PP_ANALYZE" help python 2>&1 | grep -q NO_PYTHON; then skip "built with NO_PYTHON=1"; fi
build_fixture sql-basic

# t501.1 handlers by event, __sample__ for the rest, in time order, once each; -i ticks
cat >order.py <<'PY'
import sys
seen = []
def __init__():
    print("init", sys.argv)
def sched__sched_switch(ev):
    seen.append(("switch", ev._time, ev.prev_comm))
def sched__sched_wakeup(ev):
    seen.append(("wakeup", ev._time, ev.comm))
def __sample__(ev):
    seen.append((ev._event, ev._time))
def __interval__():
    seen.append(("tick",))
def __lost__(start, end):
    seen.append(("lost", start, end))
def __exit__():
    for s in seen:
        print(*s)
    times = [s[1] for s in seen if len(s) > 1 and s[0] != "lost"]
    print("events", len(times), "in order", times == sorted(times),
          "ticks", sum(1 for s in seen if s[0] == "tick"))
PY
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python -i 3 order.py -- x y
cat >expect <<'EOT'
init ['order.py', 'x', 'y']
wakeup 1000000100000 worker-2
switch 1000000150000 swapper/1
switch 1000000200000 worker
irq:softirq_entry 1000001000000
irq:softirq_entry 1000002000000
timer:hrtimer_start 1000003000000
tick
raw_syscalls:sys_enter 1000004000000
raw_syscalls:sys_enter 1000004500000
cpu-clock 1000005000000
tick
switch 1000007000000 worker-renamed
lost 1000007000000 1000008000000
tick
wakeup 1000009100000 worker
events 11 in order True ticks 3
EOT
check_output expect actual
n=$("$PP_ANALYZE" sql-basic.ppcap info | awk '$1 == "events" { print $2 }')
assert_eq "events delivered = info's count" "events $n" "$(tail -1 actual | cut -d' ' -f1-2)"

# t501.2 pp.Event: attributes, [], get, in, len, keys/values/items, to_dict, print, str,
# _callchain, _event with an alias, handlers named after the alias, arrays as lists
cat >api.py <<'PY'
n = 0
def sched__sw(ev):
    global n
    n += 1
    if n != 2:
        return
    print(ev)
    ev.print(timestamp=False)
    print(len(ev), "prev_pid" in ev, "nope" in ev, ev.get("nope", 7), ev.get("prev_pid"))
    print(ev["next_comm"], ev.next_pid, ev._event, ev._realtime)
    print([(f["symbol"], f["offset"], f["kernel"], f["dso"]) for f in ev._callchain])
    print(ev.keys()[:6], list(ev) == ev.items(), dict(ev) == ev.to_dict(), ev.values()[:3], ev.items()[-1])
    for name, value in ev:
        assert ev[name] == value and getattr(ev, name) == value, name
    print(sorted(ev.to_dict().items())[1:4])
    print(hash(ev) == hash(ev), repr(ev)[:40])
    try:
        ev.nope
    except AttributeError as e:
        print(e)
def __sample__(ev):
    if ev._event == "raw_syscalls:sys_enter":
        print(ev._event, ev.id, ev.args)
    elif ev._event == "cpu-clock":
        print(ev._event, hex(ev._ip), ev._period, [f["symbol"] for f in ev._callchain])
        ev.print()
PY
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python -e 'sched:sched_switch//alias=sw/,raw_syscalls:sys_enter,cpu-clock' api.py
cat >expect <<'EOT'
2026-01-01 00:00:00.000200           worker    200 .... [000] 1000.000200: sched:sched_switch: prev_comm=worker prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          worker    200 .... [000] 1000.000200: sched:sched_switch: prev_comm=worker prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
    ffffffff81100010 schedule+0x10 ([kernel.kallsyms])
    ffffffff81100420 do_nanosleep+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
    0000000000401110 work_loop+0x10 (/usr/bin/worker)
    0000000000401010 main+0x10 (/usr/bin/worker)
18 True False 7 200
swapper/0 0 sched:sw 1767225600000200000
[('schedule', 16, True, '[kernel.kallsyms]'), ('do_nanosleep', 32, True, '[kernel.kallsyms]'), ('entry_SYSCALL_64', 8, True, '[kernel.kallsyms]'), ('work_loop', 16, False, '/usr/bin/worker'), ('main', 16, False, '/usr/bin/worker')]
['_pid', '_tid', '_time', '_cpu', '_period', '_realtime'] True True [200, 200, 1000000200000] ('_event', 'sched:sw')
[('_cpu', 0), ('_event', 'sched:sw'), ('_period', 1)]
True pp.Event({'_pid': 200, '_tid': 200, '_ti
event sched:sw has no field 'nope'
raw_syscalls:sys_enter 39 [0, 0, 0, 0, 0, 0]
raw_syscalls:sys_enter 1 [0, 0, 0, 0, 0, 0]
cpu-clock 0x401110 1000000 ['work_loop', 'main']
2026-01-01 00:00:00.005000           worker    200 .... [000] 1000.005000: cpu-clock: period=1000000 ip=0x401110
    0000000000401110 work_loop+0x10 (/usr/bin/worker)
    0000000000401010 main+0x10 (/usr/bin/worker)
EOT
check_output expect actual

# t501.3 an exception is printed with its traceback and the run goes on; --strict stops
cat >raise.py <<'PY'
n = 0
def __sample__(ev):
    global n
    n += 1
    if n == 2:
        raise ValueError("boom at %d" % ev._time)
def __exit__():
    print("seen", n)
PY
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python raise.py
assert_eq "events after an exception" "seen 11" "$(cat actual)"
grep -q 'ValueError: boom at 1000000150000' stderr.out || { cat stderr.out; fail "no traceback"; }
grep -q 'File "raise.py", line 6, in __sample__' stderr.out || { cat stderr.out; fail "traceback"; }
"$PP_ANALYZE" sql-basic.ppcap python --strict raise.py >actual 2>stderr.out
assert_eq "--strict exit status" 1 $?
assert_eq "--strict stops at the exception" "seen 2" "$(cat actual)"

# t501.4 sys.exit() in a handler ends the run cleanly, __exit__ still runs
printf 'n = 0\ndef __sample__(ev):\n    global n\n    n += 1\n    if n == 3:\n        raise SystemExit\ndef __exit__():\n    print("seen", n)\n' >stop.py
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python stop.py
assert_eq "sys.exit()" "seen 3" "$(cat actual)"

# t501.5 a script from stdin and as a module name
printf 'n = 0\ndef __sample__(ev):\n    global n\n    n += 1\ndef __exit__():\n    print("stdin", n)\n' >counter_mod.py
run_ok actual sh -c "\"$PP_ANALYZE\" sql-basic.ppcap python - <counter_mod.py"
assert_eq "script on stdin" "stdin 11" "$(cat actual)"
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python -e irq:softirq_entry counter_mod
assert_eq "script as a module" "stdin 2" "$(cat actual)"
# live (a stream, as `pp python` runs), perf-prof's "Loaded module: PATH" comes first on
# stdout, the absolute path of the file, for a module name and for a script path alike
run_ok actual sh -c "\"$PP_ANALYZE\" - python -e irq:softirq_entry counter_mod <sql-basic.ppcap"
printf 'Loaded module: %s/counter_mod.py\nstdin 2\n' "$(pwd -P)" >expect
check_output expect actual
mkdir -p sub && cp counter_mod.py sub/bypath.py
run_ok actual sh -c "\"$PP_ANALYZE\" - python -e irq:softirq_entry sub/bypath.py <sql-basic.ppcap"
printf 'Loaded module: %s/sub/bypath.py\nstdin 2\n' "$(pwd -P)" >expect
check_output expect actual

# t501.5b perf-prof suite's field access script: every access form, no exception
cat >access.py <<'PY'
def __sample__(event):
    pid = event._pid; tid = event._tid; cpu = event._cpu; time = event._time
    period = event._period
    assert event['_pid'] == pid and event.get('nonexistent', -1) == -1 and '_pid' in event
    assert len(event) == len(event.keys())
    n = 0
    for name, value in event:
        n += 1
    assert n == len(event)
    d = event.to_dict()
def __exit__():
    print("field access ok")
PY
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python access.py
assert_eq "field access forms" "field access ok" "$(cat actual)"
# (a sanitizer build adds its leak-suppression report to stderr: only pp's own lines count)
grep -v '^-*$\|^Suppressions used:\|^ *count *bytes template\|^ *[0-9][0-9]* *[0-9][0-9]* ' stderr.out >own.err
[ ! -s own.err ] || { cat stderr.out; fail "field access raised"; }

# t501.6 the help template: a handler stub and the field list per event
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python -e irq:softirq_entry,cpu-clock help
cat >expect <<'EOT'
#!/usr/bin/env -S pp-analyze CAPTURE python -e irq:softirq_entry,cpu-clock --
# A pp python script: every callback is optional.
# Run it: pp-analyze CAPTURE python -e 'irq:softirq_entry,cpu-clock' this.py [-- args]
# Events are pp.Event objects: event.field, event['field'], event.get(),
# keys()/values()/items(), to_dict(), print(); also 'import pp' from python3:
# for event in pp.open('CAPTURE').events('irq:softirq_entry,cpu-clock'): ...
import sys

def __init__():
    pass

def __exit__():
    pass

def __interval__():
    # every -i MS of capture time
    pass

def __lost__(start, end):
    # events were lost between these times (ns)
    pass

# irq:softirq_entry
#   _pid _tid _time _cpu _period _realtime (int)
#   common_flags (int)
#   common_preempt_count (int)
#   common_pid (int)
#   vec (int)
def irq__softirq_entry(event):
    pass

# cpu-clock
#   _pid _tid _time _cpu _period _realtime (int) _ip _addr (int) _callchain (list of dict)
def cpu_clock(event):
    pass

def __sample__(event):
    # events without a handler of their own; event._event names them
    pass
EOT
check_output expect actual
cp actual tmpl.py
run_ok actual "$PP_ANALYZE" sql-basic.ppcap python -e irq:softirq_entry,cpu-clock tmpl.py
assert_eq "the template runs" "" "$(cat actual)"

# t501.7 bad scripts: exit 2 with the reason
bad() { _m=$1; shift; error_says "python $*" "$_m" "$PP_ANALYZE" sql-basic.ppcap python "$@"; }	# MESSAGE ARGS...
printf 'def __sample__(ev)\n    pass\n' >syntax.py
bad "give a script"
bad "cannot open script 'nope.py'" nope.py
bad "SyntaxError" syntax.py
bad "No module named 'no_such_module'" no_such_module

# t501.8 the standalone module reads the same events as the embedded interpreter
PYMOD=$PP_LOAD/../python
PYTHON=${PYTHON:-/usr/bin/python3}
# A sanitizer build of pp.so does not load into a plain python3 (skipped, saying so);
# any other import failure (an unresolved symbol) is a failure.
[ -f "$PYMOD/pp.so" ] || fail "no $PYMOD/pp.so (make builds it unless NO_PYTHON=1)"
# every symbol but CPython's comes from pp.so's own libraries: Debian's python3 links zlib,
# a pyenv or venv python3 may not ("undefined symbol: deflate")
if command -v ldd >/dev/null; then
	ldd -r "$PYMOD/pp.so" 2>&1 | grep 'undefined symbol' | grep -v '[[:space:]]_*Py' | grep -v '__[a-z]*san_' >undef.txt
	[ ! -s undef.txt ] || { cat undef.txt; fail "pp.so needs symbols none of its libraries give"; }
fi
pymod_import
if [ $pymod_ok = 1 ]; then
	cat >emb.py <<'PY'
def __sample__(ev):
    print(ev._event, ev._time, ev._cpu, ev._tid,
          sorted((k, v) for k, v in ev.items() if k not in ("_callchain", "_event")))
PY
	cat >alone.py <<'PY'
import sys
import pp
cap = pp.open(sys.argv[1])
for ev in cap.events(sys.argv[2] if len(sys.argv) > 2 else None):
    print(ev._event, ev._time, ev._cpu, ev._tid,
          sorted((k, v) for k, v in ev.items() if k not in ("_callchain", "_event")))
PY
	for sel in "" "sched:sched_switch/prev_pid>0/,irq:*"; do
		if [ -z "$sel" ]; then
			run_ok a.out "$PP_ANALYZE" sql-basic.ppcap python emb.py
			PYTHONPATH=$PYMOD run_ok b.out "$PYTHON" alone.py sql-basic.ppcap
		else
			run_ok a.out "$PP_ANALYZE" sql-basic.ppcap python -e "$sel" emb.py
			PYTHONPATH=$PYMOD run_ok b.out "$PYTHON" alone.py sql-basic.ppcap "$sel"
		fi
		check_output a.out b.out
	done
	assert_eq "standalone events" 4 "$(wc -l <b.out | tr -d ' ')"
	PYTHONPATH=$PYMOD run_ok actual "$PYTHON" -c 'import pp; c = pp.open("sql-basic.ppcap");
print(c.event_names()); print(c.fields("softirq_entry")); print(c.host()["hostname"])'
	cat >expect <<'EOT'
['sched:sched_switch', 'sched:sched_wakeup', 'irq:softirq_entry', 'timer:hrtimer_start', 'raw_syscalls:sys_enter', 'cpu-clock']
['common_type', 'common_flags', 'common_preempt_count', 'common_pid', 'vec']
testhost
EOT
	check_output expect actual
	PYTHONPATH=$PYMOD run_ok actual "$PYTHON" "$SAMPLES/python/standalone.py" sql-basic.ppcap
	grep -q '^worker-2 ' actual || { cat actual; fail "samples/python/standalone.py"; }
else
	echo "t501.8 skipped: $PYMOD/pp.so is a sanitizer build, which does not import into $PYTHON"
fi

# t501.9 the samples run (samples/python/*.py name their events on a "# events:" line)
for f in "$SAMPLES"/python/*.py; do
	[ "$(basename "$f")" = standalone.py ] && continue
	ev=$(sed -n 's/^# events: *//p' "$f" | head -1)
	run_ok actual "$PP_ANALYZE" sql-basic.ppcap python -e "$ev" -i 3 "$f"
	[ -s actual ] || fail "sample $f printed nothing"
	! grep -q Traceback stderr.out || { cat stderr.out; fail "sample $f raised"; }
done

# t501.10 a name that is not UTF-8 (a comm is any 15 bytes): the field is a str with
# surrogate escapes (its bytes come back with encode('utf-8', 'surrogateescape')), and
# print() and str() show the byte as \xff, as trace does (issue 20), never raising
# UnicodeDecodeError
cat >bad.desc <<EOT
kv hostname testhost
kv clock monotonic
kv nr_cpus_online 1
event 1 sched:sched_switch $FIX/formats/sched_switch.format
task 300 300 1 "b\xffd" ./bad
sample 1000.000100 0 300 300 1 prev_comm="b\xffd" prev_pid=300 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
EOT
"$CAPBUILD" bad.desc bad.ppcap || fail "capbuild bad.desc"
cat >bad.py <<'PY'
def __sample__(ev):
    assert ev.prev_comm.encode('utf-8', 'surrogateescape') == b'b\xffd', ascii(ev.prev_comm)
    ev.print(timestamp=False)
    assert 'prev_comm=b\\xffd ' in str(ev), str(ev)
PY
run_ok actual "$PP_ANALYZE" bad.ppcap python --strict bad.py
grep -q 'prev_comm=b.*d prev_pid=300' actual || { cat actual stderr.out; fail "print() of a non-UTF-8 name"; }
exit 0
