#!/bin/sh
# SPDX-License-Identifier: MIT
# t356-cpu-golden: the CPU analyzers on small captures print exactly the committed
# outputs in tests/fixtures/expected/cpu/; each case runs twice and must give the same
# bytes.  The cases are tests/fixtures/cpu/cases, the captures tests/fixtures/cpu/*.ppcap
# (real ones, recorded by make-fixtures.sh) and *.desc (synthetic ones, built here by
# capbuild).  PP_REGEN=1 rewrites the expected outputs.
# Needs neither root nor a kernel.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
dir=$TOP/tests/fixtures/cpu
for d in "$dir"/*.desc; do
	"$CAPBUILD" "$d" "$T/$(basename "$d" .desc).ppcap" || fail "capbuild $d"
done
nr=0
while read -r name fixture args; do
	case "$name" in '#'* | '') continue ;; esac
	nr=$((nr + 1))
	args=$(printf '%s' "$args" | sed "s|@OUT@|$T/$name|g")
	for run in 1 2; do
		# shellcheck disable=SC2086 # ARGS are words
		cap=$dir/$fixture.ppcap
		[ -e "$cap" ] || cap=$T/$fixture.ppcap
		"$PP_ANALYZE" "$cap" $args >"$name.$run" 2>"$name.err" ||
			{ cat "$name.err"; fail "$name: pp-analyze $args exited $?"; }
		for f in "$T/$name".*; do
			case "$f" in *.1 | *.2 | *.err) ;; *) cat "$f" >>"$name.$run" && rm -f "$f" ;; esac
		done
	done
	cmp -s "$name.1" "$name.2" || fail "$name: two runs differ"
	golden_file "cpu/$name" "$name.1" ||
		fail "$name: output differs from tests/fixtures/expected/cpu/$name.out"
done <"$dir/cases"
assert_ge "cases run" 30 "$nr"
exit 0
