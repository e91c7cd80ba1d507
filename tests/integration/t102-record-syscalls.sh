#!/bin/sh
# SPDX-License-Identifier: MIT
# t102-record-syscalls: raw_syscalls:sys_enter with a kernel filter (id == getppid),
# recorded system-wide while a 2-thread syscall storm runs: the storm's own getppid count,
# taken from its LOAD line, equals the samples of its pid exactly (getppid is made with
# syscall(2) and nothing else in the load calls it; a kernel filter drops nothing else).
# Also: the same in workload mode (only the command is recorded), and the capture stores
# the filter as applied by the kernel.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event raw_syscalls:sys_enter

nr=$(sed -n 's/^REC_SYSCALL(\([0-9]*\), getppid)$/\1/p' "$PP_LOAD/../gen/syscalls.h")
[ -n "$nr" ] || nr=110

# system-wide, filtered in the kernel, unpinned threads on both CPUs
"$PP_RECORD" -a -e "raw_syscalls:sys_enter/id == $nr/" -o sys.cap -- \
	"$PP_LOAD/syscalls" -t 2 -n 200000 2>rec.err
rc=$?
cat rec.err
assert_eq "pp-record exit status" 0 $rc
tids=$(lv rec.err tids)
want=$(lv rec.err getppid)
assert_eq "getppid calls made" 400000 "$want"
# by the workers' tids: a sanitizer runtime in the load makes a few calls of its own
got=$("$CAPCHECK" sys.cap count raw_syscalls:sys_enter "$tids")
lost=$(sv sys.cap lost)
if sanitized && [ "$lost" -gt 0 ]; then
	# a sanitizer build of pp-record is several times slower: it may fall behind the
	# storm, but every event it misses must be counted as lost
	echo "sanitizer build: $lost events lost"
	assert_ge "sys_enter(getppid) samples of tids $tids + lost" "$want" $((got + lost))
	assert_ge "at most the calls made" "$got" "$want"
else
	assert_eq "sys_enter(getppid) samples of tids $tids" "$want" "$got"
	assert_eq "lost" 0 "$lost"
fi
assert_eq "order" ok "$(sv sys.cap order)"

# workload mode: only the command and its threads; unfiltered, so every kind of call
"$PP_RECORD" -e "raw_syscalls:sys_enter/id == $nr/" -o wl.cap -- \
	"$PP_LOAD/syscalls" -t 2 -n 50000 -m both 2>wl.err
assert_eq "workload pp-record exit status" 0 $?
pid=$(lv wl.err pid)
got=$("$CAPCHECK" wl.cap count raw_syscalls:sys_enter "$(lv wl.err tids)")
assert_eq "workload sys_enter(getppid) samples" "$(lv wl.err getppid)" "$got"
# nothing from outside the command's tree (a sanitizer runtime's helper child may add a few)
others=$(( $(sv wl.cap samples) - $("$CAPCHECK" wl.cap pcount raw_syscalls:sys_enter "$pid") ))
[ "$others" -le 4 ] || fail "$others samples from outside the command"
exit 0
