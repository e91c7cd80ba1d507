#!/bin/sh
# SPDX-License-Identifier: MIT
# t123-record-static: `make static` builds pp-record.static, a fully static binary (no
# program interpreter, no shared library needed).  It records in an empty chroot holding
# only itself plus /proc and /sys (mounted in a private mount namespace), and with
# LD_LIBRARY_PATH pointed at an empty directory; pp-analyze reads both captures, with the
# kernel symbols and the user symbol tables (read through /proc/PID/map_files, the
# binaries' paths do not exist in the chroot).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch

need_static
# the events recorded below: a sleeper switching every 5 ms (an idle machine switches
# little), for at most 15 s
"$PP_LOAD/sleeper" -n 3000 -s 5ms >/dev/null 2>&1 &
load=$!

if command -v file >/dev/null 2>&1; then
	file "$STATIC" | tee file.txt
	grep -q "statically linked" file.txt || fail "file(1) does not call it statically linked"
fi
if command -v readelf >/dev/null 2>&1; then
	readelf -lW "$STATIC" | grep -q "INTERP" && fail "it has a program interpreter"
	readelf -dW "$STATIC" | grep -q "NEEDED" && fail "it needs shared libraries"
fi
if command -v ldd >/dev/null 2>&1; then
	ldd "$STATIC" >ldd.txt 2>&1
	cat ldd.txt
	grep -q "=>" ldd.txt && fail "ldd lists libraries"
fi

# LD_LIBRARY_PATH at an empty directory
mkdir empty
LD_LIBRARY_PATH=$T/empty "$STATIC" -a -e sched:sched_switch --duration 1 -o ld.cap 2>ld.err
rc=$?
cat ld.err
assert_eq "exit status with an empty LD_LIBRARY_PATH" 0 $rc
"$PP_ANALYZE" ld.cap info >ld.info 2>&1 || { cat ld.info; fail "pp-analyze cannot read ld.cap"; }
grep -q "^integrity *ok" ld.info || fail "ld.cap: integrity"
assert_ge "events in ld.cap" 10 "$(sv ld.cap samples)"

# an empty chroot
command -v unshare >/dev/null 2>&1 || skip "no unshare(1) for a private mount namespace"
mkdir -p root/proc root/sys
cp "$STATIC" root/pp-record
unshare -m sh -c 'mount --rbind /sys root/sys && mount -t proc proc root/proc &&
	chroot root /pp-record -a -e sched:sched_switch -e cpu-clock -g --duration 2 -o /cap.pp' \
	>chroot.out 2>&1
rc=$?
cat chroot.out
if [ $rc != 0 ] && grep -q "unshare failed\|cannot\|Operation not permitted" chroot.out &&
	[ ! -f root/cap.pp ]; then
	skip "cannot make a private mount namespace and chroot here"
fi
assert_eq "exit status in the empty chroot" 0 $rc
ls -la root
"$PP_ANALYZE" root/cap.pp info >chroot.info 2>&1 || { cat chroot.info; fail "pp-analyze cannot read the chroot capture"; }
cat chroot.info
grep -q "^integrity *ok" chroot.info || fail "chroot capture: integrity"
grep -q "^symbols *kernel: yes" chroot.info || fail "chroot capture: no kernel symbols"
assert_ge "sched_switch events" 10 "$(sv root/cap.pp events.sched:sched_switch)"
assert_ge "user symbol tables" 1 "$(sv root/cap.pp dsos)"
"$PP_ANALYZE" root/cap.pp profile >prof.txt 2>&1 || { cat prof.txt; fail "profile on the chroot capture"; }
kill $load 2>/dev/null
exit 0
