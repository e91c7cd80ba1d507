#!/bin/sh
# SPDX-License-Identifier: MIT
# t350-cpu-profile-cpuburn: profile -g on cpuburn's known call tree
# (self burn_a 12.5, burn_b 25, burn_c 50, burn_d 12.5 %; inclusive 100/75/50/12.5 %):
# shares within 2 points (3 standard errors when fewer samples make that wider), folded
# stacks, a well-formed SVG naming the functions, byte-identical output on a second run.
#
# The burner runs SCHED_FIFO (chrt) on one CPU, so that other loads do not take the CPU
# from it (cpuburn does not count the time off the CPU toward a slice either: it stays
# a share of its CPU time).  -F 997 with 200 us units keeps the
# per-sample handling time small against a slice (in a VM a sample costs tens of us).
# ~6000 samples give a standard error under 0.7 points for the 50 % share.
# The shares are those of the functions' own code: cpuburn's spin reads the TSC through an
# always-inlined intrinsic (__rdtsc) that inline frames (DWARF: cpuburn is built with -g)
# show as a frame of its own, so .1-.3 use --no-inline; .4 and .6 run with inline frames.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "needs python3 to check the JSON and the SVG"

cpu=$(($(nproc) - 1))
burn="$PP_LOAD/cpuburn -d 6 -u 200 -c $cpu"
if chrt -f 10 true 2>/dev/null; then burn="chrt -f 10 $burn"; fi
"$PP_RECORD" --for 'profile -F 997 -g' -o burn.pp -- $burn >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record failed"; }
grep -q '^LOAD cpuburn' rec.err || fail "cpuburn printed no LOAD line"

# t350.1 the shares, from the JSON report.  Self shares are counted among the four functions'
# own samples: the kernel's samples on the burner's behalf (interrupts, preemptions: more of
# them on a busy machine) dilute every share alike and are no part of the call tree's truth.
# The bound is 2 points or 3 standard errors of a share of n samples, whichever is wider:
# 2 points for the ~6000 samples of a quiet machine, wider only when fewer samples were taken.
"$PP_ANALYZE" burn.pp profile -g --no-inline --format json >prof.json || fail "profile --format json"
python3 - prof.json <<'PY' || fail "shares off by more than their bound"
import json, math, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
syms = {r["symbol"]: r for l in lines for r in l.get("symbols", [])}
want = {"burn_a": (12.5, 100), "burn_b": (25, 75), "burn_c": (50, 50), "burn_d": (12.5, 12.5)}
procs = [r for l in lines for r in l.get("processes", [])]
total = sum(r["samples"] for r in procs)
missing = [name for name in want if name not in syms]
if missing:
    print("missing", *missing); sys.exit(1)
own = sum(syms[name]["samples"] for name in want)

def bound(pct, n):
    return max(2, 3 * 100 * math.sqrt(pct / 100 * (1 - pct / 100) / max(n, 1)))

bad = 0
for name, (self_pct, children_pct) in want.items():
    r = syms[name]
    own_pct = 100 * r["samples"] / own
    print("%s self %.2f of the four's %d samples (want %s +- %.2f), children %.2f of %d "
          "(want %s +- %.2f)" % (name, own_pct, own, self_pct, bound(self_pct, own),
                                 r["children_pct"], total, children_pct,
                                 bound(children_pct, total)))
    if abs(own_pct - self_pct) > bound(self_pct, own) or \
       abs(r["children_pct"] - children_pct) > bound(children_pct, total):
        bad = 1
if not procs or procs[0]["comm"] != "cpuburn" or procs[0]["pct"] < 95:
    print("per-process split:", procs); bad = 1
sys.exit(bad)
PY

# t350.2 the text report names them with both shares
"$PP_ANALYZE" burn.pp profile -g --no-inline >prof.txt || fail "profile"
for f in burn_a burn_b burn_c burn_d; do
	grep -Eq "^ +[0-9.]+% +[0-9.]+% +[0-9]+ $f\$" prof.txt || { cat prof.txt; fail "no row for $f"; }
done
grep -Eq '^ +[0-9]+ cpuburn +[0-9]+ +[0-9.]+%$' prof.txt || fail "no per-process row for cpuburn"

# t350.3 folded stacks: comm first, innermost last, a count; they add up to the samples
"$PP_ANALYZE" burn.pp profile -g --no-inline --flame-graph burn.folded >/dev/null || fail "folded"
for s in 'main;burn_a' 'main;burn_a;burn_b' 'main;burn_a;burn_b;burn_c' 'main;burn_a;burn_d'; do
	grep -Eq "^cpuburn;(.*;)?$s [0-9]+\$" burn.folded || { head burn.folded; fail "no folded stack $s"; }
done
samples=$(sed -n 's/^profile: \([0-9]*\) samples.*/\1/p' prof.txt)
folded=$(awk '{ n += $NF } END { print n }' burn.folded)
assert_eq "folded total" "$samples" "$folded"

# t350.4 the SVG is XML, and its frames name the functions
"$PP_ANALYZE" burn.pp profile -g --flame-graph burn.svg >/dev/null || fail "svg"
python3 - burn.svg <<'PY' || fail "the SVG does not parse or misses functions"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in root.iter(ns + "title")]
for f in ("burn_a", "burn_b", "burn_c", "burn_d", "main", "cpuburn"):
    if not any(t.startswith(f + " (") for t in titles):
        print("no frame for", f); sys.exit(1)
if root.find(ns + "script") is None:
    print("no script"); sys.exit(1)
PY
if command -v xmllint >/dev/null; then xmllint --noout burn.svg || fail "xmllint rejects the SVG"; fi

# t350.5 the inline script: hover shows the frame, a click zooms it to the full width
if command -v node >/dev/null; then
	node "$TOP/tests/integration/flamegraph-js.js" burn.svg burn_b || fail "SVG script"
fi

# t350.6 the same capture twice: the same bytes
"$PP_ANALYZE" burn.pp profile -g >prof2.txt
"$PP_ANALYZE" burn.pp profile -g >prof3.txt
"$PP_ANALYZE" burn.pp profile -g --flame-graph burn2.svg >/dev/null
cmp -s prof2.txt prof3.txt || fail "profile output differs between two runs"
cmp -s burn.svg burn2.svg || fail "SVG differs between two runs"

# t350.7 the plan samples cycles where there is a PMU, cpu-clock where there is none
# (PP_SYSFS_PMU stands for the PMU's sysfs directory: present, then missing)
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	want=cycles
else
	want=cpu-clock
fi
assert_eq "event recorded for profile here" "$want" \
	"$("$PP_ANALYZE" burn.pp info | sed -n '/^events/{n;p;}' | awk '{print $1}')"
PP_SYSFS_PMU=/nonexistent "$PP_RECORD" --for 'profile' --duration 0.2 -o nopmu.pp >/dev/null 2>rec2.err ||
	{ cat rec2.err; fail "pp-record --for profile without a PMU"; }
assert_eq "event without a PMU" cpu-clock \
	"$("$PP_ANALYZE" nopmu.pp info | sed -n '/^events/{n;p;}' | awk '{print $1}')"
if [ $want = cpu-clock ]; then
	# no PMU really: the plan's cycles event is refused by pp-record, which names it
	PP_SYSFS_PMU=/ "$PP_RECORD" --for 'profile' --duration 0.2 -o pmu.pp >/dev/null 2>rec3.err &&
		fail "cycles recorded on a machine without a PMU"
	grep -q "hardware event 'cycles'" rec3.err || { cat rec3.err; fail "the plan did not ask for cycles"; }
fi
exit 0
