#!/bin/sh
# SPDX-License-Identifier: MIT
# t001-load-generators: every tests/load generator runs briefly, does exactly what it says
# and reports it in its LOAD line (the ground truth the live tests compare against).
# Needs no root.
. "$(dirname "$0")/lib.sh"

# load NAME ARGS...: run a generator; its LOAD line lands in $T/NAME.load, stdout in NAME.out
load() {
	name=$1
	shift
	"$PP_LOAD/$name" "$@" >"$name.out" 2>"$name.err"
	rc=$?
	[ $rc = 0 ] || { cat "$name.err"; fail "$name $*: exit status $rc"; }
	grep "^LOAD $name " "$name.err" >"$name.load" || fail "$name $*: no LOAD line"
	[ "$(wc -l <"$name.load")" = 1 ] || fail "$name: more than one LOAD line"
	CUR=$name
}

# lv KEY: the value of KEY= in the last LOAD line
lv() {
	tr ' ' '\n' <"$CUR.load" | sed -n "s/^$1=//p"
}

# common keys every LOAD line carries
check_common() {
	for k in pid tids ops wall_s user_s sys_s; do
		[ -n "$(lv $k)" ] || fail "$CUR: LOAD line lacks $k="
	done
}

for g in ctxsw syscalls cpuburn sleeper mallocloop pagetouch uprobe_target dio pinpair hog; do
	[ -x "$PP_LOAD/$g" ] || fail "missing load generator $PP_LOAD/$g: run make"
	"$PP_LOAD/$g" --help >help.out 2>&1 || fail "$g --help: exit status $?"
	grep -q "^usage: $g" help.out || fail "$g --help prints no usage line"
	"$PP_LOAD/$g" --no-such-option >/dev/null 2>&1
	assert_eq "$g with a bad option: exit status" 2 $?
done

# ctxsw: n round trips; the first tid is the main thread (= pid), the second another thread
load ctxsw -n 2000 -c 0
check_common
assert_eq "ctxsw n" 2000 "$(lv n)"
assert_eq "ctxsw cpu" 0 "$(lv cpu)"
tids=$(lv tids)
assert_eq "ctxsw main tid" "$(lv pid)" "${tids%%,*}"
[ "${tids#*,}" != "${tids%%,*}" ] || fail "ctxsw: the two tids are equal ($tids)"

# syscalls: exact counts per kind over the workers
load syscalls -t 2 -n 5000 -m both
check_common
assert_eq "syscalls getppid" 10000 "$(lv getppid)"
assert_eq "syscalls read0" 10000 "$(lv read0)"
assert_eq "syscalls ops" 20000 "$(lv ops)"
assert_eq "syscalls worker tids" 2 "$(lv tids | tr ',' '\n' | sort -u | wc -l)"
load syscalls -n 3000
assert_eq "syscalls default mode" getppid "$(lv mode)"
assert_eq "syscalls read0 in getppid mode" 0 "$(lv read0)"
# paced: 2000 calls at 20000/s take 0.1 s
load syscalls -n 2000 -r 20000
assert_between "paced syscalls wall_s" 0.09 2 "$(lv wall_s)"

# cpuburn: runs for its duration, with the documented tree and stable symbol names
load cpuburn -d 0.3
check_common
assert_between "cpuburn wall_s" 0.3 1.5 "$(lv wall_s)"
assert_ge "cpuburn iters" 1 "$(lv iters)"
assert_eq "cpuburn self_pct" "burn_a:12.5,burn_b:25,burn_c:50,burn_d:12.5" "$(lv self_pct)"
if command -v nm >/dev/null; then
	for f in burn_a burn_b burn_c burn_d; do
		nm "$PP_LOAD/cpuburn" | grep -q " T $f\$" || fail "cpuburn has no global symbol $f"
	done
fi

# sleeper: K nanosleep calls of D
load sleeper -n 5 -s 10ms
check_common
assert_eq "sleeper nanosleep calls" 5 "$(lv nanosleep)"
assert_eq "sleeper sleep_ns" 10000000 "$(lv sleep_ns)"
assert_between "sleeper wall_s" 0.05 2 "$(lv wall_s)"
load sleeper -n 7 -m mixed
assert_eq "sleeper mixed getppid" 7 "$(lv getppid)"
assert_eq "sleeper mixed nanosleep" 7 "$(lv nanosleep)"
assert_eq "sleeper mixed default sleep" 1000000 "$(lv sleep_ns)"

