#!/bin/sh
# SPDX-License-Identifier: MIT
# t605-pp-process: `pp ANALYZER` is one process to whoever started it, as perf-prof is to
# its pytest harness (tests/PerfProf/PerfProf.py: Popen, no TTY, signals to that one pid,
# 10 s to end, any stderr line or a death by signal fails the test).  Driven here the same
# way, from python3:
#   t605.1 SIGINT to pp's pid alone: exit 0, the final report (the only one with -i 10000),
#          stderr empty
#   t605.2 SIGUSR2 then SIGINT: perf-prof's CPU line for pp-record and for pp-analyze on
#          stdout, exit 0, neither program left running, no tracefs instance of theirs
#   t605.3 SIGUSR1: an interval report at once (-i 10000: none would come before the end)
#   t605.4 SIGKILL of pp: pp-record and pp-analyze end within 5 s, their instances gone
#   t605.5 -v: nothing on stderr (the analyzer's own verbose output); -vv: pp-record's
#          summary; -vvv: a filter the kernel cannot apply is said (without -v: nothing,
#          t605.6, from pp or from pp-record alone)
#   t605.7 `pp -h`, `pp top -h`: help on stdout, exit 0
#   t605.10/11 a system() command that hangs, or pp's stdout no longer read: pp still ends
#          within 10 s, nothing of it left running
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event sched:sched_wakeup
command -v python3 >/dev/null 2>&1 || skip "no python3 to drive pp as perf-prof's harness does"
INST=/sys/kernel/tracing/instances

# drive.py RUNTIME SIGNALS TAG CMD...: start CMD as the harness does, after RUNTIME seconds
# write its children ("PID COMM" lines) to TAG.kids, send SIGNALS (SIGxxx, or sleepN, comma
# separated) to its pid, wait 10 s at most; TAG.out, TAG.err, TAG.rc ("timeout" if it hung),
# TAG.eof: "yes" when its stdout and stderr were closed by all who had them 5 s after its end.
# With DRIVE_NOREAD=1 its stdout is not read until it ended, as the harness stops reading
# when a test fails on a stderr line and then ends the program
cat >drive.py <<'EOF'
import os, signal, subprocess, sys, threading, time

def ppid(pid):
    try:
        with open("/proc/%s/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1

def comm(pid):
    with open("/proc/%s/comm" % pid) as f:
        return f.read().strip()

runtime, sigs, tag, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, universal_newlines=True)
got = {}
def drain(name, f):
    got[name] = f.read()
readers = [threading.Thread(target=drain, args=(n, f), daemon=True) for n, f in
           (("out", p.stdout), ("err", p.stderr))]
noread = os.environ.get("DRIVE_NOREAD") == "1"
for r in readers[1:] if noread else readers:
    r.start()
time.sleep(runtime)
with open(tag + ".kids", "w") as f:
    for pid in os.listdir("/proc"):
        if pid.isdigit() and ppid(pid) == p.pid:
            try:
                f.write("%s %s\n" % (pid, comm(pid)))
            except OSError:
                pass
for s in sigs.split(","):
    if s.startswith("sleep"):
        time.sleep(float(s[5:]))
    elif s:
        p.send_signal(getattr(signal, s))
try:
    rc = p.wait(10)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    rc = "timeout"
if noread:
    readers[0].start()
end = time.time() + 5   # the pipes stay open while a child of pp lives on
for r in readers:
    r.join(max(0, end - time.time()))
for name in ("out", "err"):
    with open(tag + "." + name, "w") as f:
        f.write(got.get(name, ""))
with open(tag + ".rc", "w") as f:
    f.write("%s\n" % rc)
with open(tag + ".eof", "w") as f:
    f.write("%s\n" % ("yes" if all(not r.is_alive() for r in readers) else "no"))
EOF

# run RUNTIME SIGNALS TAG ARGS...: pp ARGS... through drive.py; RC is its exit status
run() {
	_rt=$1 _sigs=$2 _tag=$3
	shift 3
	python3 drive.py "$_rt" "$_sigs" "$_tag" "$PP" "$@" || fail "drive.py $_tag"
	RC=$(cat "$_tag.rc")
	assert_ge "$_tag: processes started by pp" 2 "$(wc -l <"$_tag.kids")"
}

