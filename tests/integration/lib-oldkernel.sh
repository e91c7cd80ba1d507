# SPDX-License-Identifier: MIT
# lib-oldkernel.sh - helpers of the t17x-oldkernel tests; source after lib.sh.
#
# OLDK: tests/tools/oldkernel, which runs a command as an older kernel answers it
# (docs/kernels.md): ENOSYS for newer system calls, EINVAL/E2BIG from perf_event_open
# for newer attr bits and sizes, ENOENT for newer tracefs files.

OLDK=${PP_OLDKERNEL:-$PP_LOAD/../tests/oldkernel}
[ -x "$OLDK" ] || { echo "missing $OLDK: run make"; exit 1; }
[ "$(uname -m)" = x86_64 ] || skip "oldkernel knows x86_64's system call numbers only"
# seccomp user notification with CONTINUE: Linux 5.5
"$OLDK" 6.1 -- true 2>/dev/null || skip "this kernel cannot run oldkernel's seccomp filter"

# sleep_truth WHAT CAPTURE RECERR: the sleeper of RECERR's LOAD line (-s 10ms) shows its
# nanosleep calls as S stays of 10 ms in CAPTURE's task-state (one or two short: see t351),
# their p50 10 ms to 10.8 ms (t351's 10.6 plus room for a machine other tests load).
# The stays are those over 9 ms (--than): the filter also stops the sleeper for a few
# microseconds at each open() of its start (the dynamic loader's), each an S stay of its own.
sleep_truth() {
	_load=$(grep '^LOAD sleeper' "$3") || { cat "$3"; fail "$1: no LOAD line"; }
	_k=$(printf '%s\n' "$_load" | tr ' ' '\n' | sed -n 's/^nanosleep=//p')
	_tid=$(printf '%s\n' "$_load" | tr ' ' '\n' | sed -n 's/^tids=//p')
	"$PP_ANALYZE" "$2" task-state --perins -t "$_tid" >"$2.ts" || fail "$1: task-state"
	_row=$(awk -v t="$_tid" '$1 == t && $3 == "S"' "$2.ts")
	[ -n "$_row" ] || { cat "$2.ts"; fail "$1: no S row for thread $_tid"; }
	assert_between "$1: p50 of S (us)" 10000 10800 "$(echo "$_row" | awk '{ print $7 }')"
	"$PP_ANALYZE" "$2" task-state -t "$_tid" --than 9ms >"$2.than" || fail "$1: --than"
	assert_between "$1: S stays of 10 ms" $((_k - 2)) "$_k" \
		"$(grep -c "task-state: $_tid sleeper WAIT 1[0-9] ms" "$2.than")"
}

# refusals WHAT ERRFILE PATTERN: how many of oldkernel -v's refusals in ERRFILE match PATTERN
refusals() {
	grep -c "^oldkernel .*$3" "$2"
}

# switch_truth WHAT CAPTURE RECERR: the sleeper of RECERR's LOAD line (-s 10ms) switches
# out asleep (sched_switch prev_state=S) once a nanosleep: consecutive ones 10 ms apart
# (9.5 to 20 ms) number the calls less one (one or two fewer: see t351; one more when the
# command's wait before its exec falls 10 ms before its first sleep, as under ASan).  For
# per-task recordings, whose switches into the sleeper belong to other tasks.
switch_truth() {
	_load=$(grep '^LOAD sleeper' "$3") || { cat "$3"; fail "$1: no LOAD line"; }
	_k=$(printf '%s\n' "$_load" | tr ' ' '\n' | sed -n 's/^nanosleep=//p')
	_tid=$(printf '%s\n' "$_load" | tr ' ' '\n' | sed -n 's/^tids=//p')
	"$PP_ANALYZE" "$2" trace >"$2.trace" || fail "$1: trace"
	_n=$(grep "sched_switch: .*prev_pid=$_tid .*prev_state=S" "$2.trace" | awk '{
		for (i = 1; i < NF; i++) if ($i ~ /^\[[0-9]+\]$/) t = $(i + 1) + 0
		if (p && t - p >= 0.0095 && t - p < 0.02) n++
		p = t
	} END { print n + 0 }')
	assert_between "$1: sleeps 10 ms apart" $((_k - 3)) "$_k" "$_n"
}
