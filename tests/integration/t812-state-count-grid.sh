#!/bin/sh
# SPDX-License-Identifier: MIT
# t812-state-count-grid: the count engine's slots binned from events (no counter readings)
# lie on one grid for the whole capture (issue 19, 2026-12-05).  A recorded load of known
# calls (bursts: B getppid calls every P ms, N times, raw_syscalls:sys_enter filtered in the
# kernel): hrcount and stat print the same bytes with -j 1, 2 and 4 (in parts, said with -v),
# count the load's calls, and the states of --time ,T and --time T+1ns, merge to the one-pass
# report byte for byte with T inside a slot, at a slot's edge and at a round's edge (and three
# ranges at once); a range's state made in parts is the one-thread state's bytes; a one-pass
# --time A,B report still starts its first slot at A.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
need_event raw_syscalls:sys_enter

nr=$(sed -n 's/^REC_SYSCALL(\([0-9]*\), getppid)$/\1/p' "$PP_LOAD/../gen/syscalls.h")
[ -n "$nr" ] || nr=110
EV="raw_syscalls:sys_enter/id==$nr/"
B=5000 P=10 N=60

"$PP_RECORD" -q -m 4096 -a -e "$EV" -e sched:sched_switch -o g.cap -- \
	"$PP_LOAD/bursts" -b $B -p $P -n $N -c 0 2>rec.err || { cat rec.err; fail "pp-record"; }
calls=$(load_field "$(grep '^LOAD bursts' rec.err)" calls)
assert_eq "calls made" $((B * N)) "$calls"
# the load's own calls (-p): other getppid callers on a busy machine are not counted
lpid=$(load_field "$(grep '^LOAD bursts' rec.err)" pid)
nev=$("$PP_ANALYZE" g.cap info | sed -n 's/^segments .* events \([0-9]*\),.*/\1/p')
assert_ge "events segments (a capture to cut)" 4 "$nev"

# "S.NNNNNNNNN" seconds -> ns
ns() { echo "$1" | awk '{ split($1, p, "."); f = substr(p[2] "000000000", 1, 9); printf "%d%s\n", p[1], f }'; }
# the capture's first time (any event): the grid's origin
first=$(ns "$("$PP_ANALYZE" g.cap export --to csv -N 1 | sed -n '2s/,.*//p')")
[ "$first" -gt 0 ] || fail "no first event"
# the calls a report counted: the sum of its totals, any layout
total() {
	case "$1" in
	json) python3 -c 'import sys,json; print(sum(json.loads(l)["total"] for l in sys.stdin if l.strip()))' ;;
	csv) python3 -c '
import sys, csv
rows = list(csv.reader(sys.stdin))
col = rows[0].index("total") if "total" in rows[0] else None
print(sum(int(r[col]) for r in rows[1:] if col is not None and r and r[0] != rows[0][0]))' ;;
	*) awk '/total/ { s += $NF } END { print s + 0 }' ;;
	esac
}

# cut NAME FMT T ARGS...: the states of --time ,T and --time T+1ns, merge (both ways, the same
# bytes) to one.out's bytes; the first half alone is not the whole
cut() {
	_n=$1 _fmt=$2 _t=$3
	shift 3
	run_ok /dev/null "$PP_ANALYZE" g.cap "$@" --time ",${_t}ns" --state-out a.state
	run_ok /dev/null "$PP_ANALYZE" g.cap "$@" --time "$((_t + 1))ns," --state-out b.state
	run_ok /dev/null "$PP_ANALYZE" merge a.state b.state -o ab.state
	run_ok /dev/null "$PP_ANALYZE" merge b.state a.state -o ba.state
	cmp ab.state ba.state >/dev/null || fail "$_n: A+B and B+A differ"
	run_ok merged.out "$PP_ANALYZE" report ab.state --format "$_fmt"
	diff -u one.out merged.out | head -20 >diff.out
	[ -s diff.out ] && { cat diff.out; fail "$_n: the merge of the ranges is not the replay"; }
	run_ok a.out "$PP_ANALYZE" report a.state --format "$_fmt"
	cmp -s a.out one.out && fail "$_n: the first half alone is the whole"
	# the second range's state made in parts is the one-thread state
	"$PP_ANALYZE" -j 3 g.cap "$@" --time "$((_t + 1))ns," --state-out bj.state 2>/dev/null ||
		fail "$_n: -j 3 --state-out"
	cmp -s b.state bj.state || fail "$_n: the range's state made in parts differs"
	echo "ok $_n"
}

