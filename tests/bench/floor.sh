#!/bin/sh
# SPDX-License-Identifier: MIT
# floor.sh - the kernel's floor for recording tracepoints: EVENTS enabled in a tracefs
# instance of their own that nobody reads, around a command.
#
# Why: any recorder that keeps every event pays the tracepoint and the ring-buffer write in
# the traced task's context.  An instance with the events on and no reader pays exactly that
# (its ring overwrites itself when full): the bench's `floor` row, against which the
# recorders' own costs (reader wake-ups, their threads' CPU and cache effects, side band)
# show.  The instance uses the `local` clock and the default buffer size, as pp-record's and
# trace-cmd's do.
#
# usage: EVENTS="sched:sched_switch sched:sched_wakeup" floor.sh CMD...
# Needs root and tracefs (mounted at /sys/kernel/tracing).  The instance is removed at the
# end, and on SIGINT/SIGTERM.
set -u
T=/sys/kernel/tracing
I=$T/instances/pp-bench-floor-$$
[ -d "$T/instances" ] || { echo "floor.sh: no tracefs instances under $T" >&2; exit 1; }
[ -n "${EVENTS:-}" ] || { echo "floor.sh: EVENTS is empty" >&2; exit 2; }

cleanup() {
	[ -d "$I" ] || return 0
	echo 0 >"$I/tracing_on" 2>/dev/null
	for e in $EVENTS; do echo 0 >"$I/events/${e%%:*}/${e#*:}/enable" 2>/dev/null; done
	rmdir "$I" 2>/dev/null
}
trap 'cleanup; exit 130' INT TERM
mkdir "$I" || exit 1
echo local >"$I/trace_clock" 2>/dev/null
for e in $EVENTS; do
	if ! echo 1 >"$I/events/${e%%:*}/${e#*:}/enable"; then
		echo "floor.sh: cannot enable $e" >&2
		cleanup
		exit 1
	fi
done
"$@"
rc=$?
cleanup
exit $rc
