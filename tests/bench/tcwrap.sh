#!/bin/sh
# SPDX-License-Identifier: MIT
# tcwrap.sh - run trace-cmd where the kernel refuses the function tracer's control files.
#
# Why: on this kind of VM the kernel answers EPERM to any open of set_ftrace_pid,
# set_ftrace_notrace_pid, set_ftrace_filter and set_ftrace_notrace, and to writes of
# /proc/sys/kernel/ftrace_enabled, while event tracing (events/*/enable, set_event_pid,
# per_cpu/*/trace_pipe_raw) works.  trace-cmd 3.1 touches those files even for a pure event
# recording: without -d it stops with "Can't enable ftrace", with -d it stops on
# set_ftrace_filter, and an unchecked failed read of set_ftrace_pid can crash it.
#
# How: re-exec itself in a private mount namespace (unshare -m), and there bind-mount plain
# files over each control file that refuses us (probed, so a kernel that allows them is left
# alone): "no pid" for the pid lists, empty for the filters, "1" for ftrace_enabled.  The
# binds vanish with the namespace; nothing outside it changes.  Needs root.  trace-cmd still
# prints two harmless complaints about set_ftrace_filter/set_ftrace_notrace when it resets
# them at exit; the recording is complete and its exit status is 0.
#
# usage: tests/bench/tcwrap.sh trace-cmd record -e sched:sched_switch -o out.dat CMD...
set -eu

if [ "${PP_TCWRAP_IN_NS:-}" != 1 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "tcwrap.sh: needs root (mount namespace, tracefs)" >&2
		exit 1
	fi
	PP_TCWRAP_IN_NS=1 exec unshare --mount --propagation private -- sh "$0" "$@"
fi
unset PP_TCWRAP_IN_NS

tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -z "$tracefs" ]; then
	tracefs=/sys/kernel/tracing
	mount -t tracefs nodev "$tracefs"
fi

stubs=$(mktemp -d /tmp/tcwrap.XXXXXX)
printf 'no pid\n' >"$stubs/pid"
: >"$stubs/filter"
printf '1\n' >"$stubs/enabled"

# stub FILE STUB: bind STUB over FILE when FILE exists but cannot be opened
stub() {
	[ -e "$1" ] || return 0
	if ! (: <"$1") 2>/dev/null; then
		mount --bind "$2" "$1"
	fi
}
stub "$tracefs/set_ftrace_pid" "$stubs/pid"
stub "$tracefs/set_ftrace_notrace_pid" "$stubs/pid"
stub "$tracefs/set_ftrace_filter" "$stubs/filter"
stub "$tracefs/set_ftrace_notrace" "$stubs/filter"
stub "$tracefs/set_graph_function" "$stubs/filter"
stub "$tracefs/set_graph_notrace" "$stubs/filter"
# readable but not writable: probe by writing back the value it holds (with cat: dash's
# builtin printf does not report a failed write)
f=/proc/sys/kernel/ftrace_enabled
# shellcheck disable=SC2094 # procfs: the value is read before the write, O_TRUNC is ignored
if [ -e $f ] && ! (cat $f >$f) 2>/dev/null; then
	mount --bind "$stubs/enabled" $f
fi
rm -rf "$stubs"	# the bind mounts keep the inodes alive
exec "$@"
