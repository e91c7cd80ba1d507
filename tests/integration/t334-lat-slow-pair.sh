#!/bin/sh
# SPDX-License-Identifier: MIT
# t334-lat-slow-pair: --than with --detail on 40000 synthetic softirq pairs with
# one injected slow pair prints exactly that pair and the events between its two
# ends (all of them, or only its CPU's with samecpu), and nothing else.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

# pairs every 10 us on each CPU (bash on CPU 0, server on CPU 1) (entry at +0, exit at +1..9 us); pair 5000 of CPU 1
# lasts 2 ms and CPU 1 takes 3 irqs meanwhile; CPU 0 goes on with its pairs
cat >slow.desc <<EOT
kv release 6.18.0-test
event 1 irq:softirq_entry $FIX/formats/softirq_entry.format
event 2 irq:softirq_exit $FIX/formats/softirq_exit.format
event 3 irq:irq_handler_entry $FIX/formats/irq_handler_entry.format
task 100 100 1 bash
task 300 300 1 server
sync 1000.000000000 1767225600.000000000
EOT
awk 'BEGIN {
	t1 = 0
	for (k = 0; k < 20000; k++) {
		t0 = 1000000 + k * 10000
		printf "sample 1000.%09d 0 100 100 1 vec=1\n", t0
		printf "sample 1000.%09d 0 100 100 2 vec=1\n", t0 + 1000 + (k % 9) * 1000
		if (t1 > t0 + 5000)
			continue
		if (k == 5000) {
			t1 = t0 + 5000 + 2000000
			printf "sample 1000.%09d 1 300 300 1 vec=3\n", t0 + 5000
			for (i = 1; i <= 3; i++)
				printf "sample 1000.%09d 1 300 300 3 irq=%d name=eth0\n", t0 + 5000 + i * 500000, 30 + i
			printf "sample 1000.%09d 1 300 300 2 vec=3\n", t1
			continue
		}
		printf "sample 1000.%09d 1 300 300 1 vec=9\n", t0 + 5000
		printf "sample 1000.%09d 1 300 300 2 vec=9\n", t0 + 5000 + 1000 + (k % 7) * 1000
	}
}' | sort -k2,2 -s >>slow.desc
"$CAPBUILD" slow.desc slow.ppcap || fail "capbuild"
E='-e irq:softirq_entry -e irq:softirq_exit,irq:irq_handler_entry//untraced/'

# t334.1 every event between the two ends
run_ok all.out "$PP_ANALYZE" slow.ppcap multi-trace $E --than 1ms --detail
assert_eq "pairs reported" 2 "$(grep -c ': irq:softirq_e[nx][ti][rt]y*: vec=3' all.out)"
assert_eq "event1 line" "2026-01-01 00:00:00.051005 server 300 .... [001] 1000.051005: irq:softirq_entry: vec=3 [action=NET_RX]" \
	"$(grep -m1 'vec=3' all.out | tr -s ' ')"
grep -q '^|+ 2000.000 us ' all.out || fail "no '|+ 2000.000 us' title on the first event between"
# CPU 0 has 200 pairs (400 events) in the 2 ms, CPU 1 its 3 irqs
assert_eq "events between" 403 "$(grep -c '^|' all.out)"
assert_eq "CPU 1 events between" 3 "$(grep '^|' all.out | grep -c ' \[001\] ')"
assert_eq "event lines outside the pair's block" 2 "$(grep -v '^|' all.out | grep -c ': irq:')"

# t334.2 samecpu: only CPU 1's irqs between
run_ok cpu.out "$PP_ANALYZE" slow.ppcap multi-trace $E --than 1ms --detail=samecpu
assert_eq "samecpu events between" 3 "$(grep -c '^|' cpu.out)"
assert_eq "samecpu irq lines" 3 "$(grep '^|' cpu.out | grep -c 'irq_handler_entry: irq=3[123] ')"

# t334.3 without --detail only the two ends, and the table counts every pair
run_ok plain.out "$PP_ANALYZE" slow.ppcap multi-trace -e irq:softirq_entry -e irq:softirq_exit --than 1ms
assert_eq "plain event lines" 2 "$(grep -c ': irq:' plain.out)"
assert_eq "pairs counted" 39801 "$(awk '$2 == "=>" && $1 != "start" { print $4 }' plain.out)"
assert_eq "than(reqs)" "1" "$(awk '$2 == "=>" && $1 != "start" { print $11 }' plain.out)"
exit 0
