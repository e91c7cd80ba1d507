#!/bin/sh
# SPDX-License-Identifier: MIT
# t751-privilege: pp-analyze needs no privilege at all; pp-record without root does what
# the kernel allows and otherwise names the permission it lacks, in one line.
#
# As nobody (setpriv, no capabilities): pp-analyze reads a capture through info, trace,
# task-state, profile, sql, export, python and from a pipe, with the output root gets and
# without touching tracefs (strace); pp-record samples a command's user space at
# perf_event_paranoid 2 (and says so), its kernel too at 1, whole CPUs at 0, and refuses
# -a at 2 and tracepoints (tracefs is root's) with the missing permission named.
# perf_event_paranoid is set for the cases and restored on exit.
. "$(dirname "$0")/lib.sh"
need_root
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
[ -r /proc/sys/kernel/perf_event_paranoid ] || skip "no /proc/sys/kernel/perf_event_paranoid"

NB="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups --inh-caps=-all"
PAR=/proc/sys/kernel/perf_event_paranoid
old_par=$(cat $PAR)
W=$(mktemp -d /tmp/pp-nobody.XXXXXX)
chmod 777 "$W"
trap 'echo "$old_par" >$PAR; rm -rf "$W"; [ -n "${PP_KEEP:-}" ] || rm -rf "$T"' EXIT
$NB test -r "$PP_ANALYZE" -a -x "$PP_ANALYZE" || skip "nobody cannot run $PP_ANALYZE"
CAP=$SAMPLES/sched-profile.ppcap
$NB test -r "$CAP" || skip "nobody cannot read $CAP"

# t751.1: pp-analyze as nobody gives what root gets
n=0
while IFS='|' read -r name args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$PP_ANALYZE" "$CAP" $args >"$W/root.$n" 2>"$W/root.$n.err" ||
		{ cat "$W/root.$n.err"; fail "$name: as root"; }
	# shellcheck disable=SC2086
	(cd "$W" && $NB "$PP_ANALYZE" "$CAP" $args) >"$W/nobody.$n" 2>"$W/nobody.$n.err" ||
		{ cat "$W/nobody.$n.err"; fail "$name: as nobody"; }
	cmp -s "$W/root.$n" "$W/nobody.$n" || { diff "$W/root.$n" "$W/nobody.$n" | head; fail "$name: nobody's output differs"; }
done <<EOF
info|info
trace|trace -N 200
task-state|task-state --perins
profile|profile -g
export|export --to chrome -o -
EOF
cd "$W" || fail "cd $W"
$NB "$PP_ANALYZE" "$CAP" sql --query 'SELECT prev_comm, count(*) FROM sched_switch GROUP BY 1' \
	>sql.out 2>&1 || { cat sql.out; fail "sql as nobody"; }
$NB "$PP_ANALYZE" - info <"$CAP" >stdin.out 2>&1 || { cat stdin.out; fail "a pipe as nobody"; }
if "$PP_ANALYZE" help python >/dev/null 2>&1 && [ -r "$SAMPLES/python/switch_count.py" ]; then
	$NB "$PP_ANALYZE" "$CAP" python "$SAMPLES/python/switch_count.py" >py.out 2>&1 ||
		{ cat py.out; fail "python as nobody"; }
fi
# nothing of tracefs or debugfs is touched (pp-analyze works where there is none)
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it
	sanitized && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	$NB strace -f -e trace=%file -o "$W/strace.out" "$PP_ANALYZE" "$CAP" info >/dev/null 2>&1 ||
		fail "pp-analyze info under strace"
	$NB strace -f -e trace=%file -o "$W/strace2.out" "$PP_ANALYZE" "$CAP" trace -N 50 , \
		task-state , profile -g >/dev/null 2>&1 || fail "pp-analyze under strace"
	cat "$W/strace2.out" >>"$W/strace.out"
	if grep -E '/sys/kernel/(tracing|debug)' "$W/strace.out"; then
		fail "pp-analyze looked at tracefs"
	fi
else
	echo "no strace: the tracefs check skipped"
fi

# rec NAME ARGS...: pp-record as nobody in $W; rc, and stderr in $W/rec.err
rec() {
	rm -f "$W/x.cap"
	(cd "$W" && $NB "$PP_RECORD" "$@") >"$W/rec.out" 2>"$W/rec.err"
	rc=$?
}

# one_error WHAT PATTERN: a non-zero exit, one error line, that names the permission
one_error() {
	cat "$W/rec.err"
	[ "$rc" -ne 0 ] || fail "$1: exit status 0"
	assert_eq "$1: error lines" 1 "$(grep -c 'error:' "$W/rec.err")"
	assert_eq "$1: lines" 1 "$(wc -l <"$W/rec.err")"
	grep -q "error: $2" "$W/rec.err" || fail "$1: the error does not say '$2'"
}

# samples: the number of cpu-clock samples pp-analyze reads in $W/x.cap
samples() {
	"$PP_ANALYZE" "$W/x.cap" info 2>/dev/null | sed -n 's/^  cpu-clock *\([0-9]*\).*/\1/p'
}

# t751.2: perf_event_paranoid 2: a command's user space, said once
echo 2 >$PAR
rec -e cpu-clock -g -o x.cap -- "$PP_LOAD/cpuburn" -d 0.3
cat "$W/rec.err"
assert_eq "paranoid 2: exit status" 0 "$rc"
grep -q "warning: perf_event_paranoid is 2: recording user space only (the kernel needs CAP_PERFMON or perf_event_paranoid <= 1)" \
	"$W/rec.err" || fail "paranoid 2: no word of user space only"
assert_eq "paranoid 2: warnings" 1 "$(grep -c 'warning:' "$W/rec.err")"
assert_ge "paranoid 2: samples" 10 "$(samples)"

# t751.3: whole CPUs need CAP_PERFMON or paranoid <= 0
rec -a -e cpu-clock -o x.cap --duration 0.2
one_error "-a at paranoid 2" "cannot open .*: recording whole CPUs (-a, -C, cgroups, or tracepoints read from tracefs) needs CAP_PERFMON or perf_event_paranoid <= 0 (it is 2)"

# t751.4: tracepoints need tracefs, which is root's
if [ -d /sys/kernel/tracing/events ] && ! $NB test -r /sys/kernel/tracing/events; then
	rec -e sched:sched_switch -o x.cap -- true
	one_error "a tracepoint" "tracefs (/sys/kernel/tracing) is not open to this user: tracepoints and probes need root, or read and write access to tracefs"
else
	echo "tracefs is open to nobody here (or absent): t751.4 skipped"
fi

# t751.5: perf_event_paranoid 1: the kernel too, no warning
echo 1 >$PAR
rec -e cpu-clock -g -o x.cap -- "$PP_LOAD/cpuburn" -d 0.3
cat "$W/rec.err"
assert_eq "paranoid 1: exit status" 0 "$rc"
grep -q 'warning:\|error:' "$W/rec.err" && fail "paranoid 1: a message"
assert_ge "paranoid 1: samples" 10 "$(samples)"

# t751.6: perf_event_paranoid 0: whole CPUs
echo 0 >$PAR
rec -a -e cpu-clock -o x.cap --duration 0.3
cat "$W/rec.err"
assert_eq "paranoid 0, -a: exit status" 0 "$rc"
assert_ge "paranoid 0, -a: samples" 10 "$(samples)"
exit 0
