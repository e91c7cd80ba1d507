#!/bin/sh
# SPDX-License-Identifier: MIT
# t356-cpu-golden: the CPU analyzers on small captures print exactly the committed
# outputs in tests/fixtures/expected/cpu/; each case runs twice and must give the same
# bytes: on one thread, then with PP_JOBS=$PP_JOBS_CHECK on the capture cut in segments of a
# record each (lib-analyze.sh; a recorded capture as it is).  The cases are tests/fixtures/cpu/cases, the captures tests/fixtures/cpu/*.ppcap
# (real ones, recorded by make-fixtures.sh) and *.desc (synthetic ones, built here by
# capbuild).  PP_REGEN=1 rewrites the expected outputs.
# Needs neither root nor a kernel.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
dir=$TOP/tests/fixtures/cpu
for d in "$dir"/*.desc; do
	"$CAPBUILD" "$d" "$T/$(basename "$d" .desc).ppcap" || fail "capbuild $d"
	"$CAPBUILD" -s "$PP_CUT_BYTES" "$d" "$T/$(basename "$d" .desc).ppcap.cut" ||
		fail "capbuild -s $PP_CUT_BYTES $d"
done
jobs=${PP_JOBS_CHECK:-0}
[ "$jobs" = 0 ] && jobs=1
nr=0
while read -r name fixture args; do
	case "$name" in '#'* | '') continue ;; esac
	nr=$((nr + 1))
	args=$(printf '%s' "$args" | sed "s|@OUT@|$T/$name|g")
	for run in 1 2; do
		# shellcheck disable=SC2086 # ARGS are words
		cap=$dir/$fixture.ppcap
		[ -e "$cap" ] || cap=$T/$fixture.ppcap
		j=1
		if [ $run = 2 ]; then
			j=$jobs
			[ -e "$cap.cut" ] && cap=$cap.cut
		fi
		PP_JOBS=$j "$PP_ANALYZE" "$cap" $args >"$name.$run" 2>"$name.err" ||
			{ cat "$name.err"; fail "$name: pp-analyze $args exited $?"; }
		for f in "$T/$name".*; do
			case "$f" in *.1 | *.2 | *.err) ;; *) cat "$f" >>"$name.$run" && rm -f "$f" ;; esac
		done
	done
	cmp -s "$name.1" "$name.2" || { diff -u "$name.1" "$name.2" | head -40
		fail "$name: one thread and PP_JOBS=$jobs on the capture cut small differ"; }
	golden_file "cpu/$name" "$name.1" ||
		fail "$name: output differs from tests/fixtures/expected/cpu/$name.out"
done <"$dir/cases"
assert_ge "cases run" 30 "$nr"
exit 0
