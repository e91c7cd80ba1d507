#!/bin/sh
# SPDX-License-Identifier: MIT
# t106-record-fulldisk: recording onto a 2 MB tmpfs until it is full: one clear error line
# ("cannot write capture '...': No space left on device"), a non-zero exit status, no probe
# or child left behind, and a capture that reads up to its last whole segment.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch

mkdir small
mount -t tmpfs -o size=2m tmpfs small 2>/dev/null || skip "cannot mount a tmpfs"
trap 'umount "$T/small" 2>/dev/null; rm -rf "$T"' EXIT

# raw_syscalls with callchains fill 2 MB within seconds; the load stops at the deadline anyway
"$PP_RECORD" -a -g -e sched:sched_switch,raw_syscalls:sys_enter -o small/full.cap --duration 60 \
	-- "$PP_LOAD/ctxsw" -n 3000000 -c 0 >/dev/null 2>rec.err
rc=$?
cat rec.err
[ $rc -ne 0 ] || fail "exit status 0 on a full disk"
assert_eq "exit status" 1 $rc
n=$(grep -c 'error:' rec.err)
assert_eq "error lines" 1 "$n"
grep -q "error: cannot write capture 'small/full.cap': No space left on device" rec.err ||
	fail "the error does not say what happened"
no_pp_probes "after a full disk"

cp small/full.cap full.cap
check_capture "the capture of a full disk" full.cap
assert_ge "events kept" 1000 "$(sv full.cap samples)"
exit 0
