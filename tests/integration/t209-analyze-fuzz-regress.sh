#!/bin/sh
# SPDX-License-Identifier: MIT
# t209-analyze-fuzz-regress: every input the fuzz targets found a bug with still passes.
#
# tests/fuzz/regress/TARGET/ holds the inputs (captures for pipeline and python, texts for
# expr, filter and selector); each fuzz target is also built without libFuzzer as
# fuzz-replay-TARGET (tests/fuzz/replay-main.c), so they run here in every build - under
# make asan with the sanitizers that found them.  docs/testing.md lists what each was.
. "$(dirname "$0")/lib.sh"

bin=$PP_LOAD/../tests
n=0
for dir in "$TOP"/tests/fuzz/regress/*/; do
	t=$(basename "$dir")
	set -- "$dir"*
	[ -e "$1" ] || continue
	if [ ! -x "$bin/fuzz-replay-$t" ]; then
		[ "$t" = python ] && { echo "no fuzz-replay-python (NO_PYTHON build): skipped"; continue; }
		fail "missing $bin/fuzz-replay-$t: run make first"
	fi
	"$bin/fuzz-replay-$t" "$@" >out 2>err || {
		tail -40 err
		fail "fuzz-replay-$t: an input of tests/fuzz/regress/$t fails again"
	}
	# each input said ok once: none ended the process early
	assert_eq "fuzz-replay-$t inputs" "$#" "$(grep -c '^ok ' err)"
	n=$((n + $#))
done
echo "$n regression inputs pass"
