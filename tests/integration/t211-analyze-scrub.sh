#!/bin/sh
# SPDX-License-Identifier: MIT
# t211-analyze-scrub: `pp-analyze FILE scrub -o OUT` replaces comm names, command lines,
# paths, the host name and user-space string fields by stable hashes, lists what it
# replaced, and the analyzers give the same numbers on the copy (issue 20).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

SAFE="python3 $TOP/tests/integration/textsafe.py"
# norm: the numbers of a report, names (words with a letter) as X, a rule of dashes as "-"
# (a column is as wide as its longest name, and a frame without a symbol is named by its
# binary's path, which the copy replaces), rows sorted
norm() {
	awk '{ for (i = 1; i <= NF; i++)
		if ($i ~ /[A-Za-z]/) $i = "X"; else if ($i ~ /^-+$/) $i = "-"
	print }' | sort
}

# t211.1 the hostile fixture: every class replaced, the report names where, and the
# copy keeps its layout (same records, same event counts)
build_fixture hostile h.ppcap
run_ok rep.out "$PP_ANALYZE" h.ppcap scrub -o hs.ppcap --salt t211 --map names.map
$SAFE rep.out || fail "the scrub report is not safe text"
for w in 'comm     replaced' 'TASK comm' 'sched:sched_switch.prev_comm' 'COMM' 'KV cmdline' \
	'TASK cmdline' 'paths    replaced' 'MMAP' 'DSO' 'KV hostname' 'KV user.note' \
	'sched:sched_process_exec.filename' 'kept string fields (kernel text; --all-strings replaces them too): irq:irq_handler_entry.name'; do
	grep -qF "$w" rep.out || { cat rep.out; fail "the report does not name '$w'"; }
done
[ "$(stat -c %a names.map)" = 600 ] || fail "the --map file is readable by others"
"$PP_ANALYZE" hs.ppcap dump >hs.dump
# the same records, and one KV more that says what was replaced
assert_eq "records of the copy" $(($("$PP_ANALYZE" h.ppcap dump | grep -vc '^#') + 1)) \
	"$(grep -vc '^#' hs.dump)"
grep -q '^KV scrub.replaced=comm,cmdline,paths,host,strings,filters$' hs.dump ||
	fail "the copy does not say it is scrubbed"
for orig in 'pwned-title' 'alice' 'ev\xffil' 'new\xff' '/opt/' 'red\x1b' 'http://evil'; do
	grep -qF "$orig" hs.dump && fail "'$orig' is still in the scrubbed capture"
done
grep -qF 'comm=systemd' hs.dump && fail "a user-space comm was kept"
# kept: kernel text, symbols, numbers, options, event names
for kept in 'name=eth' 'SYM 1000 256 ma\x1b[2Jin' 'pp-record -e sched:* -- ' 'EVENT id=1 kind=1' \
	'comm=swapper/1' ' --x'; do
	"$PP_ANALYZE" hs.ppcap trace -g >hs.trace 2>/dev/null
	cat hs.dump hs.trace | grep -qF -- "$kept" || fail "'$kept' should have been kept"