# mallocloop: ring and leak accounting
load mallocloop -n 10000
check_common
assert_eq "mallocloop ring allocs" 10000 "$(lv allocs)"
assert_eq "mallocloop ring leaks" 0 "$(lv leaks)"
load mallocloop -m leak -n 1000 -k 7 -s 100
assert_eq "mallocloop leaks" 7 "$(lv leaks)"
assert_eq "mallocloop leak_bytes" 700 "$(lv leak_bytes)"
assert_eq "mallocloop leak allocs" 1007 "$(lv allocs)"
assert_eq "mallocloop leak frees" 1000 "$(lv frees)"
if command -v nm >/dev/null; then
	for f in leak_here free_path alloc_path; do
		nm "$PP_LOAD/mallocloop" | grep -q " T $f\$" || fail "mallocloop has no symbol $f"
	done
fi

# pagetouch: one minor fault per page, give or take a few for the stack and libc
load pagetouch -n 1000 -r 2
check_common
assert_eq "pagetouch pages" 2000 "$(lv pages)"
assert_between "pagetouch minflt" 2000 2200 "$(lv minflt)"

# uprobe_target: READY line first, K calls and K writes, addresses consistent
load uprobe_target -n 10
check_common
assert_eq "uprobe_target calls" 10 "$(lv calls)"
assert_eq "uprobe_target writes" 10 "$(lv writes)"
assert_eq "uprobe_target arg_sum" 45 "$(lv arg_sum)"
ready="READY pid=$(lv pid) pp_probe_target=$(lv pp_probe_target)"
ready="$ready pp_watch_var=$(lv pp_watch_var)"
assert_eq "uprobe_target READY line" "$ready" "$(head -1 uprobe_target.out)"
load uprobe_target -n 4 -m call
assert_eq "uprobe_target call mode writes" 0 "$(lv writes)"
if command -v nm >/dev/null; then
	nm "$PP_LOAD/uprobe_target" | grep -q " T pp_probe_target\$" ||
		fail "uprobe_target has no global symbol pp_probe_target"
	nm "$PP_LOAD/uprobe_target" | grep -q " B pp_watch_var\$" ||
		fail "uprobe_target has no global variable pp_watch_var"
fi

# dio: N O_DIRECT reads; status 3 means this filesystem has no O_DIRECT (not a failure)
"$PP_LOAD/dio" -f "$T/dio.dat" -n 20 -s 8K >dio.out 2>dio.err
rc=$?
if [ $rc = 3 ]; then
	echo "note: dio skipped: $(cat dio.err)"
else
	[ $rc = 0 ] || { cat dio.err; fail "dio: exit status $rc"; }
	load dio -f "$T/dio.dat" -n 20 -s 8K
	check_common
	assert_eq "dio reads" 20 "$(lv reads)"
	assert_eq "dio bytes" 163840 "$(lv bytes)"
	assert_eq "dio created (second run)" 0 "$(lv created)"
fi

# pinpair: three threads; the two pinned spinners each wait on the run queue.  The sleeper
# sleeps 5 ms at a time for 0.4 s: about 80 times on a quiet machine, at least 20; on a busy
# one it also waits to run after each sleep, and the kernel's count of that wait (schedstat)
# lowers the bound: at least one sleep per 10 ms of the time it was neither waiting nor running
load pinpair -d 0.4 -s 5
check_common
assert_eq "pinpair tids" 3 "$(lv tids | tr ',' '\n' | sort -u | wc -l)"
delay_a=$(lv delay_ns | cut -d, -f1)
wall_ns=$(awk -v s="$(lv wall_s)" 'BEGIN { printf "%d", s * 1e9 }')
min_sleeps=20
if [ "$delay_a" != -1 ]; then
	min_sleeps=$(awk -v w="$wall_ns" -v d="$(lv delay_ns | cut -d, -f3)" \
		-v r="$(lv run_ns | cut -d, -f3)" 'BEGIN { n = int((w - d - r) / 10e6); print n < 20 ? n : 20 }')
	# each sleep ends in a switch back to the sleeper
	assert_ge "pinpair sleeper's timeslices (sleeps $(lv sleeps))" "$(lv sleeps)" "$(lv slices | cut -d, -f3)"
	# each spinner runnable-but-waiting about half of the time at least: > 20 % of 0.4 s
	assert_between "pinpair spin_a delay_ns" 80000000 "$wall_ns" "$delay_a"
	assert_between "pinpair spin_b delay_ns" 80000000 "$wall_ns" "$(lv delay_ns | cut -d, -f2)"
fi
assert_between "pinpair sleeps" "$min_sleeps" 90 "$(lv sleeps)"

# hog (make check-busy's load): spins for its duration on its CPU, and stops on SIGTERM
load hog -d 0.3 -c 0
check_common
assert_eq "hog cpu" 0 "$(lv cpu)"
assert_between "hog wall_s" 0.3 2 "$(lv wall_s)"
"$PP_LOAD/hog" 2>hog.err &
hog=$!
sleep 0.2
kill -TERM $hog
wait $hog
assert_eq "hog on SIGTERM: exit status" 0 $?
grep -q '^LOAD hog ' hog.err || fail "hog printed no LOAD line after SIGTERM"
exit 0
