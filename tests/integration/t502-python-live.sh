#!/bin/sh
# SPDX-License-Identifier: MIT
# t502-python-live: python on a real capture of a known load: every event reaches a
# handler once and in time order (the count equals info's), __interval__ ticks equal
# duration / interval, an exception does not stop the run, and a plain python3 with
# `import pp` reads the same events.  A script with perf-prof's first line
# `#!/usr/bin/env -S pp python -e EVENTS --` runs live with its arguments.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event sched:sched_switch
"$PP_ANALYZE" help python 2>&1 | grep -q NO_PYTHON && skip "built with NO_PYTHON=1"

N=20000
"$PP_RECORD" -a -e sched:sched_switch,sched:sched_wakeup -o cap.ppcap -- \
	"$PP_LOAD/ctxsw" -n $N -c 0 2>rec.err || { cat rec.err; fail "pp-record"; }
events=$("$PP_ANALYZE" cap.ppcap info | awk '$1 == "events" { print $2 }')
assert_ge "events recorded" $((3 * N)) "$events"

cat >count.py <<'PY'
import sys
n = ticks = raised = 0
last = first = None
in_order = True
total = 0
def __sample__(ev):
    global n, last, first, in_order, total
    n += 1
    if first is None:
        first = ev._time
    if last is not None and ev._time < last:
        in_order = False
    last = ev._time
    total += ev._tid
    if n % 1000 == 0:
        raise RuntimeError("every thousandth event")
def __interval__():
    global ticks
    ticks += 1
def __exit__():
    print(n, in_order, ticks, first, last, total)
PY
run_ok out "$PP_ANALYZE" cap.ppcap python -i 50 count.py
read -r n in_order ticks first last total <out
assert_eq "events handled = info's count" "$events" "$n"
assert_eq "time order" True "$in_order"
assert_eq "__interval__ ticks = duration / interval" $(((last - first) / 50000000)) "$ticks"
raised=$(grep -c '^RuntimeError: every thousandth event' stderr.out)
assert_eq "exceptions printed (the run went on)" $((n / 1000)) "$raised"

PYMOD=$PP_LOAD/../python
PYTHON=${PYTHON:-/usr/bin/python3}
# A sanitizer build of pp.so does not load into a plain python3 (skipped, saying so);
# any other import failure (an unresolved symbol) is a failure.
[ -f "$PYMOD/pp.so" ] || fail "no $PYMOD/pp.so (make builds it unless NO_PYTHON=1)"
pymod_import
if [ $pymod_ok = 1 ]; then
	cat >alone.py <<'PY'
import sys
import pp
n = total = 0
for ev in pp.open(sys.argv[1]).events():
    n += 1
    total += ev._tid
print(n, total)
PY
	PYTHONPATH=$PYMOD run_ok alone.out "$PYTHON" alone.py cap.ppcap
	assert_eq "import pp reads the same events" "$n $total" "$(cat alone.out)"
else
	echo "t502.2 skipped: $PYMOD/pp.so is a sanitizer build, which does not import into $PYTHON"
fi

# t502.3 perf-prof's script form: for python, what follows "--" is the script and its
# arguments, not a command for pp-record to run
cat >live.py <<PY
#!/usr/bin/env -S $PP python -e sched:sched_switch -N 200 --
import sys
n = 0
def sched__sched_switch(event):
    global n
    n += 1
def __exit__():
    print(n, " ".join(sys.argv[1:]))
PY
chmod +x live.py
timeout 60 ./live.py a1 a2 >live.out 2>live.err || { cat live.err; fail "the live script exited $?"; }
assert_eq "a live script's events and arguments" "200 a1 a2" "$(sed 1d live.out)"
assert_eq "live: perf-prof's Loaded module line" "Loaded module: $(pwd -P)/live.py" "$(sed -n 1p live.out)"
exit 0