# quiet TAG: nothing on stderr
quiet() {
	[ -s "$1.err" ] && { cat "$1.err"; fail "$1: lines on stderr"; }
	return 0
}

# gone TAG: no pp-record/pp-analyze of that run left (nor anything holding pp's stdout or
# stderr), no tracefs instance of theirs
gone() {
	assert_eq "$1: pp's stdout and stderr closed 5 s after its end" yes "$(cat "$1.eof")"
	_left=
	while read -r _pid _comm; do
		# alive: the same name, and not a zombie its new parent has yet to reap
		[ "$(cat "/proc/$_pid/comm" 2>/dev/null)" = "$_comm" ] &&
			[ "$(sed 's/.*) \(.\).*/\1/' "/proc/$_pid/stat" 2>/dev/null)" != Z ] &&
			_left="$_left $_pid($_comm)"
		for _i in "$INST/pp-$_pid" "$INST/pp-$_pid-clock"; do
			[ -e "$_i" ] && _left="$_left $_i"
		done
	done <"$1.kids"
	[ -z "$_left" ] || fail "$1: left behind:$_left"
}

# t605.1: SIGINT to the pid ends the pipeline like a Ctrl-C
run 2.5 SIGINT int task-state -i 10000
cat int.err
assert_eq "t605.1 exit status after SIGINT" 0 "$RC"
quiet int
assert_eq "t605.1 reports (the final one)" 1 "$(grep -c '^St  *calls  *total(us)' int.out)"
grep -q '^S  *[0-9][0-9]* ' int.out || fail "t605.1: no sleeping tasks in the final report"
gone int

# t605.2: SIGUSR2 then SIGINT, as the harness ends every test
run 2.5 SIGUSR2,SIGINT usr2 top -e sched:sched_switch -i 1000
assert_eq "t605.2 exit status after SIGUSR2, SIGINT" 0 "$RC"
quiet usr2
# perf-prof's line (monitor.c, sigusr2_handler()), then the program
CPU='^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} CPU'
CPU="$CPU %usr [0-9]+\.[0-9]{2} %sys [0-9]+\.[0-9]{2} MAXRSS [1-9][0-9]*k"
for prog in pp-record pp-analyze; do
	n=$(grep -cE "$CPU $prog\$" usr2.out)
	assert_eq "t605.2 CPU lines of $prog" 1 "$n"
done
assert_ge "t605.2 top reports" 2 "$(grep -c 'sample .* events' usr2.out)"
gone usr2

# t605.3: SIGUSR1 prints the interval report now
run 1.5 SIGUSR1,sleep1,SIGINT usr1 top -e sched:sched_switch -i 10000
assert_eq "t605.3 exit status" 0 "$RC"
quiet usr1
assert_eq "t605.3 reports (SIGUSR1's and the final one)" 2 "$(grep -c 'sample .* events' usr1.out)"
gone usr1

# t605.4: SIGKILL of pp takes pp-record and pp-analyze with it
run 1.5 SIGKILL kill top -e sched:sched_switch -i 1000
assert_eq "t605.4 pp's status" -9 "$RC"
gone kill

# t605.5: -v is the analyzer's own (expr -v lists its program on stdout): stderr stays
# empty, as perf-prof's harness wants; -vv shows pp-record's summary, -vvv also a filter
# the kernel cannot apply
FILTER='sched:sched_wakeup/comm_get(_pid) ~ "t605*"/'
run 2 SIGINT verbose1 trace -e "$FILTER" -v
assert_eq "t605.5 exit status with -v" 0 "$RC"
quiet verbose1
gone verbose1
run 2 SIGINT verbose trace -e "$FILTER" -vv
assert_eq "t605.5 exit status with -vv" 0 "$RC"
grep -q "^pp-record: [0-9]* events" verbose.err ||
	{ cat verbose.err; fail "t605.5: no summary with -vv"; }
gone verbose
run 2 SIGINT verbose3 trace -e "$FILTER" -v -vv
assert_eq "t605.5 exit status with -v -vv" 0 "$RC"
grep -q "the kernel cannot apply filter" verbose3.err ||
	{ cat verbose3.err; fail "t605.5: the filter the kernel cannot apply is not said with -vvv"; }
