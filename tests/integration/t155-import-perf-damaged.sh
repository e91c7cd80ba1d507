#!/bin/sh
# SPDX-License-Identifier: MIT
# t155-import-perf-damaged: a perf.data cut in the middle of its data reads up to its last
# whole record and says where it stopped (on stderr and in info); a cut pipe-mode stream
# too; lying sizes (attrs, data section, a record) give one line, no crash, in bounded
# memory; a trace.dat is recognised by its magic.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
command -v perf >/dev/null || skip "needs perf (linux-perf)"
command -v python3 >/dev/null || skip "needs python3"

perf record -B -N -q -a -e sched:sched_switch,sched:sched_wakeup -o sw.data -- "$PP_LOAD/sleeper" -n 50 -s 2ms \
	>rec.out 2>rec.err || { cat rec.err; fail "perf record"; }
perf record -B -N -q -a -e sched:sched_switch,sched:sched_wakeup -o - -- "$PP_LOAD/sleeper" -n 50 -s 2ms \
	>pipe.data 2>rec.err || { cat rec.err; fail "perf record -o -"; }
"$PP_ANALYZE" sw.data info >full.txt 2>/dev/null || fail "info of the whole file"
all=$(sed -n 's/^events *\([0-9]*\).*/\1/p' full.txt)

# t155.1 cut at 90 % of the data section (its first part: the synthesized task records): fewer events, where it stopped said
cut=$(python3 -c "
import struct
h = open('sw.data', 'rb').read(56)
off, sz = struct.unpack('<QQ', h[40:56])
print(off + sz * 9 // 10)")
head -c "$cut" sw.data >cut.data
"$PP_ANALYZE" cut.data info >cut.txt 2>cut.err || { cat cut.err; fail "info of a cut file"; }
# (90 % may fall inside a record, inside its header or on its edge: each says where it stopped)
grep -q "^cut.data: .*read up to offset [0-9]*, where the file ends" cut.err ||
	{ cat cut.err; fail "no line saying where the cut file stopped"; }
grep -q "^stopped      .*read up to offset" cut.txt || { cat cut.txt; fail "info: no stopped line"; }
n=$(sed -n 's/^events *\([0-9]*\).*/\1/p' cut.txt)
[ "$n" -gt 0 ] && [ "$n" -lt "$all" ] || fail "a cut file gives $n events of $all"
"$PP_ANALYZE" cut.data task-state >/dev/null 2>&1 || fail "task-state on a cut file"

# t155.2 a cut pipe-mode stream, read from standard input: cut 3 bytes into the first record
# past its middle (a stream cut on a record's edge is a stream that ended)
pcut=$(python3 -c "
import struct
b = open('pipe.data', 'rb').read()
p = 16
while p + 8 <= len(b):
    t, m, s = struct.unpack('<IHH', b[p:p + 8])
    if s < 8: break
    if p >= len(b) // 2: break
    p += s + ((struct.unpack('<I', b[p + 8:p + 12])[0] + 7) & ~7 if t == 66 else 0)
print(p + 3)")
head -c "$pcut" pipe.data | "$PP_ANALYZE" - task-state >/dev/null 2>pcut.err ||
	{ cat pcut.err; fail "task-state on a cut stream"; }
# (a stream is 200 KB here, but was once 7.6 KB, when its half fell in the tracing data)
grep -Eq "^-: read up to offset [0-9]*, where the stream ends inside (a record|the tracing data)" \
	pcut.err ||
	{ cat pcut.err; fail "no line saying where the cut stream stopped"; }

# t155.3 lying sizes: one line, exit 2, no crash, bounded memory
lie() {	# OFFSET VALUE OUT: sw.data with the u64 at OFFSET set to VALUE
	python3 -c "
import struct, sys
b = bytearray(open('sw.data', 'rb').read())
b[$1:$1 + 8] = struct.pack('<Q', $2)
open('$3', 'wb').write(b)"
}
lie 32 0xffffffffffff00 attrs.data	# attrs section size
lie 16 0x7fffffff attrsz.data		# attr entry size
lie 48 0x7fffffffffffffff data.data	# data section size: read to the end of the file
# at most 1 GB of address space (not under a sanitizer: its shadow memory reserves terabytes)
vlimit() { if sanitized; then "$@"; else ( ulimit -v 1000000; "$@" ); fi; }
for f in attrs.data attrsz.data; do
	vlimit "$PP_ANALYZE" $f info >/dev/null 2>lie.err; rc=$?
	assert_eq "exit status on $f" 2 "$rc"
	assert_eq "lines said on $f" 1 "$(wc -l <lie.err)"
	grep -q "^pp-analyze: error: cannot import '$f' (perf.data): " lie.err || { cat lie.err; fail "$f"; }
done
vlimit "$PP_ANALYZE" data.data info >lie.txt 2>lie.err || { cat lie.err; fail "data size"; }
grep -q 'data section cut off' lie.err || { cat lie.err; fail "a data section past the end is not said"; }

# t155.4 a trace.dat is recognised (whether or not this build reads it)
printf '\027\010\104tracing6\000' >t.dat
"$PP_ANALYZE" t.dat info >/dev/null 2>tdat.err
grep -q "trace.dat" tdat.err || { cat tdat.err; fail "trace.dat magic not recognised"; }
exit 0
