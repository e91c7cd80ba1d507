# SPDX-License-Identifier: MIT
# lib.sh - helpers for integration tests.  Source it from a tNNN-*.sh test.
#
# A test exits 0 (pass), 77 (skip; it printed why on stdout first) or
# anything else (fail).  It runs in its own scratch directory $T.
# PP_BIN: where pp-record/pp-analyze/pp are; PP_LOAD: the load generators.

set -u
: "${PP_BIN:?PP_BIN not set: run through tests/integration/run.sh}"
: "${PP_LOAD:?PP_LOAD not set}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FIX=$TOP/tests/fixtures
SAMPLES=$TOP/samples
PP_RECORD=$PP_BIN/pp-record
PP_ANALYZE=$PP_BIN/pp-analyze
PP=$PP_BIN/pp
for b in "$PP_RECORD" "$PP_ANALYZE"; do
	[ -x "$b" ] || { echo "missing binary $b: run make first"; exit 1; }
done
T=$(mktemp -d /tmp/pp-test.XXXXXX)
# PP_KEEP=1 keeps the scratch directory for a look after a failure
trap 'if [ -n "${PP_KEEP:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi' EXIT
cd "$T"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# need_root: perf_event_open system-wide, tracefs, uprobes
need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (perf_event_open system-wide and tracefs)"
}

