#!/bin/sh
# SPDX-License-Identifier: MIT
# t820-diff-latency: pp-analyze diff on captures of a load whose latency is changed on purpose.
#
# Three captures of the sleeper load: 5 ms sleeps twice (A, A2), 6 ms once (B), K sleeps
# each.  Ground truth: every sleep is >= its length and ends with its wakeup, within the
# timer slack plus interrupt latency (t351: p50 within +0.6 ms), so from A to B the
# sleeper's S stays (task-state --filter sleeper) move by +1 ms: p50 by between +0.4 and
# +1.6 ms, while their count stays K (+- 2, t351's missing wakeups).  From A to A2 they
# move by less than 10 %.  The syscalls analyzer per thread, matched by comm and syscall
# (pids differ between runs), shows nanosleep's shortest call moving the same way.
#   t820.1  text: the S key changed, sign and size of the p50 delta
#   t820.2  json: the same numbers, keys and fields as documented
#   t820.3  --fail-if trips on A -> B (exit 1, the key named), not on A -> A2 (exit 0)
#   t820.4  both sides as state files: the same comparison as the captures'
#   t820.5  syscalls --perins, --match comm,syscall: nanosleep's min_us
#   t820.6  a bad --fail-if: exit 2, the expression and a caret under the bad part
#   t820.7  csv: one line per key and value column
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event raw_syscalls:sys_enter
K=60

rec() {	# rec OUT SLEEP
	"$PP_RECORD" --for 'task-state --filter sleeper' --for syscalls -a -m 1024 -o "$1" -- \
		"$PP_LOAD/sleeper" -n $K -s "$2" >rec.out 2>rec.err ||
		{ cat rec.err; fail "pp-record $1"; }
}
rec a.pp 5ms
rec a2.pp 5ms
rec b.pp 6ms
TS="task-state --filter sleeper"

# t820.1: text, the S row
"$PP_ANALYZE" diff a.pp b.pp $TS >ab.txt || { cat ab.txt; fail "t820.1: diff exit $?"; }
grep -q '^task-state: before a.pp, after b.pp' ab.txt || { cat ab.txt; fail "t820.1: no header"; }
row=$(awk '$1 == "S"' ab.txt)
[ -n "$row" ] || { cat ab.txt; fail "t820.1: no S key in the changed keys"; }

# t820.2: json, checked against the analyzer's own reports of each side
"$PP_ANALYZE" diff --format json a.pp b.pp $TS >ab.json || fail "t820.2: diff --format json"
"$PP_ANALYZE" a.pp $TS --format json >a.json && "$PP_ANALYZE" b.pp $TS --format json >b.json ||
	fail "t820.2: task-state"
python3 - "$K" <<'EOF' || fail "t820.2: the JSON comparison"
import json, sys
k = int(sys.argv[1])
d = json.load(open("ab.json"))
rep = lambda f: {r["state"]: r for r in json.load(open(f))["task-state"]}
a, b = rep("a.json"), rep("b.json")
assert d["analyzer"] == "task-state" and d["before"] == "a.pp" and d["after"] == "b.pp", d
assert d["fail_if"] is None and d["tripped"] == 0
t = d["tables"][0]
assert t["name"] == "task-state" and t["keys"] == ["state"], t["keys"]
for v in ("calls", "total_us", "p50_us", "p95_us", "p99_us"):
    assert v in t["values"], v
assert t["same"] + t["changed"] + t["new"] + t["gone"] == len(t["rows"])
s = [r for r in t["rows"] if r["key"] == "state=S"]
assert len(s) == 1, [r["key"] for r in t["rows"]]
s = s[0]
assert s["status"] == "changed" and s["keys"] == {"state": "S"}
for v in t["values"]:   # before/after are the reports' own numbers, delta their difference
    assert s["before"][v] == a["S"][v] and s["after"][v] == b["S"][v], v
    assert abs(s["delta"][v] - (b["S"][v] - a["S"][v])) < 0.01, v
assert k - 2 <= s["before"]["calls"] <= k + 2 and k - 2 <= s["after"]["calls"] <= k + 2, s  # a sleep or two of its own start and exit (more under a sanitizer)
assert 5000 <= s["before"]["p50_us"] <= 5600, s["before"]
assert 400 <= s["delta"]["p50_us"] <= 1600, s["delta"]
# (JSON gives the change to six digits: a short S stay of the sleeper's start or exit, more
# likely under a sanitizer, makes min_us's change a thousand-fold, 1666.67 for 1666.6667)
m = max(abs(s["delta"][v]) / s["before"][v] for v in t["values"] if s["before"][v])
assert abs(s["change"] - m) <= 1e-5 * m, (s["change"], m)
# sorted by the change, largest first (new and gone keys, change null, first of all)
ch = [float("inf") if r["change"] is None else r["change"] for r in t["rows"]]
assert ch == sorted(ch, reverse=True), ch
print("S p50 %.3f -> %.3f us (%+.3f)" % (s["before"]["p50_us"], s["after"]["p50_us"],
                                        s["delta"]["p50_us"]))
EOF
# (as text prints it: signed, three decimals - JSON's 983.04 is the text's +983.040)
p50d=$(python3 -c "import json; t = json.load(open('ab.json'))['tables'][0]; print('%+.3f' % [r for r in t['rows'] if r['key'] == 'state=S'][0]['delta']['p50_us'])")
# the text row holds the same delta, signed
printf '%s\n' "$row" | tr -s ' ' '\n' | grep -qx -- "$p50d" ||
	{ echo "$row"; fail "t820.1: the text row lacks the p50 delta $p50d"; }

