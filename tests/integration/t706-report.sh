#!/bin/sh
# SPDX-License-Identifier: MIT
# t706-report: pp-analyze FILE report on a recording of the project's loads: cpuburn with
# call stacks (its known call tree main -> burn_a -> {burn_b -> burn_c, burn_d}: inclusive
# shares 100/75/50/12.5 %), ctxsw (N round trips of two threads on one CPU: each runs
# once a trip, a few more or one or two fewer at the ends: the peer's first read may not
# block, its exit ends a run without a switch back) and pinpair (two spinners on one CPU:
# the kernel's schedstat run and wait times).
# The page is one valid-ish HTML file with nothing external; its flame graph and tables
# hold the functions and those numbers; every table is what its section's command prints;
# tables keep --max-rows rows and say so; the page is the same alone and beside another
# analyzer in one pass, and the same twice.  t706.7: a capture whose strings are markup
# and script shows them as text (report-hostile.desc).  The browser: t707.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
CHECK="python3 $TOP/tests/integration/report-check.py"

# t706.7 first: it needs no root
build_fixture report-hostile rh.ppcap
"$PP_ANALYZE" rh.ppcap report -o rh.html 2>rh.err || { cat rh.err; fail "report of report-hostile"; }
$CHECK page-text-urls rh.html || fail "the hostile capture's page"
$CHECK json rh.html >rh.json
python3 - rh.json <<'PY' || fail "the hostile strings are not kept exactly, as text"
import json, sys
p = json.load(open(sys.argv[1]))
names = [n for f in p["data"]["flames"] for n in f["names"]]
assert "main<script>alert(3)</script>" in names, names
assert "</script><a>x" in names and '"><svg onload=' in names, names
cells = [c for s in p["sections"].values() for t in s["tables"] for r in t["rows"] for c in r]
assert "</script><a>x" in cells, "comm in a table"
assert "<i>read</i>" in cells, "syscall name in a table"
PY
grep -qF '&#39;&lt;img src=http://evil.example/p.png onerror=alert(1)&gt;&#39;' rh.html ||
	fail "the recorded command is not shown as text"
grep -q '<script>alert' rh.html && fail "a script of the capture's is in the page"
# U+2028 ends a line in older JavaScript: escaped in the data block (one line)
grep 'id="pp-data"' rh.html | grep -q "$(printf '\342\200\250')" && fail "a raw U+2028 in the data"
grep -q 'x\\u2028y' rh.html || fail "U+2028 not escaped in the data"

need_event sched:sched_switch
need_event sched:sched_wakeup

# one recording, system-wide (the report's plan), of the three loads one after the other
cpu=$(($(nproc) - 1))
N=20000
burn="$PP_LOAD/cpuburn -d 3 -u 200 -c $cpu"
if chrt -f 10 true 2>/dev/null; then burn="chrt -f 10 $burn"; fi
"$PP_RECORD" --for report -o rep.pp -- sh -c "$burn && $PP_LOAD/ctxsw -n $N -c $cpu &&
	$PP_LOAD/pinpair -d 1 -c $cpu" >rec.out 2>rec.err || { cat rec.err; fail "pp-record --for report"; }
grep -q '^LOAD cpuburn' rec.err || fail "no LOAD line from cpuburn"
ctx=$(grep '^LOAD ctxsw' rec.err) || fail "no LOAD line from ctxsw"
pin=$(grep '^LOAD pinpair' rec.err) || fail "no LOAD line from pinpair"

# t706.1 the page: one file, of a sensible size
start=$(date +%s%N)
"$PP_ANALYZE" rep.pp report -o report.html 2>rep.err || { cat rep.err; fail "report"; }
ms=$((($(date +%s%N) - start) / 1000000))
size=$(wc -c <report.html)
echo "report: $size bytes in $ms ms of $("$PP_ANALYZE" rep.pp info | sed -n 's/^events *//p') events"
assert_between "page size" 10000 3000000 "$size"

# t706.2 valid-ish HTML, nothing external: no URL at all, no element or attribute the
# report does not write; xmllint's HTML parser reads it too
$CHECK page report.html || fail "the page"
grep -Eio '(https?|ftp|wss?)://' report.html && fail "a URL in the page"
# (its parser is HTML 4's: HTML 5's elements are "invalid" to it, nothing else may be)
if command -v xmllint >/dev/null; then
	xmllint --html --noout report.html 2>xmllint.err
	grep -E 'error|warning' xmllint.err |
		grep -v 'Tag \(header\|nav\|main\|section\|footer\|canvas\) invalid' &&
		fail "xmllint --html complains"
fi

