#!/bin/sh
# SPDX-License-Identifier: MIT
# busy.sh - run a command beside a CPU load on every CPU (make check-busy).
#
# usage: busy.sh LOADDIR COMMAND [ARG...]
# Starts LOADDIR/hog, a nice-0 busy loop, pinned to each online CPU, then runs COMMAND with
# PP_BUSY=1 in its environment (a test that truly needs a quiet machine skips on it, saying
# why), and kills the hogs when COMMAND ends or this script is interrupted: the trap on EXIT,
# INT and TERM, and the hogs' own watch on their parent (they stop when it dies).  Exits with
# COMMAND's status.
set -u
load=${1:?usage: busy.sh LOADDIR COMMAND [ARG...]}
shift
[ $# -gt 0 ] || { echo "usage: busy.sh LOADDIR COMMAND [ARG...]" >&2; exit 2; }
[ -x "$load/hog" ] || { echo "busy.sh: no $load/hog: run make" >&2; exit 2; }

hogs=""
cmd=""
stop_hogs() {
	[ -n "$hogs" ] && kill $hogs 2>/dev/null
	[ -n "$hogs" ] && wait $hogs 2>/dev/null
	hogs=""
}
# on a signal: the command gets it too (it runs in the background, INT restored to its
# default, so that the wait for it ends on the signal at once)
on_signal() {
	stop_hogs
	[ -n "$cmd" ] && kill -"$1" "$cmd" 2>/dev/null
	exit "$2"
}
trap 'stop_hogs' EXIT
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

c=0
n=$(nproc)
while [ $c -lt "$n" ]; do
	"$load/hog" -c $c 2>/dev/null &
	hogs="$hogs $!"
	c=$((c + 1))
done
echo "busy.sh: a nice-0 hog on each of $n CPUs (pids$hogs)"
PP_BUSY=1 env --default-signal=INT "$@" &
cmd=$!
wait "$cmd"
rc=$?
cmd=""
stop_hogs
exit $rc
