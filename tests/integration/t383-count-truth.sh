#!/bin/sh
# SPDX-License-Identifier: MIT
# t383-count-truth: stat and hrcount on real counters against the loads' ground truth.
#  .1 stat, counted per thread of a command (raw_syscalls:sys_enter filtered to getppid in
#     the kernel): the slots of every round add up to exactly the K calls the load made.
#  .2 hrcount at 1 ms slots, system-wide, on a load that makes a burst of B calls every
#     P ms: one burst of B calls every P slots (a wake-up delayed on a busy machine makes
#     one late, never early), and the slots sum to B x bursts.
#  .3 re-binned offline (--period 2 ms, twice the recorded one): bursts P/2 slots apart;
#     a period that is not a multiple of the recorded one is refused in one line.
#  .4 hrcount of the same load recorded as an event stream (samples, no counters): the
#     same bursts, binned by time.
#  .5 live through pp: stat -- COMMAND prints the same exact total.
#  .6 JSON and CSV carry the same counts as the text layout.
. "$(dirname "$0")/lib.sh"
need_event raw_syscalls:sys_enter

nr=$(sed -n 's/^REC_SYSCALL(\([0-9]*\), getppid)$/\1/p' "$PP_LOAD/../gen/syscalls.h")
[ -n "$nr" ] || nr=110
EV="raw_syscalls:sys_enter/id==$nr/"

