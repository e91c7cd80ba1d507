#!/bin/sh
# SPDX-License-Identifier: MIT
# t372-export-pprof: cpu-clock samples with call stacks of cpuburn (whose functions burn
# known shares of its time), exported as pprof and as folded stacks.  The gzip'ed profile
# decodes with protoc against tests/fixtures/profile.proto; its sample count (the sum of
# the "samples" values) equals `info`'s cpu-clock count and its cpu/nanoseconds sum the
# sum of the periods (from the CSV export); every id it references exists; cpuburn's
# mapping carries the binary's build id (readelf); the leaf functions give burn_a..burn_d
# about the shares cpuburn reports.  The folded export adds up to the same counts.
. "$(dirname "$0")/lib.sh"
need_root
command -v protoc >/dev/null || skip "protoc is not installed (Debian package protobuf-compiler)"

"$PP_RECORD" -e cpu-clock -F 997 -g -o prof.cap -- "$PP_LOAD/cpuburn" -d 2 -c 0 2>rec.err ||
	{ cat rec.err; fail "pp-record failed"; }
pid=$(grep '^LOAD ' rec.err | tail -1 | tr ' ' '\n' | sed -n 's/^pid=//p')
shares=$(grep '^LOAD ' rec.err | tail -1 | tr ' ' '\n' | sed -n 's/^self_pct=//p')
[ -n "$pid" ] || fail "no LOAD line from cpuburn"

"$PP_ANALYZE" prof.cap export --to pprof -o prof.pb.gz || fail "export --to pprof failed"
gzip -t prof.pb.gz || fail "the profile is not gzip"
zcat prof.pb.gz | protoc -I "$TOP/tests/fixtures" --decode=perftools.profiles.Profile \
	profile.proto >prof.txt 2>protoc.err ||
	{ cat protoc.err; fail "protoc cannot decode the profile"; }
"$PP_ANALYZE" prof.cap info --format json >info.json || fail "info failed"
"$PP_ANALYZE" prof.cap export --to csv -o prof.csv || fail "csv failed"
"$PP_ANALYZE" prof.cap export --to folded -o prof.folded || fail "folded failed"
"$PP_ANALYZE" prof.cap export --to folded --value period -o period.folded ||
	fail "folded --value failed"
bid=$(readelf -n "$PP_LOAD/cpuburn" 2>/dev/null | sed -n 's/.*Build ID: *//p')

PYTHONPATH=$TOP/tests/integration python3 - prof.txt info.json prof.csv prof.folded period.folded \
	"$pid" "$shares" "$bid" <<'PY' || fail "pprof check failed"
import csv, json, sys
from collections import Counter
from pbtext import parse, get, one, unquote

prof = parse(open(sys.argv[1]).read())
info = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
folded = [l.rsplit(' ', 1) for l in open(sys.argv[4]).read().splitlines()]
pfolded = [l.rsplit(' ', 1) for l in open(sys.argv[5]).read().splitlines()]
pid, shares, bid = int(sys.argv[6]), sys.argv[7], sys.argv[8]
count = {e['name']: e['count'] for e in info['events']}['cpu-clock']
errors = []

strings = [unquote(v) for v in get(prof, 'string_table')]
S = lambda i: strings[int(i)]
if strings[0] != '':
    errors.append('string_table[0] is %r' % strings[0])
types = [(S(one(t, 'type', 0)), S(one(t, 'unit', 0))) for t in get(prof, 'sample_type')]
if types != [('samples', 'count'), ('cpu', 'nanoseconds')]:
    errors.append('sample types %s' % types)
samples = get(prof, 'sample')
total = [sum(int(v[i]) for v in (get(s, 'value') for s in samples)) for i in range(2)]
if total[0] != count:
    errors.append('%d samples in the profile, info counts %d' % (total[0], count))
if total[1] != sum(int(r['period']) for r in rows):
    errors.append('cpu nanoseconds %d, the periods add up to %d' % (
        total[1], sum(int(r['period']) for r in rows)))

maps = {one(m, 'id'): m for m in get(prof, 'mapping')}
locs = {one(l, 'id'): l for l in get(prof, 'location')}
funcs = {one(f, 'id'): f for f in get(prof, 'function')}
for s in samples:
    if any(i not in locs for i in get(s, 'location_id')):
        errors.append('a sample refers to a missing location')
        break
for l in locs.values():
    if one(l, 'mapping_id') not in (None, *maps) or any(
            one(ln, 'function_id') not in funcs for ln in get(l, 'line')):
        errors.append('a location refers to a missing mapping or function')
        break
    m = maps.get(one(l, 'mapping_id'))
    a = int(one(l, 'address', 0))
    if m and not int(one(m, 'memory_start', 0)) <= a < int(one(m, 'memory_limit', 0)):
        errors.append('location address %x outside its mapping' % a)
        break
burn = [m for m in maps.values() if S(one(m, 'filename', 0)).endswith('/cpuburn')]
if not burn:
    errors.append('no mapping for cpuburn')
elif bid and S(one(burn[0], 'build_id', 0)) != bid:
    errors.append('cpuburn build id %r, readelf says %r' % (S(one(burn[0], 'build_id', 0)), bid))

# self shares of cpuburn's functions, from the leaf frame of its samples
leaf = Counter()
for s in samples:
    labels = {S(one(l, 'key', 0)): l for l in get(s, 'label')}
    if int(one(labels['pid'], 'num', 0)) != pid or not get(s, 'location_id'):
        continue
    ln = get(locs[get(s, 'location_id')[0]], 'line')
    if ln:
        leaf[S(one(funcs[one(ln[0], 'function_id')], 'name', 0))] += int(get(s, 'value')[0])
burned = sum(v for k, v in leaf.items() if k.startswith('burn_'))
for kv in shares.split(','):
    fn, pct = kv.split(':')
    got = 100.0 * leaf[fn] / burned if burned else 0
    if abs(got - float(pct)) > 8:
        errors.append('%s: %.1f%% of the burn samples, cpuburn says %s%%' % (fn, got, pct))

# folded: same totals; every line starts with the command name
if sum(int(v) for _, v in folded) != count:
    errors.append('folded adds up to %d, not %d' % (sum(int(v) for _, v in folded), count))
if sum(int(v) for _, v in pfolded) != total[1]:
    errors.append('folded --value period adds up to %d, not %d' % (
        sum(int(v) for _, v in pfolded), total[1]))
if not any(k.startswith('cpuburn;') and k.endswith(';burn_c') for k, _ in folded):
    errors.append('no folded stack ends in cpuburn ... burn_c')
print('%d samples in %d Sample messages, %d locations, %d functions, %d mappings; self %s' % (
    total[0], len(samples), len(locs), len(funcs), len(maps),
    {k: round(100.0 * v / burned, 1) for k, v in leaf.items() if k.startswith('burn_')}))
for e in errors:
    print('error:', e)
sys.exit(1 if errors else 0)
PY
exit 0
