#!/bin/sh
# SPDX-License-Identifier: MIT
# t374-export-golden: every export format on two small committed captures (a pinned
# ctxsw run on CPU 0 with sched events, a cpuburn profile with user stacks), compared with
# the expected outputs in tests/fixtures/expected/export/.  The Chrome trace is compared as
# a summary (events per phase/category/name, the first events, the metadata), the Perfetto
# trace as the head of its protoc --decode_raw text, the pprof profile as its protoc
# --decode text; folded stacks equal profile --flame-graph's.  PP_REGEN=1 rewrites the
# expected files instead of comparing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

cp "$FIX/export-sched.ppcap" sched.ppcap
cp "$FIX/export-prof.ppcap" prof.ppcap

ex() { "$PP_ANALYZE" "$@" || fail "pp-analyze $* failed"; }

ex sched.ppcap export --to csv -o - | sed -n '1,12p;$p' >csv.out
ex sched.ppcap export --to jsonl -e 'sched:sched_wakeup,sched:sched_process_fork' -o - |
	head -8 >jsonl.out
# goldens without inline frames: those come from the DWARF of the machine that analyses
ex prof.ppcap export --to folded --no-inline -o folded.out
ex prof.ppcap export --to folded --no-inline --value period -o folded-period.out
# folded is profile's flame graph, line for line (the issue: "same as profile --flame-graph")
for trim in "" --no-kernel-callchain --no-user-callchain --no-inline; do
	ex prof.ppcap profile -g --flame-graph prof.fg $trim >/dev/null
	ex prof.ppcap export --to folded $trim -o folded.cmp
	[ -s folded.cmp ] || fail "export --to folded $trim wrote nothing"
	LC_ALL=C sort prof.fg | cmp -s - folded.cmp || {
		diff prof.fg folded.cmp; fail "export --to folded $trim differs from profile --flame-graph"; }
done
ex prof.ppcap export --to csv --stacks -o - | head -6 >stacks.out
ex sched.ppcap export --to chrome -o chrome.json
python3 - chrome.json >chrome.out <<'PY' || fail "chrome JSON does not parse"
import json, sys
from collections import Counter
t = json.load(open(sys.argv[1]))
c = Counter((e['ph'], e.get('cat', ''), e['name'] if e['ph'] != 'X' or e.get('cat') == 'state'
             else '<comm>') for e in t['traceEvents'])
for k in sorted(c):
    print('%6d %s' % (c[k], ' '.join(k)))
for e in t['traceEvents'][:12]:
    print(json.dumps(e, sort_keys=True))
print(json.dumps({k: v for k, v in t['metadata'].items()}, sort_keys=True))
print(len(t['stackFrames']), 'stack frames')
PY
if command -v protoc >/dev/null; then
	ex sched.ppcap export --to perfetto -o trace.pftrace
	protoc --decode_raw <trace.pftrace | head -80 >perfetto.out
	ex prof.ppcap export --to pprof -o prof.pb.gz
	zcat prof.pb.gz | protoc -I "$FIX" --decode=perftools.profiles.Profile profile.proto \
		>pprof.out || fail "protoc cannot decode the profile"
	# --value EXPR: a second value, named after the expression, summing it per sample;
	# --value count: the samples value alone
	ex sched.ppcap export --to pprof -e sched:sched_switch --value 'prev_prio + 1' -o v.pb.gz
	ex sched.ppcap export --to pprof -e sched:sched_switch --value count -o c.pb.gz
	ex sched.ppcap export --to csv -e sched:sched_switch -o v.csv
	for p in v c; do
		zcat $p.pb.gz | protoc -I "$FIX" --decode=perftools.profiles.Profile profile.proto \
			>$p.txt || fail "protoc cannot decode the --value profile"
	done
	PYTHONPATH=$TOP/tests/integration python3 - v.txt c.txt v.csv <<'PY' || fail "pprof --value"
import csv, sys
from pbtext import parse, get, unquote
rows = list(csv.DictReader(open(sys.argv[3])))
want = [len(rows), sum(int(r['prev_prio']) + 1 for r in rows)]
for path, n in ((sys.argv[1], 2), (sys.argv[2], 1)):
    p = parse(open(path).read())
    st = [x for x in get(p, 'string_table')]
    types = [unquote(st[int(get(t, 'type')[0])]) for t in get(p, 'sample_type')]
    assert len(types) == n, (path, types)
    assert types[0] == 'samples', types
    if n == 2:
        assert types[1] == 'prev_prio + 1', types
    tot = [0] * n
    for smp in get(p, 'sample'):
        v = get(smp, 'value')
        assert len(v) == n, v
        for i in range(n):
            tot[i] += int(v[i])
    assert tot == want[:n], (path, tot, want)
PY
	outs="csv jsonl folded folded-period stacks chrome perfetto pprof"
else
	echo "note: protoc is missing: the perfetto and pprof outputs are not compared"
	outs="csv jsonl folded folded-period stacks chrome"
fi

# names that are not UTF-8 (a comm is any 15 bytes): CSV cells, pprof's proto3 strings and
# JSON strings come out as valid UTF-8, the bad bytes as U+00XX
cat >bad.desc <<EOT
kv hostname testhost
kv clock monotonic
kv nr_cpus_online 1
event 1 sched:sched_switch $FIX/formats/sched_switch.format selector=sched:sched_switch/stack/ flags=stack
event 2 cpu-clock - kind=2 flags=stack selector=cpu-clock/stack/
task 300 300 1 "b\xffd,\"n\xe9" ./bad
ksym 0xffffffff81100000 schedule t
sample 1000.000100 0 300 300 1 prev_comm="b\xffd,\"n\xe9" prev_pid=300 prev_prio=120 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120 stack=kernel,0xffffffff81100010
sample 1000.000200 0 300 300 2 period=1000000 stack=kernel,0xffffffff81100010
EOT
"$CAPBUILD" bad.desc bad.ppcap || fail "capbuild bad.desc"
ex bad.ppcap export --to csv -o bad.csv
ex bad.ppcap export --to jsonl -o bad.jsonl
python3 - bad.csv bad.jsonl <<'PY' || fail "a name that is not UTF-8"
import csv, json, sys
name = 'b\u00ffd,"n\u00e9'
rows = list(csv.DictReader(open(sys.argv[1], encoding='utf-8', errors='strict', newline='')))
assert [r['comm'] for r in rows] == [name, name], [r['comm'] for r in rows]
assert rows[0]['prev_comm'] == name, rows[0]
js = [json.loads(l) for l in open(sys.argv[2], encoding='utf-8', errors='strict')]
assert [j['comm'] for j in js] == [name, name] and js[0]['prev_comm'] == name, js
PY
if command -v protoc >/dev/null; then
	ex bad.ppcap export --to pprof -o bad.pb.gz
	zcat bad.pb.gz | protoc -I "$FIX" --decode=perftools.profiles.Profile profile.proto \
		>bad.txt 2>bad.err || { cat bad.err; fail "protoc refuses a profile with a non-UTF-8 comm"; }
	grep -qF 'string_table: "b\303\277d,\"n\303\251"' bad.txt || { cat bad.txt; fail "pprof comm label"; }
fi

for o in $outs; do
	golden_file "export/$o" "$o.out" ||
		fail "$o: output differs from tests/fixtures/expected/export/$o.out"
done
exit 0
