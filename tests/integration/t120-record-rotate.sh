#!/bin/sh
# SPDX-License-Identifier: MIT
# t120-record-rotate: --max-size 768K --rotate 3 writes rot.cap.0, rot.cap.1, ... and keeps
# exactly the newest 3.  Each kept file starts in the middle of the recording and must
# analyse on its own: complete and indexed, the burner's user stacks resolved from the
# file's own symbol tables (main;burn_a;...), kernel frames from its own kallsyms, every
# task named (no <...> comm, the threads created after the start included), and its
# events continue where the previous file's ended.  A series left by an earlier run is
# replaced, and SIGUSR1 starts the next file at once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event sched:sched_switch

mkdir bin
cp "$PP_LOAD/cpuburn" bin/burner || fail "cannot copy cpuburn"
# an earlier series, longer than this one will be
for n in 0 1 2 3 4 5 6 7 8 9 10 11; do echo old >rot.cap.$n; done
"$PP_LOAD/ctxsw" -n 400000 >ctxsw.out &
cpid=$!
"$PP_RECORD" -a -F 997 -g -e cpu-clock -e sched:sched_switch,sched:sched_wakeup \
	--max-size 768K --rotate 3 -o rot.cap -- ./bin/burner -d 8 2>rec.err
rc=$?
wait $cpid
cat rec.err
assert_eq "pp-record exit status" 0 $rc
pid=$(lv rec.err pid)
[ -n "$pid" ] || fail "no LOAD line from the burner"
nfiles=$(sed -n 's/.*rotation: \([0-9]*\) files.*/\1/p' rec.err)
# more files than the 3 kept, so that the oldest goes (5 or more on a quiet machine; beside
# a hog on each CPU the storm is slower: 4 files of 4.2 MB written)
assert_ge "files written (more than the 3 kept)" 4 "$nfiles"
ls -l rot.cap*
assert_eq "files kept" 3 "$(ls rot.cap.* | wc -l)"
last=$((nfiles - 1))
for n in $((last - 2)) $((last - 1)) $last; do
	[ -f rot.cap.$n ] || fail "rot.cap.$n is missing: the newest 3 must be kept"
done

prev_last=0
for n in $((last - 2)) $((last - 1)) $last; do
	f=rot.cap.$n
	"$PP_ANALYZE" $f info >info.$n 2>&1 || { cat info.$n; fail "$f: pp-analyze info failed"; }
	grep -q "^format .*indexed" info.$n || { cat info.$n; fail "$f: not complete and indexed"; }
	grep -q "^integrity *ok" info.$n || { cat info.$n; fail "$f: integrity"; }
	grep -q "^symbols *kernel: yes" info.$n || { cat info.$n; fail "$f: no kernel symbols"; }
	assert_eq "$f record.part" "$n" "$("$CAPCHECK" $f kv record.part)"
	# no empty file in the series (closing one file once asked for the next switch at once)
	assert_ge "$f events" 1000 "$(sv $f samples)"
	# user stacks of the burner resolve from this file alone
	"$CAPCHECK" $f stacks "$pid" >stacks.$n
	total=$(awk '{ n += $NF } END { print n + 0 }' stacks.$n)
	a=$(awk '{ if ((";" $1 ";") ~ /;burn_a;/) n += $NF } END { print n + 0 }' stacks.$n)
	# the last file ends with the burner's exit: its samples there have left main (the
	# LOAD line's printf, exit_group; under ASan, LeakSanitizer's check at exit: about 12 ms
	# of them).  Up to 25 samples outside main are its exit there, not stacks left unresolved.
	out=$(awk '{ if ((";" $1 ";") !~ /;main;/) n += $NF } END { print n + 0 }' stacks.$n)
	echo "$f: burner samples $total, through burn_a $a, outside main $out"
	if [ $n = $last ]; then
		[ "$out" -gt 25 ] && out=25
		total=$((total - out))
	fi
	# a file holds what 768K of compressed events span: the burner's samples in it are
	# 997 a second of that span, at least 40% of them (it shares the CPUs with ctxsw's two
	# threads), at most 100 needed; on a fast machine ctxsw fills a file in a tenth of a second
	span_ms=$((($(sv $f last_ns) - $(sv $f first_ns)) / 1000000))
	need=$((span_ms * 997 * 4 / 10000))
	[ $need -gt 100 ] && need=100
	# the last file may hold only the burner's last moments (a few samples, some of them
	# in its exit path): there, the stacks through burn_a must resolve, but a share of a
	# handful of samples says nothing
	if { [ $n = $last ] && [ "$total" -lt 100 ]; } || [ $need -lt 20 ]; then
		assert_ge "$f: burner samples with stacks (outside its exit)" 5 "$total"
		assert_ge "$f: burner stacks resolved to main;burn_a" 1 "$a"
	else
		assert_ge "$f: burner samples with stacks ($span_ms ms of events)" $need "$total"
		assert_ge "$f: share of the burner's stacks resolved to main;burn_a (%)" 90 \
			$((a * 100 / total))
		grep -q "main;burn_a;burn_b" stacks.$n || fail "$f: no main;burn_a;burn_b stack"
	fi
	"$CAPCHECK" $f kframes >kf.$n
	kf=$(sed -n 's/^frames=\([0-9]*\).*/\1/p' kf.$n)
	ku=$(sed -n 's/.*unknown=\([0-9]*\)$/\1/p' kf.$n)
	[ "$ku" -le $((kf / 50)) ] || fail "$f: $ku of $kf kernel frames do not resolve"
	# every task has a name, ctxsw's second thread (created after the start) included
	"$PP_ANALYZE" $f trace >trace.$n 2>&1 || fail "$f: pp-analyze trace failed"
	if grep -q '<\.\.\.>' trace.$n; then
		grep '<\.\.\.>' trace.$n | head -5
		fail "$f: events of unnamed tasks"
	fi
	grep -q " ctxsw " trace.$n || fail "$f: no ctxsw events named ctxsw"
	# the files follow each other in time
	first=$(sv $f first_ns)
	lastns=$(sv $f last_ns)
	[ "$first" -ge "$prev_last" ] || fail "$f starts at $first, before the previous file's end $prev_last"
	prev_last=$lastns
	"$PP_ANALYZE" $f profile >prof.$n 2>&1 || { cat prof.$n; fail "$f: profile failed"; }
	# (the last file's handful of burner samples may rank below the table's 40 rows)
	if [ $n != $last ] || [ "$total" -ge 100 ]; then
		grep -q "burn_" prof.$n ||
			{ head -20 prof.$n; fail "$f: profile does not name the burner's functions"; }
	fi
done

# SIGUSR1: the next file now
"$PP_RECORD" -a -e sched:sched_switch --max-size 64M --rotate 2 -o usr.cap --duration 3 \
	2>usr.err &
rpid=$!
sleep 1
kill -USR1 $rpid
sleep 0.5
kill -USR1 $rpid
wait $rpid
cat usr.err
ls -l usr.cap*
assert_eq "files kept after two SIGUSR1" 2 "$(ls usr.cap.* | wc -l)"
[ -f usr.cap.1 ] && [ -f usr.cap.2 ] || fail "SIGUSR1 did not switch files"
for f in usr.cap.1 usr.cap.2; do
	"$PP_ANALYZE" $f info | grep -q "^integrity *ok" || fail "$f: integrity"
	assert_ge "$f events" 1 "$(sv $f samples)"
done
exit 0
