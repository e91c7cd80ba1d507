#!/bin/sh
# SPDX-License-Identifier: MIT
# t705-progress: a replay that takes more than a second shows one progress line on stderr
# when stderr is a terminal (a pseudo-terminal from util-linux's script): bytes of the file,
# events, events per second, time left, erased at the end; nothing when stderr is not a
# terminal, with -q, or when the replay is quicker than a second.  The replay is made
# long for certain by its report's reader: trace writes into a pipe nobody reads for
# two seconds.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

command -v script >/dev/null || skip "no script (util-linux)"

# 120000 events: more trace output than a pipe holds, so the replay waits for its reader
cat >big.desc <<EOF
kv hostname testhost
kv nr_cpus_online 2
kv nr_cpus_possible 2
kv clock monotonic
event 1 sched:sched_switch $FIX/formats/sched_switch.format
event 2 sched:sched_wakeup $FIX/formats/sched_wakeup.format
task 100 100 1 bash -bash
task 200 200 100 worker ./worker
repeat 20000 10000
sample 1000.000001 0 200 200 2 comm=worker pid=200 prio=120 target_cpu=1
sample 1000.000002 1 0 0 1 prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=0 next_comm=worker next_pid=200 next_prio=120
sample 1000.000003 1 200 200 1 prev_comm=worker prev_pid=200 prev_prio=120 prev_state=1 next_comm=swapper/1 next_pid=0 next_prio=120
sample 1000.000004 0 100 100 2 comm=bash pid=100 prio=120 target_cpu=0
sample 1000.000005 0 0 0 1 prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=0 next_comm=bash next_pid=100 next_prio=120
sample 1000.000006 0 100 100 1 prev_comm=bash prev_pid=100 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120
end
EOF
"$CAPBUILD" big.desc big.ppcap || fail "capbuild"
build_fixture sched-basic small.ppcap

ESC=$(printf '\033')
CR=$(printf '\r')

# in_pty OUT CMD: run the shell command CMD with a pseudo-terminal as its stdin, stdout
# and stderr; what the terminal showed goes to OUT; CMD's exit status
in_pty() {
	_out=$1
	shift
	script -qec "$*" "$_out.raw" </dev/null >/dev/null 2>&1
	_rc=$?
	grep -av -e '^Script \(started\|done\) on ' -e "^$CR*\$" "$_out.raw" >"$_out"
	return $_rc
}

# the progress text: "pp-analyze: 1.20 KiB of 4.02 KiB (29%), 4096 events, 2.04k events/s, 0:05 left"
LINE='pp-analyze: [0-9.]+ [KMG]?i?B of [0-9.]+ [KMG]?i?B \([0-9]+%\), [0-9.]+[kMG]? events, [0-9.]+[kMG]? events/s, [0-9]+:[0-9][0-9] left'
SLOW='| (sleep 2; cat >/dev/null)'

# t705.1 under a terminal, a replay of more than a second: the line, then erased
in_pty tty.out "'$PP_ANALYZE' big.ppcap trace $SLOW" || fail "pp-analyze under a terminal exited $?"
grep -aqE "$LINE" tty.out || { cat -v tty.out; fail "no progress line on the terminal"; }
LC_ALL=C grep -aq "^${CR}pp-analyze: " tty.out || { cat -v tty.out; fail "the line does not start with a carriage return"; }
# the last thing on the terminal is the erase: a carriage return and ESC [ K after the text
tail=$(LC_ALL=C sed -n '$p' tty.out | tr -d '\n' | od -An -c | tr -d ' \n')
case $tail in
*'\r033[K') ;;
*) cat -v tty.out; fail "the line is not erased at the end (ends with '$tail')";;
esac
# one line, updated in place: no newline between the updates
[ "$(wc -l <tty.out)" -le 1 ] || { cat -v tty.out; fail "the progress took more than one line"; }
echo "t705.1: $(LC_ALL=C tr "$CR" '\n' <tty.out | grep -aE "$LINE" | sed "s/${ESC}\[K//" | tail -1)"

# t705.2 stderr not a terminal: nothing on it, same report
"$PP_ANALYZE" big.ppcap trace 2>err.out | (sleep 2; cat >/dev/null)
[ -s err.out ] && { cat -v err.out; fail "progress written to a stderr that is no terminal"; }
"$PP_ANALYZE" big.ppcap trace 2>/dev/null | (sleep 2; md5sum) >sum.pipe
in_pty sum.out "'$PP_ANALYZE' big.ppcap trace 2>/dev/null | md5sum"
tr -d '\r' <sum.out | cmp -s - sum.pipe || fail "the report differs under a terminal"

# t705.3 -q: no line
in_pty q.out "'$PP_ANALYZE' -q big.ppcap trace $SLOW" || fail "pp-analyze -q exited $?"
[ -s q.out ] && { cat -v q.out; fail "-q printed on the terminal"; }

# t705.4 a replay quicker than a second: no line
in_pty quick.out "'$PP_ANALYZE' small.ppcap trace >/dev/null" || fail "quick replay exited $?"
[ -s quick.out ] && { cat -v quick.out; fail "a quick replay printed a progress line"; }

# t705.5 a stream (pp-analyze -) has no size and shows nothing, even when slow
in_pty stream.out "cat big.ppcap | '$PP_ANALYZE' - trace $SLOW" || fail "stream exited $?"
[ -s stream.out ] && { cat -v stream.out; fail "a stream printed a progress line"; }
exit 0