gone verbose3

# t605.6: ... and without -v, neither; pp-record alone says it only with -v too, for
# the tracefs instance and for perf's rings
run 2 SIGINT filter trace -e "$FILTER"
assert_eq "t605.6 exit status" 0 "$RC"
quiet filter
gone filter
for how in "" --no-ftrace; do
	for v in "" -v; do
		"$PP_RECORD" $how $v -e "$FILTER" --duration 0.3 -o f.pp 2>f.err ||
			{ cat f.err; fail "t605.6: pp-record $how $v"; }
		want=0
		[ -n "$v" ] && want=1
		n=$(grep -c "the kernel cannot apply filter" f.err)
		assert_eq "t605.6 filter lines of pp-record $how $v" $want "$n"
	done
done

# t605.9 (2026-12-05): an analyzer far behind (a printf per event of a syscall storm) is
# told to stop 2 s after SIGINT and reports what it has: pp ends within the harness's 10 s,
# nothing on stderr (pp-record is not told of a broken pipe), nothing left running
"$PP_LOAD/syscalls" -t 2 -n 3000000 >/dev/null 2>&1 &
storm=$!
run 2 SIGINT slow expr -e raw_syscalls:sys_enter 'printf("syscall %d\n", id)'
kill $storm 2>/dev/null
wait $storm 2>/dev/null
assert_eq "t605.9 exit status of a stopped slow analyzer" 0 "$RC"
quiet slow
assert_ge "t605.9 lines printed" 100 "$(grep -c '^syscall ' slow.out)"
gone slow

# t605.10 (2026-12-05): a system() command that does not end (perf-prof's suite:
# system("cat /proc/%d/status", pid)) is killed with its process group when pp-analyze is
# told to stop: pp ends within the harness's 10 s and leaves no command behind
"$PP_LOAD/ctxsw" -n 200000 >/dev/null 2>&1 &
storm=$!
run 2 SIGINT hang expr -e sched:sched_wakeup 'system("sleep 605.10; : t605-hang")'
assert_eq "t605.10 exit status with a system() command that hangs" 0 "$RC"
quiet hang
gone hang
pgrep -f 't605-hang|sleep 605.10' >/dev/null && fail "t605.10: the system() command was left running"

# t605.11: ... and when nobody reads pp's stdout any more (the command and pp-analyze
# blocked writing), pp kills pp-analyze 7 s after the stop, says so, and still ends
DRIVE_NOREAD=1 run 1 SIGUSR2,SIGINT noread expr -e sched:sched_wakeup \
	'system("cat /proc/%d/status /proc/self/status; : t605-noread", pid)'
kill $storm 2>/dev/null
wait $storm 2>/dev/null
[ "$RC" != timeout ] || fail "t605.11: pp did not end within 10 s with its stdout not read"
assert_ge "t605.11 exit status (not killed by a signal)" 0 "$RC"
gone noread
pgrep -f 't605-noread' >/dev/null && fail "t605.11: a system() command was left running"

# t605.8 (2026-12-04): the command's output goes to pp's stdout, as perf-prof's, not into
# the capture's pipe (perf-prof's `task-state -- ip link show` got a corrupt segment)
"$PP" task-state -- sh -c 'echo t605-command-out' </dev/null >cmd.out 2>cmd.err ||
	{ cat cmd.err; fail "t605.8: pp task-state -- COMMAND"; }
grep -q t605-command-out cmd.out || { cat cmd.out; fail "t605.8: the command's output is not on stdout"; }
[ -s cmd.err ] && { cat cmd.err; fail "t605.8: lines on stderr"; }

# t605.7: help goes to stdout
for args in "-h" "--help" "top -h" "task-state --help"; do
	# shellcheck disable=SC2086
	"$PP" $args </dev/null >help.out 2>help.err
	assert_eq "t605.7 exit status of pp $args" 0 $?
	[ -s help.err ] && { cat help.err; fail "t605.7: pp $args wrote to stderr"; }
	assert_ge "t605.7 lines of help from pp $args" 10 "$(wc -l <help.out)"
done
exit 0
