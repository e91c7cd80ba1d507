#!/bin/sh
# SPDX-License-Identifier: MIT
# t175-oldkernel-check: pp check's dry open goes through the same fallbacks as a recording.
#
# As 4.18 answers (tests/tools/oldkernel), pp check misc and pp check task-state say yes:
# the refused side-band records and PERF_FORMAT_LOST are dropped as in a recording (misc
# warns of the missing records), and no tracefs instance is left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
. "$(dirname "$0")/lib-oldkernel.sh"
need_tracefs

"$OLDK" -v 4.18 -- "$PP" check misc >misc.out 2>misc.err
rc=$?
cat misc.out misc.err
assert_eq "pp check misc as 4.18: exit" 0 $rc
grep -q "^verdict: yes" misc.out || fail "misc: verdict"
grep -q "no text_poke records (Linux 5.9)" misc.err || fail "misc: the missing records not said"
assert_ge "misc: refusals" 1 "$(refusals 4.18 misc.err "perf_event_open: EINVAL")"

"$OLDK" -v 4.18 -- "$PP" check --format json task-state >ts.json 2>ts.err
assert_eq "pp check task-state as 4.18: exit" 0 $?
python3 -c '
import json
j = json.load(open("ts.json"))
assert j["verdict"]["run"] is True, j["verdict"]
assert len(j["events"]) == 3, j["events"]
' || { cat ts.json; fail "task-state: JSON"; }
assert_eq "tracefs instances left by a pp-record that is gone" 0 "$(leaked_instances)"
exit 0
