#!/bin/sh
# SPDX-License-Identifier: MIT
# t217-analyze-state-special-files: a state written to something that is not a regular file is
# written in place, never renamed onto it (`merge -o /dev/null` made /dev/null a regular
# file holding the state, for every program on the machine): --state-out and merge -o to a
# FIFO give the reader there the whole state, and the FIFO stays a FIFO.  A state whose
# options do not parse is refused in one line naming the file (it made report exit from the
# option parser, naming no file).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
build_fixture sched-basic
A='top -e sched:sched_switch'

# t217.1 --state-out to a FIFO; t217.2 merge -o to a FIFO
run_ok /dev/null "$PP_ANALYZE" sched-basic.ppcap $A --time ,1000.002 --state-out a.state
run_ok /dev/null "$PP_ANALYZE" sched-basic.ppcap $A --time 1000.002000001, --state-out b.state
mkfifo out.fifo
cat out.fifo >fifo1.state &
# (not run_ok: it may run a command twice, and a FIFO has one reader here)
"$PP_ANALYZE" sched-basic.ppcap $A --state-out out.fifo || fail "--state-out to a FIFO exited $?"
wait
[ -p out.fifo ] || fail "--state-out replaced the FIFO"
cat out.fifo >fifo2.state &
"$PP_ANALYZE" merge a.state b.state -o out.fifo || fail "merge -o to a FIFO exited $?"
wait
[ -p out.fifo ] || fail "merge -o replaced the FIFO"
run_ok whole.out "$PP_ANALYZE" report fifo1.state
run_ok merged.out "$PP_ANALYZE" report fifo2.state
cmp -s whole.out merged.out || { diff whole.out merged.out; fail "the states through the FIFO differ"; }
grep -q SCHED_SWITCH whole.out || { cat whole.out; fail "no report of the FIFO's state"; }

# t217.3 a state whose options do not parse: the option's bytes changed, checksum made right
python3 - a.state bad.state <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
i = d.index(b"--event=")
d[i:i + 8] = b"--bogus="   # an unknown option of the same length
def crc32c(b, crc=0):
    crc ^= 0xffffffff
    for x in b:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xffffffff
off = 32
while off + 12 <= len(d):
    n = struct.unpack_from("<I", d, off + 4)[0]
    struct.pack_into("<I", d, off + 8, crc32c(d[off + 12:off + 12 + n], crc32c(d[off:off + 8])))
    off += 12 + n
open(sys.argv[2], "wb").write(d)
PY
"$PP_ANALYZE" report bad.state >bad.out 2>bad.err && fail "report accepted a state with a bad option"
grep -q "^pp-analyze: error: 'bad.state': its analyzer and options do not parse here: top: unknown option '--bogus'" bad.err ||
	{ cat bad.err; fail "the refusal of bad.state"; }
[ "$(wc -l <bad.err)" -eq 1 ] || { cat bad.err; fail "more than one line"; }
exit 0
