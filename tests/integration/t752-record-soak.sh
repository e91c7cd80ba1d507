#!/bin/sh
# SPDX-License-Identifier: MIT
# t752-record-soak: make soak, shortened to 120 s (SOAK_S seconds when set; issue 20): pp-record
# -a with rotation (8 MiB files, 3 kept) under the loads keeps its RSS and open fds, and its
# children's, flat - the largest of the last quarter against that of the first quarter
# after 60 s of warm-up (tests/tools/soak.sh: RSS within max(4 MiB, 5 %), fds within 2); it
# rotated, and the newest file reads whole.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
skip_if_sanitized "pp-record's RSS over a long recording (ASan's quarantine grows it by design)"
secs=${SOAK_S:-120}
sh "$TOP/tests/tools/soak.sh" "$PP_BIN" "$PP_LOAD" "$secs" soak >soak.out 2>&1
rc=$?
cat soak.out
[ $rc -eq 77 ] && skip "$(tail -1 soak.out)"
[ $rc -eq 0 ] || { awk '{ print "  " $0 }' soak/soak.samples | tail -40; fail "soak: see above"; }
files=$(sed -n 's/.*rotation: \([0-9]*\) files.*/\1/p' soak/soak.rec.err | tail -1)
assert_ge "files written (it must rotate)" 2 "${files:-0}"
newest=$(ls soak/soak.cap.* | sort -t. -k3 -n | tail -1)
"$PP_ANALYZE" "$newest" info >info.out 2>&1 || { cat info.out; fail "$newest: info failed"; }
grep -q '^integrity *ok' info.out || { cat info.out; fail "$newest: not whole"; }
exit 0
