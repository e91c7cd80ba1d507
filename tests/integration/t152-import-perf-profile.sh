#!/bin/sh
# SPDX-License-Identifier: MIT
# t152-import-perf-profile: profile -g of a perf.data of 'perf record -g' on cpuburn's
# known call tree: the self shares of burn_a..d (12.5, 25, 50, 12.5 % of the four's
# samples) within 2 points of perf report's on the same file (and of the truth, 3
# standard errors when fewer samples make that wider), the user symbols read from this
# machine's cpuburn (the file has no build ids: perf record -B).
. "$(dirname "$0")/lib.sh"
need_root
command -v perf >/dev/null || skip "needs perf (linux-perf)"
command -v python3 >/dev/null || skip "needs python3"

cpu=$(($(nproc) - 1))
burn="$PP_LOAD/cpuburn -d 4 -u 200 -c $cpu"
if chrt -f 10 true 2>/dev/null; then burn="chrt -f 10 $burn"; fi
perf record -B -N -q -g -F 997 -o burn.data -- $burn >rec.out 2>rec.err ||
	{ cat rec.err; fail "perf record -g"; }
"$PP_ANALYZE" burn.data profile -g --no-inline --format json >prof.json 2>prof.err ||
	{ cat prof.err; fail "profile on the perf.data"; }
grep -q 'user symbols: ' prof.err || { cat prof.err; fail "nothing said of the user symbols"; }
# Debian's perf 6.1 now and then dies reading its own file (an assertion in build-id.c):
# then the shares are checked against the truth alone, and that is said
perf report -i burn.data --no-children --sort sym --stdio -q >report.txt 2>/dev/null ||
	{ echo "perf report failed on its own file: the shares are checked against the truth only"; : >report.txt; }
python3 - prof.json report.txt <<'PY' || fail "shares off"
import json, math, re, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
syms = {r["symbol"]: r for l in lines for r in l.get("symbols", [])}
want = {"burn_a": 12.5, "burn_b": 25, "burn_c": 50, "burn_d": 12.5}
perf = {}
for l in open(sys.argv[2]):
    m = re.match(r"\s*([0-9.]+)%\s+\[\.\]\s+(\S+)", l)
    if m and m.group(2) in want:
        perf[m.group(2)] = float(m.group(1))
missing = [n for n in want if n not in syms or (perf and n not in perf)]
if missing:
    print("missing", *missing); sys.exit(1)
own = sum(syms[n]["samples"] for n in want)
pown = sum(perf[n] for n in want) if perf else 0
bad = 0
for n, truth in want.items():
    ours = 100 * syms[n]["samples"] / own
    theirs = 100 * perf[n] / pown if perf else ours
    b = max(2, 3 * 100 * math.sqrt(truth / 100 * (1 - truth / 100) / max(own, 1)))
    print("%s: %.2f %% here, %.2f %% by perf report, truth %s +- %.2f" % (n, ours, theirs, truth, b))
    if abs(ours - theirs) > 2 or abs(ours - truth) > b:
        bad = 1
sys.exit(bad)
PY
exit 0