# need_tracefs: root and a mounted (or mountable) tracefs
need_tracefs() {
	need_root
	if [ ! -e /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
			skip "tracefs is not mounted and cannot be mounted"
	fi
}

need_event() {
	need_tracefs
	[ -d "/sys/kernel/tracing/events/${1%%:*}/${1#*:}" ] || skip "the kernel has no tracepoint $1"
}

# need_mallocloop_libc: tracefs with uprobes, and LIBC set to the libc.so.6 that
# tests/load/mallocloop calls malloc and free in (the kmemleak tests put uprobes there)
need_mallocloop_libc() {
	need_tracefs
	[ -e /sys/kernel/tracing/uprobe_events ] || skip "the kernel has no uprobe_events"
	LIBC=$(ldd "$PP_LOAD/mallocloop" 2>/dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
	[ -n "$LIBC" ] && [ -e "$LIBC" ] || skip "cannot find the libc of mallocloop"
	ldd "$PP_LOAD/mallocloop" 2>/dev/null | grep -q libasan &&
		skip "mallocloop is built with ASan, whose malloc replaces libc's: the uprobes on libc see nothing (the plain build tests this)"
	return 0
}

# one_line_error WHAT WANT CMD...: CMD exits 2 with one line on stderr (err) that says WANT;
# its stdout is in out
one_line_error() {
	_ole_what=$1 _ole_want=$2
	shift 2
	"$@" >out 2>err
	_ole_rc=$?
	assert_eq "$_ole_what: exit status" 2 $_ole_rc
	assert_eq "$_ole_what: stderr lines" 1 "$(wc -l <err)"
	grep -q -- "$_ole_want" err || fail "$_ole_what: '$(cat err)' does not say '$_ole_want'"
}

# error_says WHAT WANT CMD...: CMD exits 2 and its stderr (err.out) holds the text WANT
error_says() {
	_es_what=$1 _es_want=$2
	shift 2
	"$@" >/dev/null 2>err.out
	_es_rc=$?
	[ $_es_rc = 2 ] || { cat err.out; fail "$_es_what: exit $_es_rc, expected 2"; }
	grep -qF -- "$_es_want" err.out || { cat err.out; fail "$_es_what: no '$_es_want' in the message"; }
}

# loop_ext4 [COMMAND...]: a 64 MB ext4 file system on a loop device (LOOP), mounted at $T/mnt,
# unmounted and detached on exit; skip when it cannot be made or a COMMAND is missing
loop_ext4() {
	for c in losetup mkfs.ext4 mount umount "$@"; do
		command -v $c >/dev/null 2>&1 || skip "no $c on this machine"
	done
	truncate -s 64M "$T/img" || fail "cannot create the image file"
	LOOP=$(losetup -f --show "$T/img" 2>losetup.err) || skip "cannot set up a loop device: $(cat losetup.err)"
	trap 'umount "$T/mnt" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; rm -rf "$T"' EXIT
	mkfs.ext4 -q -F "$LOOP" >mkfs.out 2>&1 || { cat mkfs.out; fail "mkfs.ext4 $LOOP"; }
	mkdir "$T/mnt"
	mount -o noatime "$LOOP" "$T/mnt" 2>mount.err || skip "cannot mount $LOOP: $(cat mount.err)"
}

# check_output EXPECT ACTUAL: fail with a diff when they differ
check_output() {
	if ! diff -u "$1" "$2" >diff.out; then
		cat diff.out
		fail "output differs from $1"
	fi
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# assert_ge WHAT MIN ACTUAL
assert_ge() {
	[ "$3" -ge "$2" ] 2>/dev/null || fail "$1: expected >= $2, got '$3'"
}

# assert_between WHAT LO HI ACTUAL (numbers, may be decimal)
assert_between() {
	awk -v lo="$2" -v hi="$3" -v x="$4" 'BEGIN { exit !(x >= lo && x <= hi) }' ||
		fail "$1: expected between $2 and $3, got '$4'"
}

# ctrl_c SECONDS OUT ERR CMD...: run CMD as its own process group (setsid), SIGINT the group
# after SECONDS (and SIGKILL it if it is still there 30 s later), like a Ctrl-C in a terminal;
# returns CMD's exit status, and sets left to the number of the group's processes still
# there 0.2 s after it exited
ctrl_c() {
	d=$1 out=$2 err=$3
	shift 3
	setsid "$@" >"$out" 2>"$err" &
	pid=$!
	sleep "$d"
	kill -INT -"$pid"
	( sleep 30; kill -KILL -"$pid" 2>/dev/null ) >/dev/null 2>&1 &
	k=$!
	wait $pid
	rc=$?
	kill $k 2>/dev/null
	sleep 0.2
	left=$(ps -eo pgid=,pid=,comm= | awk -v g="$pid" '$1 == g' | wc -l)
	return $rc
}

# normalize_ns: replace runs of digits with N in time-like columns
normalize_ns() {
	sed -E 's/[0-9]+\.[0-9]+/N/g'
}

# sanitized: true when the binaries under test were built with a sanitizer (make asan)
sanitized() {
	ldd "$PP_RECORD" 2>/dev/null | grep -qE 'libasan|libubsan'
}

# skip_if_sanitized WHAT: timing and memory bounds are checked on the plain build only
skip_if_sanitized() {
	sanitized && skip "$1 is measured on the plain build (make test); a sanitizer build is slower and bigger"
	return 0
}

# idle_cpu: set IDLE_CPU to a CPU on which a task woken from idle is seen switching in
# (sched_switch from the idle task), or skip the test.  Some virtual machines'
# kernels emit no tracepoint at all from one CPU's idle task - not even
# ftrace's sched_switch when it hands the CPU to a woken task - and a test
# that measures sleeps or wakeups on such a CPU would see none.  Loads that
# need it are pinned to the CPU found here (highest first).  Call it
# directly, not in $(...): it may skip the test.
idle_cpu() {
	# a CPU busy with something else at that moment has no idle task to switch from:
	# three tries each, 20 sleeps a try, before concluding the kernel drops the events
	for _try in 1 2 3; do
		_c=$(($(nproc) - 1))
		while [ "$_c" -ge 0 ]; do
			if "$PP_RECORD" -e sched:sched_switch -C "$_c" -o idle-probe.pp -- \
				taskset -c "$_c" "$PP_LOAD/sleeper" -n 20 -s 2ms >/dev/null 2>&1 &&
				[ "$("$PP_ANALYZE" idle-probe.pp trace 2>/dev/null |
					grep -c 'prev_pid=0 .*next_comm=sleeper')" -ge 10 ]; then
				rm -f idle-probe.pp
				IDLE_CPU=$_c
				return 0
			fi
			_c=$((_c - 1))
		done
		sleep 1
	done
	rm -f idle-probe.pp
	# a CPU hog on every CPU (make check-busy) leaves no idle task either
	# (runnable tasks now, less this awk, or the 1-minute load average)
	_busy=$(awk -v n="$(nproc)" '{ split($4, r, "/"); print (r[1] - 1 >= n || $1 >= n) ? 1 : 0 }' /proc/loadavg)
	[ "$_busy" = 1 ] &&
		skip "no CPU went idle: other tasks keep every CPU busy (load $(cut -d' ' -f1,4 /proc/loadavg)), and the test needs the idle task's switches"
	skip "no CPU's idle task is traced switching to a woken task (this kernel drops those sched_switch events)"
}
