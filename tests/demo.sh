#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh - `make demo`: record a few seconds of this machine and show reports.
#
# As root it records the whole system for 3 s (CPU samples with stacks and
# the scheduler events) while a small load runs, then analyses the capture
# with several analyzers.  Without root (or without perf events) it analyses
# the capture shipped in samples/ instead.
set -u
cd "$(dirname "$0")/.."
CAP=${DEMO_CAPTURE:-/tmp/pp-demo.ppcap}
has() { ./pp-analyze help 2>/dev/null | grep -q "^  $1 "; }

if [ "$(id -u)" = 0 ] && ./pp-record -e cpu-clock -a --duration 0.1 -o /tmp/pp-demo-probe.ppcap >/dev/null 2>&1; then
	echo "== recording 3 s of this machine into $CAP (a small load runs meanwhile)"
	(build/load/cpuburn --duration 3 >/dev/null 2>&1 &)
	(build/load/ctxsw -n 20000 >/dev/null 2>&1 &)
	./pp-record -e cpu-clock -F 997 -g -e 'sched:sched_switch,sched:sched_wakeup' -a \
		--duration 3 -o "$CAP" || exit 1
else
	CAP=$(ls samples/*.ppcap 2>/dev/null | head -1)
	[ -n "$CAP" ] || { echo "demo: no root and no sample capture in samples/"; exit 1; }
	echo "== not root (or no perf events here): analysing the shipped sample $CAP"
fi
echo
echo "== pp-analyze $CAP info"
./pp-analyze "$CAP" info
if has profile; then
	echo; echo "== pp-analyze $CAP profile -g"
	./pp-analyze "$CAP" profile -g | head -40
fi
if has task-state; then
	echo; echo "== pp-analyze $CAP task-state"
	./pp-analyze "$CAP" task-state | head -30
fi
echo; echo "== pp-analyze $CAP trace -e sched:sched_switch (first lines)"
./pp-analyze "$CAP" trace -e sched:sched_switch | head -15
