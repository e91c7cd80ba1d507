#!/bin/sh
# SPDX-License-Identifier: MIT
# t154-import-perf-consistent: perf.data files (plain and perf record -z) converted by
# import -o: info's event counts are perf script's, per event; event-care's per-CPU
# events add up to them and its losses to info's; the import reads the same whether
# converted on the fly or written once; scrub, slice and -j 2 take the written capture.
. "$(dirname "$0")/lib.sh"
need_event sched:sched_switch
need_event sched:sched_wakeup
command -v perf >/dev/null || skip "needs perf (linux-perf)"

for z in "" -z; do
	f=sw$z.data
	perf record -B -N -q $z -a -m 1024 -e sched:sched_switch,sched:sched_wakeup -o $f -- \
		"$PP_LOAD/sleeper" -n 20 -s 5ms >rec.out 2>rec.err || { cat rec.err; fail "perf record $z"; }
	perf script -i $f >script.txt 2>/dev/null || fail "perf script $z"
	"$PP_ANALYZE" $f import -o sw.ppcap 2>imp.err || { cat imp.err; fail "import -o ($f)"; }
	grep -q "^pp-analyze: import: '$f' -> 'sw.ppcap': [0-9]* records" imp.err ||
		{ cat imp.err; fail "import says nothing of what it wrote"; }
	"$PP_ANALYZE" sw.ppcap info >info.txt || fail "info ($f)"
	grep -q '^recorder     perf .*, imported' info.txt || { cat info.txt; fail "info: recorder ($f)"; }
	grep -q '^lacks        no kernel symbol table in a perf.data' info.txt ||
		{ cat info.txt; fail "info: the kernel symbols' line ($f)"; }
	for ev in sched:sched_switch sched:sched_wakeup; do
		want=$(grep -c " $ev: " script.txt)
		got=$(awk -v e="$ev" '$1 == e { print $2 }' info.txt)
		assert_eq "$ev in $f: info vs perf script" "$want" "$got"
	done
	total=$(sed -n 's/^events *\([0-9]*\).*/\1/p' info.txt)
	lost=$(sed -n 's/^lost *\([0-9]*\).*/\1/p' info.txt)
	"$PP_ANALYZE" sw.ppcap event-care >care.txt
	assert_eq "event-care's events ($f)" "$total" \
		"$(awk '$1 ~ /^\[[0-9]+\]$/ && NF == 5 { n += $2 } END { print n + 0 }' care.txt)"
	assert_eq "event-care's losses ($f)" "$lost" \
		"$(awk '$1 ~ /^\[[0-9]+\]$/ && NF == 5 { n += $3 } END { print n + 0 }' care.txt)"
	# the same report converted on the fly and from the written capture
	"$PP_ANALYZE" $f task-state >fly.txt 2>/dev/null || fail "task-state on $f"
	"$PP_ANALYZE" sw.ppcap task-state >cap.txt 2>/dev/null || fail "task-state on the import"
	cmp -s fly.txt cap.txt || { diff fly.txt cap.txt | head; fail "on the fly and written differ"; }
done
"$PP_ANALYZE" sw.ppcap scrub -o scrubbed.ppcap >/dev/null || fail "scrub of the import"
"$PP_ANALYZE" sw.ppcap slice -o sliced.ppcap --event sched:sched_switch >/dev/null 2>&1 ||
	fail "slice of the import"
"$PP_ANALYZE" -j 2 sw.ppcap task-state >j2.txt 2>/dev/null || fail "-j 2 on the import"
cmp -s cap.txt j2.txt || { diff cap.txt j2.txt | head; fail "-j 2 differs"; }
exit 0
