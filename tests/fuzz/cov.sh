#!/bin/sh
# SPDX-License-Identifier: MIT
# cov.sh COVDIR FUZZDIR TARGET... - line coverage of each fuzz target's corpus (make fuzz-cov).
#
# COVDIR holds the fuzz-replay-TARGET programs built with clang's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping); each runs on the corpus and seeds that make
# fuzz left in FUZZDIR/fuzz/, and llvm-cov reports the lines, functions and regions of pp's
# own code it links (tests/ and system headers left out): one line per target, appended to
# FUZZDIR/fuzz/report.txt, and the per-file table in COVDIR/cov/TARGET.txt.
set -u
cov=$1
fz=$2
shift 2
prof=$(command -v llvm-profdata || command -v llvm-profdata-14)
llcov=$(command -v llvm-cov || command -v llvm-cov-14)
[ -n "$prof" ] && [ -n "$llcov" ] || { echo "fuzz-cov: needs llvm-profdata and llvm-cov"; exit 1; }
mkdir -p "$cov/cov"
for t in "$@"; do
	bin=$cov/tests/fuzz-replay-$t
	[ -x "$bin" ] || { echo "missing $bin"; exit 1; }
	rm -f "$cov/cov/$t"-*.profraw
	n=$(find "$fz/fuzz/corpus-$t" "$fz/fuzz/seed-$t" -type f 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || { echo "fuzz-$t: no corpus in $fz/fuzz (run make fuzz first)"; continue; }
	find "$fz/fuzz/corpus-$t" "$fz/fuzz/seed-$t" -type f 2>/dev/null |
		LLVM_PROFILE_FILE="$cov/cov/$t-%p.profraw" xargs -n 100 "$bin" >/dev/null 2>&1
	"$prof" merge -sparse -o "$cov/cov/$t.profdata" "$cov/cov/$t"-*.profraw || continue
	rm -f "$cov/cov/$t"-*.profraw
	"$llcov" report "$bin" -instr-profile="$cov/cov/$t.profdata" \
		-ignore-filename-regex='(^|/)(tests|usr)/' >"$cov/cov/$t.txt" 2>/dev/null
	# TOTAL regions missed cover functions missed executed lines missed cover ...
	line=$(awk '/^TOTAL/ { printf "lines %s, functions %s, regions %s", $10, $7, $4 }' "$cov/cov/$t.txt")
	echo "fuzz-$t: $n inputs, coverage of the pp code it links: $line" | tee -a "$fz/fuzz/report.txt"
done
