#!/bin/sh
# SPDX-License-Identifier: MIT
# t210-analyze-hostile-text: a capture whose strings attack the terminal (ESC, OSC
# titles, clear-screen, C0/C1 controls, DEL, bytes that are not UTF-8 in comms,
# tracepoint strings, paths, symbols, KV values, an event and a syscall name) never
# reaches stdout or stderr raw: every analyzer, the built-in commands, sql, help and
# the exports show such bytes as \xHH; JSON keeps the exact strings (issue 20).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture hostile h.ppcap
SAFE="python3 $TOP/tests/integration/textsafe.py"
n=0
bad=""

# run_text NAME ARGS...: pp-analyze h.ppcap ARGS with stdout and stderr checked by textsafe.py
# (whatever the exit status: a refusal's message is text too)
run_text() {
	_name=$1
	shift
	n=$((n + 1))
	"$PP_ANALYZE" h.ppcap "$@" >"out.$n" 2>"err.$n" </dev/null
	echo "$_name: $*" >"cmd.$n"
	$SAFE "out.$n" "err.$n" >"safe.$n" || { cat "cmd.$n" "safe.$n"; bad="$bad $_name"; }
	LAST=out.$n
}

# t210.1 every analyzer of 'pp-analyze help', with options that make it print the
# capture's strings where it applies (the others refuse: their one line is checked)
azs=$("$PP_ANALYZE" help | sed -n '/^Analyzers:/,/^$/p' | awk 'NF > 1 && $1 != "Analyzers:" { print $1 }')
assert_ge "analyzers listed" 30 "$(echo "$azs" | wc -l)"
for a in $azs; do
	case $a in
	trace)		run_text $a trace -g
			grep -qF '\x1b]0;T\x07ev\xffil' "$LAST" || fail "trace: the comm is not shown escaped"
			grep -qF 'filename=/home/\x1b[2Jalice/\x1b]0;t\x07\xff\n\tx' "$LAST" ||
				fail "trace: a __data_loc string is not one escaped field"
			grep -qF 'name=eth\x1b[2J0\x9b\xc2\x9b' "$LAST" || fail "trace: C1 controls not escaped"
			grep -q 'café€' "$LAST" || fail "trace: valid UTF-8 was not kept"
			run_text $a trace -e sched:sched_switch help ;;
	multi-trace)	run_text $a multi-trace -e 'sched:sched_wakeup//key=pid/' \
				-e 'sched:sched_switch//key=next_pid/' -k pid --perins --than 1us --detail ;;
	rundelay|syscalls|task-state) run_text $a $a --perins ;;
	nested-trace)	run_text $a nested-trace -e 'raw_syscalls:sys_enter,raw_syscalls:sys_exit' ;;
	kmemprof)	run_text $a kmemprof -e 'raw_syscalls:sys_enter//ptr=id/size=id/' \
				-e 'raw_syscalls:sys_exit//ptr=id/' ;;
	profile)	run_text $a profile -g
			grep -qF 'ma\x1b[2Jin' "$LAST" || fail "profile: a symbol name is not escaped"
			run_text $a profile -g --flame-graph - ;;
	top)		run_text $a top -e 'sched:sched_switch//key=prev_pid/comm=prev_comm/' ;;
	num-dist)	run_text $a num-dist -e 'sched:sched_switch//num=prev_prio/' ;;
	expr)		run_text $a expr -e sched:sched_switch next_comm ;;
	list)		run_text $a list -v
			grep -qF 'evil:\x1b[2Jname\x07' "$LAST" || fail "list: an event name is not escaped" ;;
	kmemleak)	run_text $a kmemleak --alloc 'raw_syscalls:sys_enter//ptr=id/size=id/' \
				--free 'raw_syscalls:sys_exit//ptr=id/' ;;
	export)		for to in csv folded jsonl chrome; do run_text $a export --to $to; done ;;
	sql)		run_text $a sql --query 'SELECT prev_comm, next_comm FROM sched_switch'
			run_text $a sql --query 'SELECT * FROM sched_process_exec'
			run_text $a sql --query 'SELECT * FROM irq_handler_entry' ;;
	python)		run_text $a python -e sched:sched_switch help ;;
	hrcount|stat)	run_text $a $a -e sched:sched_switch ;;
	hrtimer)	run_text $a hrtimer -e cpu-clock 'period>0' ;;
	*)		run_text $a $a ;;
	esac
done

# t210.2 the built-in commands, and text tables in csv/json to stdout
run_text info info
grep -qF 'h\x1b]0;pwned-title\x07ost\xff' "$LAST" || fail "info: the hostname is not escaped"
run_text dump dump
grep -qF 'TASK pid=300 tid=301 ppid=1 comm=\x1b[2Jw\x7f\x08\r' "$LAST" || fail "dump: a comm is not escaped"
grep -qF 'KV cmdline=pp-record -e sched:* -- ./run \x1b[31mred\x1b[0m \x9bline\nbreak\x7f' "$LAST" ||
	fail "dump: a KV value is not one escaped field"