# sums the "total" of every JSON line
json_total() { python3 -c 'import sys,json; print(sum(json.loads(l)["total"] for l in sys.stdin if l.strip()))'; }
# the bursts in the slots of JSON lines on stdin: from each slot over $1 / 10, the calls of
# the next half period $2 / 2 (a burst may straddle a slot boundary, or be preempted into
# pieces, some under the limit), one "start:sum" each
json_bursts() {
	python3 -c '
import sys, json
c = []
for l in sys.stdin:
    if l.strip():
        c += json.loads(l)["counts"]
lim, step, runs, i = int(sys.argv[1]) // 10, int(sys.argv[2]), [], 0
while i < len(c):
    if c[i] > lim:
        # a burst preempted midway comes in pieces, some under the limit: the burst is
        # every call in the half period from its first slot
        j = min(i + max(step // 2, 1), len(c))
        runs.append([i, sum(c[i:j])])
        i = j
    else:
        i += 1
print(" ".join("%d:%d" % (a, s) for a, s in runs))' "$1" "$2"
}
# whether the bursts on stdin ("start:sum" ...) are $2 of $3 calls each (90% at least; other
# callers may add) on a grid of $1 slots: the load sleeps to absolute times, so a burst can
# start late when the machine is busy (a wake-up delayed), never early, and the next is back
# on the grid: most bursts sit on it (within a slot), none before it, the last one on it
spaced() {
	python3 -c '
import sys
v = [tuple(map(int, x.split(":"))) for x in sys.stdin.read().split()]
step, n, b = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
starts = [a for a, _ in v]
dev = [s - (starts[0] + k * step) for k, s in enumerate(starts)]
on = sum(1 for d in dev if abs(d) <= 1)
ok = (len(v) == n and all(s >= b * 9 // 10 for _, s in v) and all(d >= -1 for d in dev) and
      on >= n * 3 // 4 and abs(dev[-1]) <= 3)
print("ok" if ok else "bad: %d bursts %s, off the grid by %s" % (len(v), v, dev))' "$1" "$2" "$3"
}

# t383.1
"$PP_RECORD" -q --for "stat -e $EV --period 100ms" -o stat.cap -- \
	"$PP_LOAD/syscalls" -n 30000 -m getppid 2>rec.err || { cat rec.err; fail "pp-record stat"; }
want=$(sed -n 's/.*getppid=\([0-9]*\) .*/\1/p' rec.err)
assert_eq "calls made" 30000 "$want"
"$PP_ANALYZE" stat.cap stat -e "$EV" --period 100ms -i 1000 >stat.txt || fail "stat"
cat stat.txt
got=$(awk '/total/ { s += $NF } END { print s + 0 }' stat.txt)
# counted per thread with inherit, the command's threads add up in its first thread's
# counter: its calls, and under a sanitizer build that runtime's own few getppid calls
if sanitized; then
	assert_ge "t383.1 stat: sum of the rounds' totals" "$want" "$got"
	[ "$got" -le $((want + 10)) ] || fail "t383.1: $got counted for $want calls"
else
	assert_eq "t383.1 stat: sum of the rounds' totals" "$want" "$got"
fi
got1=$got

# t383.2
B=2000 P=20 N=25
"$PP_RECORD" -q --for "hrcount -e $EV --period 1ms -i 100" -a -o hr.cap -- \
	"$PP_LOAD/bursts" -b $B -p $P -n $N -c 0 2>rec.err || { cat rec.err; fail "pp-record hrcount"; }
late=$(sed -n 's/.* late=\([0-9]*\) .*/\1/p' rec.err)
"$PP_ANALYZE" hr.cap hrcount -e "$EV" -i 100 --format json >hr.json || fail "hrcount json"
got=$(json_total <hr.json)
assert_ge "t383.2 hrcount total (other getppid callers may add)" $((B * N)) "$got"
[ "$got" -le $((B * N + 200)) ] || fail "t383.2: $got calls counted, $((B * N)) made"
hi=$(json_bursts $B $P <hr.json)
echo "bursts (slot:calls): $hi"
# timing is the load's truth only when it kept its schedule (a busy machine delays wake-ups)
"$PP_ANALYZE" hr.cap hrcount -e "$EV" -i 100 --period 2ms --format json >hr2.json || fail "re-bin"
assert_eq "t383.3 re-binned total" "$got" "$(json_total <hr2.json)"
if [ "${late:-1}" = 0 ]; then
	assert_eq "t383.2 bursts $P slots apart" ok "$(echo "$hi" | spaced $P $N $B)"
	hi=$(json_bursts $B $((P / 2)) <hr2.json)
	assert_eq "t383.3 re-binned bursts $((P / 2)) slots apart" ok \
		"$(echo "$hi" | spaced $((P / 2)) $N $B)"
else
	echo "t383.2/.3 spacing not checked: $late of the load's bursts ran late (a busy machine)"
fi

# t383.3 a period that is not a multiple of the recorded one
"$PP_ANALYZE" hr.cap hrcount -e "$EV" -i 100 --period 1500us >bad.out 2>bad.err && fail "1.5 ms accepted"
cat bad.err
grep -q 'multiple of' bad.err || fail "t383.3: no reason given"
assert_eq "t383.3 one line" 1 "$(wc -l <bad.err)"

# t383.4
"$PP_RECORD" -q -a -e "$EV" -o stream.cap -- "$PP_LOAD/bursts" -b $B -p $P -n $N -c 0 2>rec.err ||
	{ cat rec.err; fail "pp-record stream"; }
late=$(sed -n 's/.* late=\([0-9]*\) .*/\1/p' rec.err)
"$PP_ANALYZE" stream.cap hrcount -e "$EV" --period 1ms -i 100 --format json >st.json || fail "binned"
got=$(json_total <st.json)
assert_ge "t383.4 binned total" $((B * N)) "$got"
hi=$(json_bursts $B $P <st.json)
echo "binned bursts (slot:calls): $hi"
if [ "${late:-1}" = 0 ]; then
	assert_eq "t383.4 binned bursts $P slots apart" ok "$(echo "$hi" | spaced $P $N $B)"
else
	echo "t383.4 spacing not checked: $late of the load's bursts ran late (a busy machine)"
fi

# t383.5
[ -x "$PP" ] || fail "no pp binary"
"$PP" stat -e "$EV" --period 100ms -i 1000 -- "$PP_LOAD/syscalls" -n 20000 -m getppid \
	>live.txt 2>live.err || { cat live.err; fail "pp stat live"; }
got=$(awk '/total/ { s += $NF } END { print s + 0 }' live.txt)
if sanitized; then	# the sanitizer runtime's own calls, as in t383.1
	assert_ge "t383.5 live stat total" 20000 "$got"
	[ "$got" -le 20010 ] || fail "t383.5: $got counted for 20000 calls"
else
	assert_eq "t383.5 live stat total" 20000 "$got"
fi

# t383.6
"$PP_ANALYZE" stat.cap stat -e "$EV" --period 100ms -i 1000 --format json >stat.json || fail "json"
assert_eq "t383.6 JSON total = text total" "$got1" "$(json_total <stat.json)"
"$PP_ANALYZE" stat.cap stat -e "$EV" --period 100ms -i 1000 --format csv >stat.csv || fail "csv"
head -1 stat.csv | grep -q '^time,instance,event,slot0,' || fail "t383.6 CSV header"
assert_eq "t383.6 CSV total = text total" "$got1" "$(awk -F, 'NR > 1 { s += $NF } END { print s + 0 }' stat.csv)"
echo "PASS"
