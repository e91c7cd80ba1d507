#!/bin/sh
# SPDX-License-Identifier: MIT
# t173-oldkernel-attr-size: perf_event_open()'s E2BIG: the attr sent at the kernel's size.
#
# A kernel given a perf_event_attr larger than its own refuses it with E2BIG, and writes
# its size into attr.size, when the bytes past its size are not all zero.  pp-record's
# are zero, so real kernels take them; oldkernel --strict-size refuses any larger attr,
# as 4.18 (112 bytes) would refuse one with a newer field set.  pp-record then sends the
# attr at 112 bytes: profile -g on cpuburn's known tree (t350) keeps its shares (burn_c's
# own samples 50 % of the four functions', within 5 points or 3 standard errors of the
# samples taken, whichever is wider: a busy machine gives the burner less CPU), task-state
# its sleeps.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-oldkernel.sh"
need_event sched:sched_switch

"$OLDK" -v --strict-size 4.18 -- "$PP_RECORD" --for 'profile -F 997 -g' -o burn.pp -- \
	"$PP_LOAD/cpuburn" -d 3 -u 200 >burn.out 2>burn.err || { cat burn.err; fail "pp-record"; }
assert_ge "E2BIG answers" 1 "$(refusals 4.18 burn.err "E2BIG")"
"$PP_ANALYZE" burn.pp profile -g --no-inline --format json >prof.json || fail "profile"
python3 - prof.json <<'PY' || fail "cpuburn's shares"
import json, math, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
syms = {r["symbol"]: r["samples"] for l in lines for r in l.get("symbols", [])}
four = ["burn_a", "burn_b", "burn_c", "burn_d"]
if any(f not in syms for f in four):
    print("missing functions:", syms); sys.exit(1)
own = sum(syms[f] for f in four)
pct = 100 * syms["burn_c"] / own
bound = max(5, 3 * 100 * math.sqrt(0.25 / max(own, 1)))
print("burn_c %.1f %% of %d samples (want 50 +- %.1f)" % (pct, own, bound))
sys.exit(not (abs(pct - 50) <= bound and own >= 100))
PY

"$OLDK" -v --strict-size 4.18 -- "$PP_RECORD" --for 'task-state --filter sleeper' -a -m 1024 \
	-o sleep.pp -- "$PP_LOAD/sleeper" -n 40 -s 10ms >sleep.out 2>sleep.err ||
	{ cat sleep.err; fail "pp-record task-state"; }
assert_ge "E2BIG answers (task-state)" 1 "$(refusals 4.18 sleep.err "E2BIG")"
sleep_truth "4.18 --strict-size" sleep.pp sleep.err
exit 0