# check NAME FMT ARGS...
check() {
	_name=$1 _f=$2
	shift 2
	run_ok one.out "$PP_ANALYZE" g.cap "$@" --format "$_f"
	got=$(total "$_f" <one.out)
	assert_eq "$_name: calls counted" "$calls" "$got"
	for j in 2 4; do
		"$PP_ANALYZE" -v -j $j g.cap "$@" --format "$_f" >j.out 2>j.err ||
			{ cat j.err; fail "$_name: -j $j exited $?"; }
		cmp -s one.out j.out || { diff -u one.out j.out | head -20; fail "$_name: -j $j differs"; }
		grep -q "in [0-9]* parts" j.err || { cat j.err; fail "$_name: -j $j did not run in parts"; }
	done
	echo "ok $_name: $calls calls, -j 2 and -j 4 the same bytes"
	# inside a slot, a slot's edge (T + 1 starts slot 25 of 10 ms), a round's edge (300 ms)
	cut "$_name@in" "$_f" $((first + 123456789)) "$@"
	cut "$_name@slot" "$_f" $((first + 250000000 - 1)) "$@"
	cut "$_name@round" "$_f" $((first + 300000000 - 1)) "$@"
}

# t812.1 hrcount, 10 ms slots, rounds of 100 ms: text, per CPU, JSON at 1 ms slots
check hr text hrcount -e "$EV" --period 10ms -i 100 -p "$lpid"
check hr-perins text hrcount -e "$EV" --period 10ms -i 100 --perins -p "$lpid"
check hr-json json hrcount -e "$EV" --period 1ms -i 50 -p "$lpid"
# t812.2 stat: one slot a round, and 20 ms slots as CSV
check stat text stat -e "$EV" -i 100 -p "$lpid"
check stat-csv csv stat -e "$EV" --period 20ms -i 100 -p "$lpid"

# t812.3 three ranges at once (inside a slot, a round's edge)
run_ok one.out "$PP_ANALYZE" g.cap hrcount -e "$EV" --period 10ms -i 100
T1=$((first + 123456789)) T2=$((first + 300000000 - 1))
run_ok /dev/null "$PP_ANALYZE" g.cap hrcount -e "$EV" --period 10ms -i 100 --time ",${T1}ns" --state-out a.state
run_ok /dev/null "$PP_ANALYZE" g.cap hrcount -e "$EV" --period 10ms -i 100 --time "$((T1 + 1))ns,${T2}ns" --state-out b.state
run_ok /dev/null "$PP_ANALYZE" g.cap hrcount -e "$EV" --period 10ms -i 100 --time "$((T2 + 1))ns," --state-out c.state
run_ok three.out "$PP_ANALYZE" report c.state a.state b.state
diff -u one.out three.out || fail "t812.3: three ranges are not the replay"
echo "ok three ranges"

# t812.4 a one-pass --time A,B report bins from A: its first 10 ms slot holds the calls of
# [A, A + 10 ms) (export counts them), its rounds all of [A, B]; -j 2 prints the same
A=$((first + 105000007)) E=$((first + 404999999))
run_ok t.json "$PP_ANALYZE" g.cap hrcount -e "$EV" --period 10ms -i 100 --time "${A}ns,${E}ns" --format json
want=$("$PP_ANALYZE" g.cap export --to csv -e "$EV" --time "${A}ns,$((A + 10000000 - 1))ns" | sed 1d | wc -l)
got=$(head -1 t.json | python3 -c 'import sys,json; print(json.loads(sys.stdin.readline())["counts"][0])')
assert_eq "t812.4 the first slot of --time A,B is [A, A + 10 ms)" "$want" "$got"
want=$("$PP_ANALYZE" g.cap export --to csv -e "$EV" --time "${A}ns,${E}ns" | sed 1d | wc -l)
assert_eq "t812.4 the rounds of --time A,B" "$want" "$(total json <t.json)"
"$PP_ANALYZE" -j 2 g.cap hrcount -e "$EV" --period 10ms -i 100 --time "${A}ns,${E}ns" --format json >tj.json ||
	fail "t812.4 -j 2"
cmp -s t.json tj.json || fail "t812.4: -j 2 --time A,B differs"
echo "ok --time A,B from A"
exit 0