done
# stable: a comm gets one hash in TASK, COMM-less fields and sched_switch alike
c=$(sed -n 's/^TASK pid=300 tid=300 ppid=1 comm=\([^ ]*\) .*/\1/p' hs.dump)
[ ${#c} -eq 11 ] || fail "the hash of an 11-byte comm is '$c'"
grep -q "next_comm=$c next_pid=300" hs.trace || fail "sched_switch's next_comm is not the TASK's hash"
grep -q "prev_comm=$c prev_pid=300" hs.trace || fail "sched_switch's prev_comm is not the TASK's hash"
# the same salt gives the same copy; --keep leaves a class alone
run_ok /dev/null "$PP_ANALYZE" h.ppcap scrub -o hs2.ppcap --salt t211
"$PP_ANALYZE" hs2.ppcap dump | cmp -s - hs.dump || fail "the same salt gave other hashes"
run_ok keep.out "$PP_ANALYZE" h.ppcap scrub -o hk.ppcap --keep comm,paths
grep -qF 'comm     kept (--keep)' keep.out || fail "--keep comm not reported"
"$PP_ANALYZE" hk.ppcap dump | grep -qF 'comm=\x1b]0;T\x07ev\xffil' || fail "--keep comm replaced a comm"
"$PP_ANALYZE" hk.ppcap dump | grep -qF 'MMAP pid=300 400000-410000 pgoff=0 /opt/' ||
	fail "--keep paths replaced a path"
"$PP_ANALYZE" h.ppcap scrub -o x.ppcap --keep nonsense 2>err.out && fail "--keep nonsense accepted"
grep -q "unknown class 'nonsense'" err.out || { cat err.out; fail "--keep nonsense: message"; }
# a cut capture is scrubbed as far as it reads, and says so
sz=$(stat -c %s h.ppcap)
head -c $((sz - 700)) h.ppcap >cut.ppcap
"$PP_ANALYZE" cut.ppcap scrub -o cut-s.ppcap >/dev/null 2>err.out || { cat err.out; fail "scrub of a cut capture"; }
grep -q "is cut inside segment" err.out || { cat err.out; fail "scrub of a cut capture: no warning"; }
"$PP_ANALYZE" cut-s.ppcap info >/dev/null 2>&1 || fail "the copy of a cut capture does not read"
"$PP_ANALYZE" h.ppcap scrub 2>err.out && fail "scrub without -o accepted"
grep -q -- "-o OUT is required" err.out || { cat err.out; fail "scrub without -o: message"; }

# t211.2 a recording of this machine: the load's names and paths are gone, and
# task-state, syscalls and profile count the same on the copy
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
"$PP_RECORD" -e 'sched:sched_switch,sched:sched_wakeup,raw_syscalls:sys_enter,raw_syscalls:sys_exit,cpu-clock' \
	-g -a -o o.ppcap -- "$PP_LOAD/sleeper" -m mixed -n 200 -s 1ms >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record exited $?"; }
run_ok rep2.out "$PP_ANALYZE" o.ppcap scrub -o os.ppcap --map o.map
"$PP_ANALYZE" os.ppcap dump >os.dump || fail "dump of the scrubbed capture"
python3 - "$PP_LOAD" "$(hostname)" <<'PY' || fail "a name survived the scrub"
import re, sys
load, host = sys.argv[1], sys.argv[2]
bad = []
for line in open('os.dump', encoding='utf-8', errors='replace'):
    # the records that carry names: TASK, COMM, MMAP, DSO, the host and command KVs
    if re.match(r'(TASK |\d+ COMM |\d+ MMAP |DSO |KV (hostname|cmdline)=)', line):
        if 'sleeper' in line or load in line or ('KV hostname' in line and host in line):
            bad.append(line.strip())
if bad:
    print('\n'.join(bad[:10]))
    sys.exit(1)
PY
grep -q 'sleeper' o.map || fail "the map file does not hold the load's name"
for a in "task-state" "task-state --perins" "syscalls" "syscalls --perins" "profile --no-inline" \
	"profile -g --no-inline"; do
	"$PP_ANALYZE" o.ppcap $a >a.orig 2>&1 || fail "$a on the original"
	"$PP_ANALYZE" os.ppcap $a >a.scrub 2>&1 || fail "$a on the scrubbed copy"
	norm <a.orig >n.orig
	norm <a.scrub >n.scrub
	[ "$(wc -l <n.orig)" -ge 3 ] || { cat a.orig; fail "$a: no report"; }
	cmp -s n.orig n.scrub || { diff n.orig n.scrub | head; fail "$a: other numbers on the scrubbed copy"; }
done
# the task and syscall tables, names aside, are the same lines
"$PP_ANALYZE" o.ppcap syscalls >s.orig && "$PP_ANALYZE" os.ppcap syscalls >s.scrub &&
	cmp -s s.orig s.scrub || fail "syscalls: the scrubbed copy differs (it holds no names)"