# t706.3 the known functions and numbers: the flame graph holds cpuburn's call chain; the
# symbols table its inclusive shares relative to burn_a within 6 points (the shares of
# the recording's other processes aside).  Every row (a busy machine has thousands of
# threads), so that the loads' rows are there whatever else ran.
"$PP_ANALYZE" rep.pp report -o full.html --max-rows 1000000 2>rep.err || { cat rep.err; fail "report"; }
$CHECK json report.html >report.json
$CHECK json full.html >full.json
python3 - full.json <<'PY' || fail "cpuburn's functions and shares"
import json, sys
p = json.load(open(sys.argv[1]))
f = p["data"]["flames"][0]
nodes, names = f["nodes"], f["names"]
paths, stack = set(), []
for i in range(0, len(nodes), 3):
    d, n = nodes[i], nodes[i + 1]
    stack[d:] = [names[n] if n >= 0 else "all"]
    paths.add(";".join(stack))
for want in ("main;burn_a;burn_b;burn_c", "main;burn_a;burn_d"):
    assert any(x.endswith(want) for x in paths), "no path " + want
sec = p["sections"]["flame-0"]
sym = {r[3]: r for r in sec["tables"][0]["rows"]}
inc = {k: float(sym[k][0].rstrip("%")) for k in ("burn_a", "burn_b", "burn_c", "burn_d")}
for k, want in (("burn_b", 75), ("burn_c", 50), ("burn_d", 12.5)):
    got = 100 * inc[k] / inc["burn_a"]
    print("%s inclusive %.1f %% of burn_a's (want %s)" % (k, got, want))
    assert abs(got - want) <= 6, k
procs = {r[1]: r for r in sec["tables"][1]["rows"]}
assert "cpuburn" in procs, "no cpuburn in the processes table"
PY

# t706.4 every table is what its section's command prints (--format csv), row for row
$CHECK reproduce report.html "$PP_ANALYZE" rep.pp || fail "a table differs from its command's output"
"$PP_ANALYZE" rep.pp info --format json >info.json || fail "info --format json"
python3 - report.json info.json <<'PY' || fail "the events table differs from info"
import json, sys
p = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[2]))
want = {e["name"]: str(e["count"]) for e in info["events"]}
rows = p["sections"]["capture"]["tables"][0]["rows"]
got = {r[0]: r[1] for r in rows}
assert got == want, (got, want)
PY

# t706.5 ctxsw's two threads run N times each (and a few); pinpair's spinners run and wait as
# schedstat says, within 10 % (the per-thread task states)
tids=$(load_field "$ctx" tids)
python3 - full.json "$tids" $N "$pin" <<'PY' || fail "task states against the loads' truth"
import json, sys
p = json.load(open(sys.argv[1]))
tids, n, pin = sys.argv[2].split(","), int(sys.argv[3]), dict(
    kv.split("=", 1) for kv in sys.argv[4].split()[2:] if "=" in kv)
t = p["sections"]["task-state"]["tables"][1]
col = {c: i for i, c in enumerate(t["header"])}
def row(tid, st):
    for r in t["rows"]:
        if r[col["thread"]] == tid and r[col["state"]] == st:
            return r
    return None
for tid in tids:
    r = row(tid, "R")
    print("ctxsw %s: runs %s times" % (tid, r and r[col["calls"]]))
    assert r and n - 2 <= int(r[col["calls"]]) <= 1.02 * n + 10, "ctxsw runs"
if pin["delay_ns"].split(",")[0] != "-1":
    for i, tid in enumerate(pin["spin_tids"].split(",")):
        for st, key in (("R", "run_ns"), ("RD", "delay_ns")):
            want = int(pin[key].split(",")[i]) / 1000
            r = row(tid, st)
            got = float(r[col["total_us"]]) if r else 0
            print("pinpair %s %s %.0f us, schedstat %.0f us" % (tid, st, got, want))
            assert 0.9 * want <= got <= 1.1 * want, "pinpair " + st
PY

# t706.6 --max-rows 3: three rows a table, and the page says of how many
"$PP_ANALYZE" rep.pp report -o small.html --max-rows 3 2>/dev/null || fail "report --max-rows 3"
$CHECK json small.html >small.json
python3 - small.json <<'PY' || fail "--max-rows"
import json, re, sys
p = json.load(open(sys.argv[1]))
t = p["sections"]["task-state"]["tables"][1]
assert len(t["rows"]) == 3 and re.match(r"3 of \d+ rows", t["note"] or ""), (len(t["rows"]), t["note"])
PY

# t706.8 one pass with another analyzer: the same page, and that analyzer's own output;
# the report's temporary files ($TMPDIR) are gone afterwards
mkdir tmp
TMPDIR=$T/tmp "$PP_ANALYZE" rep.pp report -o pass.html , \
	task-state --perins --format csv >pass.csv 2>/dev/null || fail "report , task-state"
"$PP_ANALYZE" rep.pp task-state --perins --format csv >alone.csv 2>/dev/null
cmp -s pass.html report.html || fail "the page differs beside another analyzer"
cmp -s pass.csv alone.csv || fail "task-state differs beside the report"
[ -z "$(ls tmp)" ] || fail "the report left $(ls tmp) in TMPDIR"
exit 0
