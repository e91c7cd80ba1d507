#!/bin/sh
# SPDX-License-Identifier: MIT
# t332-lat-rundelay: two CPU-bound threads pinned to one CPU plus a sleeper on it:
# rundelay reports the sleeper's wakeup delays keyed by its pid, the spinners'
# preemption delays, and totals close to the kernel's own schedstat run delays.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event sched:sched_wakeup
need_event sched:sched_switch
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

record_with_load pinpair -a -m 512 -e sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_switch \
	-o rd.ppcap -- "$PP_LOAD/pinpair" -d 1 -c 1 -s 5 -S 1
sleeper=$(load_field "$LOAD" sleeper_tid)
spins=$(load_field "$LOAD" spin_tids)
sleeps=$(load_field "$LOAD" sleeps)
pid=$(load_field "$LOAD" pid)
delays=$(load_field "$LOAD" delay_ns)
grep -q ' lost: 0;' rec.err || skip "the recording lost events (busy machine)"

# t332.1 the sleeper's wakeup delays, keyed by its pid, with its comm
run_ok rd.out "$PP_ANALYZE" rd.ppcap rundelay --perins
row=$(awk -v t="$sleeper" '$1 == t && $3 == "sched_wakeup" { print; exit }' rd.out)
[ -n "$row" ] || { cat rd.out; fail "no sched_wakeup row for the sleeper $sleeper"; }
set -- $row
assert_eq "sleeper comm" pinpair "$2"
assert_between "sleeper wakeups" $((sleeps * 9 / 10)) $((sleeps + 5)) "$6"
head -3 rd.out | grep -q '^pid    comm ' || { head -3 rd.out; fail "key column title"; }

# t332.2 totals against the kernel's schedstat run delays (when it has them)
total_us() {
	awk -v t="$1" '$1 == t { s += $7 } END { printf "%d", s }' rd.out
}
i=1
for tid in $(echo "$spins,$sleeper" | tr ',' ' '); do
	k=$(echo "$delays" | cut -d, -f$i)
	i=$((i + 1))
	[ "$k" -gt 0 ] 2>/dev/null || continue
	assert_between "run delay of $tid (us, kernel $((k / 1000)))" $((k / 1000 * 8 / 10)) \
		$((k / 1000 * 12 / 10 + 2000)) "$(total_us "$tid")"
done

# t332.3 -p keeps the process's threads only, and -t one thread
run_ok p.out "$PP_ANALYZE" rd.ppcap rundelay --perins -p "$pid"
others=$(awk -v a="$(echo "$spins,$sleeper,$pid" | tr , ' ')" '
	BEGIN { n = split(a, v, " "); for (i = 1; i <= n; i++) ok[v[i]] = 1 }
	$2 != "comm" && $3 == "sched_wakeup" || $3 == "sched_switch" || $3 == "sched_wakeup_new" {
		if (!($1 in ok)) print $1 }' p.out)
[ -z "$others" ] || { cat p.out; fail "-p $pid shows other threads: $others"; }
run_ok t.out "$PP_ANALYZE" rd.ppcap rundelay --perins -t "$sleeper"
assert_eq "rows of -t $sleeper" "$sleeper" "$(awk '$3 ~ /^sched_/ { print $1 }' t.out | sort -u)"

# t332.4 --filter comm does the same by name
run_ok f.out "$PP_ANALYZE" rd.ppcap rundelay --perins --filter 'pinpai*'
assert_eq "sleeper row with --filter" "$row" \
	"$(awk -v t="$sleeper" '$1 == t && $3 == "sched_wakeup" { print; exit }' f.out)"
exit 0