run_text info-json info --format json
run_text task-state-csv task-state --perins --format csv
run_text top-json top -e 'sched:sched_switch//key=prev_pid/comm=prev_comm/' --format json
run_text trace-json trace --format json
run_text sql-json sql --format json --query 'SELECT prev_comm FROM sched_switch'
[ -z "$bad" ] || fail "raw control bytes or bytes that are not UTF-8 in the output of:$bad"

# t210.3 machine formats keep the exact strings in their own escaping: JSON \u001b
# (a byte that is not UTF-8 as U+00XX, docs/exports.md), a CSV file with the bytes
"$PP_ANALYZE" h.ppcap export --to chrome -o h.chrome.json 2>/dev/null || fail "export chrome"
"$PP_ANALYZE" h.ppcap export --to csv -o h.csv 2>/dev/null || fail "export csv"
"$PP_ANALYZE" h.ppcap export --to jsonl >h.jsonl 2>/dev/null || fail "export jsonl"
"$PP_ANALYZE" h.ppcap info --format json >h.info.json 2>/dev/null || fail "info json"
"$PP_ANALYZE" h.ppcap trace --format json >h.trace.jsonl 2>/dev/null || fail "trace json"
python3 - <<'PY' || fail "JSON does not carry the exact strings"
import codecs, csv, json
# what a JSON string of these bytes holds: UTF-8 as is, other bytes as U+00XX
codecs.register_error('u00xx', lambda e: (''.join(chr(b) for b in e.object[e.start:e.end]), e.end))
def text(b): return b.decode('utf-8', 'u00xx')
comm = text(b'\x1b]0;T\x07ev\xffil')
host = text(b'h\x1b]0;pwned-title\x07ost\xff')
fname = text(b'/home/\x1b[2Jalice/\x1b]0;t\x07\xff\n\tx')
info = json.load(open('h.info.json', encoding='utf-8'))
assert info['host']['hostname'] == host, ascii(info['host']['hostname'])
rows = [json.loads(l) for l in open('h.jsonl', encoding='utf-8')]
assert any(r.get('comm') == comm for r in rows), 'jsonl comm'
assert any(r.get('filename') == fname for r in rows), 'jsonl filename'
assert any(r.get('name') == text(b'eth\x1b[2J0\x9b\xc2\x9b') for r in rows), 'jsonl C1'
assert any(r.get('next_comm') == 'café€' for r in rows), 'jsonl UTF-8'
tr = [json.loads(l) for l in open('h.trace.jsonl', encoding='utf-8')]
assert any(r.get('comm') == comm for r in tr), 'trace json comm'
ch = json.load(open('h.chrome.json', encoding='utf-8'))
names = json.dumps(ch, ensure_ascii=False)
assert comm in names or json.dumps(comm)[1:-1] in json.dumps(ch), 'chrome comm'
with open('h.csv', encoding='utf-8', newline='') as f:
    cells = [c for r in csv.reader(f) for c in r]
assert comm in cells, 'csv file comm'
assert fname in cells, 'csv file filename (newline and tab inside quotes)'
PY

# t210.4 the net keeps order and layout: trace to a file (-o) in text is escaped too,
# the same lines as on stdout
"$PP_ANALYZE" h.ppcap trace -g -o h.trace.txt 2>/dev/null || fail "trace -o"
"$PP_ANALYZE" h.ppcap trace -g >h.trace.out 2>/dev/null
cmp -s h.trace.txt h.trace.out || { diff h.trace.out h.trace.txt | head; fail "trace -o differs from stdout"; }
$SAFE h.trace.txt || fail "trace -o FILE wrote raw bytes"
# t210.5 on a terminal: the capture's ESC is still escaped; pp's own highlight (multi-trace
# --than, perf-prof's red count) is the one colour sequence, written past the net
if command -v script >/dev/null 2>&1; then
	script -qc "'$PP_ANALYZE' h.ppcap trace -g" /dev/null </dev/null | tr -d '\r' >tty.trace
	grep -q 'sched_switch' tty.trace || { cat tty.trace; fail "trace on a terminal printed nothing"; }
	$SAFE tty.trace || fail "trace on a terminal wrote raw bytes"
	script -qc "'$PP_ANALYZE' h.ppcap multi-trace -e 'sched:sched_wakeup//key=pid/' \
		-e 'sched:sched_switch//key=next_pid/' -k pid --perins --than 1us" /dev/null </dev/null |
		tr -d '\r' >tty.mt
	grep -q "$(printf '\033')\\[31;1m *1 (100%)$(printf '\033')\\[0m" tty.mt ||
		{ cat -v tty.mt; fail "multi-trace --than on a terminal: no highlight"; }
	"$PP_ANALYZE" h.ppcap multi-trace -e 'sched:sched_wakeup//key=pid/' \
		-e 'sched:sched_switch//key=next_pid/' -k pid --perins --than 1us >pipe.mt 2>&1
	$SAFE pipe.mt || fail "multi-trace --than into a pipe wrote a colour"
fi
echo "t210: $n outputs checked"