# t820.3: the gate
GATE='state == "S" && (p50_us > 1.10 * before.p50_us || calls < 0.9 * before.calls)'
"$PP_ANALYZE" diff --fail-if "$GATE" a.pp b.pp $TS >gate.txt 2>gate.err
assert_eq "t820.3: exit status of a tripped --fail-if" 1 $?
grep -qx 'fail-if: task-state: state=S' gate.err || { cat gate.err; fail "t820.3: the key is not named"; }
grep -q "1 key tripped" gate.txt || { cat gate.txt; fail "t820.3: no count"; }
"$PP_ANALYZE" diff a.pp a2.pp $TS --fail-if "$GATE" >same.txt 2>same.err
rc=$?
[ $rc = 0 ] || { cat same.txt same.err; fail "t820.3: --fail-if tripped on two captures of one load (exit $rc)"; }
[ ! -s same.err ] || { cat same.err; fail "t820.3: stderr on a pass"; }

# t820.4: state files give the same comparison
"$PP_ANALYZE" a.pp $TS --state-out a.state && "$PP_ANALYZE" b.pp $TS --state-out b.state ||
	fail "t820.4: --state-out"
"$PP_ANALYZE" diff --format json a.state b.state >st.json || fail "t820.4: diff of two states"
"$PP_ANALYZE" diff --format json a.state b.pp >mix.json || fail "t820.4: a state and a capture"
python3 - <<'EOF' || fail "t820.4: the states' comparison differs from the captures'"
import json
c, s, m = (json.load(open(f)) for f in ("ab.json", "st.json", "mix.json"))
assert s["analyzer"] == m["analyzer"] == "task-state"
assert c["tables"] == s["tables"] == m["tables"]
EOF
"$PP_ANALYZE" diff a.state b.state syscalls >wrong.txt 2>wrong.err
assert_eq "t820.4: exit status for a state of another analyzer" 2 $?
grep -q "is a state of task-state, not syscalls" wrong.err || { cat wrong.err; fail "t820.4: message"; }

# t820.5: syscalls per thread, matched by comm and syscall
"$PP_ANALYZE" diff --format json --match comm,syscall a.pp b.pp syscalls --perins >sc.json ||
	fail "t820.5: syscalls diff"
python3 - <<'EOF' || fail "t820.5: nanosleep of the sleeper"
import json
t = json.load(open("sc.json"))["tables"][0]
assert t["keys"] == ["comm", "syscall"], t["keys"]
r = [r for r in t["rows"] if r["keys"] == {"comm": "sleeper", "syscall": "nanosleep"}]
assert len(r) == 1, [x["key"] for x in t["rows"] if "sleeper" in x["key"]]
r = r[0]
assert r["status"] == "changed", r
# the shortest call: a sleep and its wakeup; an average also holds the time a busy CPU
# took to run the woken sleeper
assert 5000 <= r["before"]["min_us"] <= 5600 and 400 <= r["delta"]["min_us"] <= 1600, r
assert "key" not in r["before"] and "id" not in r["before"], "identity columns compared"

assert r["before"]["calls"] == r["after"]["calls"], r
EOF

# t820.6: a bad expression
"$PP_ANALYZE" diff --fail-if 'p50_us > 1.10 * before.p5O_us' a.pp b.pp $TS >bad.txt 2>bad.err
assert_eq "t820.6: exit status of a bad --fail-if" 2 $?
[ ! -s bad.txt ] || fail "t820.6: a report printed for a bad --fail-if"
grep -q "^pp-analyze: error: --fail-if: p50_us > 1.10 \* before.p5O_us$" bad.err &&
	grep -q "^ *\^ unknown field 'before.p5O_us'" bad.err || { cat bad.err; fail "t820.6: no caret"; }
col=$(sed -n 's/^\( *\)\^.*/\1/p' bad.err | awk '{ print length($0) }')
pre=$(sed -n 's/\(.*\)before.p5O_us$/\1/p' bad.err | awk '{ print length($0) }')
assert_eq "t820.6: caret column" "$pre" "$col"
"$PP_ANALYZE" diff --fail-if 'calls >' a.pp b.pp $TS >/dev/null 2>bad2.err
assert_eq "t820.6: exit status of a cut --fail-if" 2 $?
grep -q '\^ unexpected end of expression' bad2.err || { cat bad2.err; fail "t820.6: cut expression"; }

# t820.7: csv, one line per key and value column
"$PP_ANALYZE" diff --format csv a.pp b.pp $TS >ab.csv || fail "t820.7: csv"
python3 - <<'EOF' || fail "t820.7: csv"
import csv, json
rows = list(csv.DictReader(open("ab.csv")))
t = json.load(open("ab.json"))["tables"][0]
assert len(rows) == len(t["rows"]) * len(t["values"]), (len(rows), len(t["rows"]))
p = [r for r in rows if r["key"] == "state=S" and r["column"] == "p50_us"][0]
s = [r for r in t["rows"] if r["key"] == "state=S"][0]
assert float(p["before"]) == s["before"]["p50_us"] and float(p["delta"]) == s["delta"]["p50_us"]
EOF
exit 0
