#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh DIR SECONDS TARGET... - seed, replay and run the fuzz targets built in DIR (make fuzz).
#
# For each TARGET (reader pipeline python state format expr filter selector): the inputs of
# tests/fuzz/regress/TARGET/ are replayed first (each must pass), then the target runs
# SECONDS (0: replay only) on DIR/fuzz/corpus-TARGET (kept between runs) and a seed
# corpus made here:
#   reader            samples/*.ppcap, tests/fixtures/*.ppcap, capbuild of tests/fixtures/*.desc,
#                     regress/reader/unwind-good.ppcap
#   pipeline, python  the same captures as capfuzz programs (fuzz-seed), with four configs each
#   state             states of those captures (tests/fuzz/state-seeds.txt: each analyzer with a
#                     state), halves cut in time and the pairs of halves (fuzz-state.c)
#   format            tests/fixtures/formats/*.format, alone and with records of 0x00 and 0xff
#   expr, filter      the expressions and filters of the unit suites (tests/unit/test-expr*.c)
#   selector          the -e arguments of the unit suite and of the integration tests
# with the dictionary tests/fuzz/TARGET.dict (capture.dict, state.dict, expr.dict).  A crash leaves its
# input in DIR/fuzz/crash-TARGET/ and fails the run after the other targets ran.  The
# figures (executions, edges and features covered, corpus, peak RSS) go to
# DIR/fuzz/report.txt and stdout.
set -u
dir=$1
secs=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$dir/fuzz
bin=$dir/tests
mkdir -p "$work"
# the suppressions of make asan (libpython's and libtraceevent's own leaks)
LSAN_OPTIONS=suppressions=$src/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}
# ...which name tep_parse_format(): a fuzzed format nests libtraceevent's parser deeper than
# ASan's default 30 frames of an allocation's stack, so keep them all
ASAN_OPTIONS=malloc_context_size=255${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export LSAN_OPTIONS ASAN_OPTIONS
report=$work/report.txt
: >"$report"
failed=""

# c_strings PREFIX OUTDIR FILE...: each C string literal that follows PREFIX( in FILEs,
# unescaped, into a file of its own in OUTDIR
c_strings() {
	python3 - "$@" <<'PY'
import re, sys, os
pre, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
lit = re.compile(r'\b(?:' + pre + r')\("((?:[^"\\]|\\.)*)"')
n = 0
for f in files:
    for m in lit.finditer(open(f, encoding="utf-8", errors="replace").read()):
        b = m.group(1).encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1", "replace")
        n += 1
        open(os.path.join(out, "u%d" % n), "wb").write(b)
PY
}

# the captures every capture-shaped seed comes from
captures() {
	out=$work/captures
	if [ ! -d "$out" ] || [ -n "$(find "$src/tests/fixtures" -newer "$out" -name '*.desc' | head -1)" ]; then
		rm -rf "$out"
		mkdir -p "$out"
		cp "$src"/samples/*.ppcap "$src"/tests/fixtures/*.ppcap "$out"/
		for d in "$src"/tests/fixtures/*.desc; do
			"$bin/capbuild" "$d" "$out/$(basename "$d" .desc).ppcap" 2>/dev/null ||
				rm -f "$out/$(basename "$d" .desc).ppcap"
		done
	fi
	echo "$out"
}

seed() {
	t=$1
	s=$work/seed-$t
	rm -rf "$s"
	mkdir -p "$s"
	case $t in
	reader)
		# with the good UNWIND capture: no other seed has the record yet
		cp "$(captures)"/*.ppcap "$src"/tests/fuzz/regress/reader/unwind-good.ppcap "$s"/ ;;
	pipeline|python)
		for c in "$(captures)"/*.ppcap; do
			n=$(basename "$c" .ppcap)
			for cfg in 0x00 0x51 0x92 0xcc; do
				"$bin/fuzz-seed" -c $cfg -n 100 "$c" "$s/$n-$cfg" ||
					echo "fuzz-seed failed on $c"
			done
		done ;;
	state)
		caps=$(captures)
		n=0
		grep -v '^#' "$src/tests/fuzz/state-seeds.txt" | while IFS='|' read -r cap t args; do
			cap=$(echo $cap)
			ns=$(echo $t | awk '{ split($1, p, "."); f = substr(p[2] "000000000", 1, 9); printf "%d%s", p[1], f }')
			n=$((n + 1))
			# shellcheck disable=SC2086
			"$dir/pp-analyze" "$caps/$cap.ppcap" $args --state-out "$s/w$n" 2>/dev/null &&
			"$dir/pp-analyze" "$caps/$cap.ppcap" $args --time ",${ns}ns" --state-out "$s/a$n" 2>/dev/null &&
			"$dir/pp-analyze" "$caps/$cap.ppcap" $args --time "$((ns + 1))ns," --state-out "$s/b$n" 2>/dev/null &&
			cat "$s/a$n" "$s/b$n" >"$s/p$n" || echo "state seed $n ($cap: $args) failed" >&2
		done ;;
	format)
		# each fixture format, and with a record of zeros and of 0xff bytes after its NUL
		for f in "$src"/tests/fixtures/formats/*.format; do
			n=$(basename "$f" .format)
			cp "$f" "$s/$n"
			{ cat "$f"; head -c 129 /dev/zero; } >"$s/$n-0"
			{ cat "$f"; printf '\0'; head -c 128 /dev/zero | tr '\0' '\377'; } >"$s/$n-ff"
		done ;;
	expr|filter)
		c_strings 'EQ|FEQ|STR|BAD|FBAD' "$s" "$src"/tests/unit/test-expr*.c ;;
	selector)
		c_strings 'parse_ok|parse_bad' "$s" "$src"/tests/unit/test-selector.c
		grep -ho " -e '[^']*'" "$src"/tests/integration/*.sh | sed "s/^ -e '//; s/'\$//" |
			sort -u | while IFS= read -r line; do
				i=$((${i:-0} + 1))
				printf '%s' "$line" >"$s/e$i"
			done ;;
	esac
	echo "$s"
}

for t in "$@"; do
	exe=$bin/fuzz-$t
	[ -x "$exe" ] || { echo "missing $exe: make fuzz-build"; exit 1; }
	case $t in
	reader|pipeline|python|format) dict=$src/tests/fuzz/capture.dict; max_len=65536 ;;
	state) dict=$src/tests/fuzz/state.dict; max_len=65536 ;;
	*) dict=$src/tests/fuzz/expr.dict; max_len=4096 ;;
	esac
	opts="-dict=$dict -max_len=$max_len -timeout=30 -rss_limit_mb=4096"
	case $t in
	pipeline) opts="$opts -close_fd_mask=2" ;;
	python) opts="$opts -close_fd_mask=2 -detect_leaks=0" ;;
	state|format) opts="$opts -close_fd_mask=2" ;;
	esac
	crash=$work/crash-$t
	mkdir -p "$crash" "$work/corpus-$t"
	# the regression inputs: every one runs once and must pass
	reg=$src/tests/fuzz/regress/$t
	if [ -d "$reg" ] && [ -n "$(ls "$reg")" ]; then
		# shellcheck disable=SC2086
		if ! "$exe" $opts -runs=1 "$reg"/* >"$work/regress-$t.log" 2>&1; then
			tail -30 "$work/regress-$t.log"
			echo "fuzz-$t: a regression input fails (log: $work/regress-$t.log)"
			failed="$failed $t"
			continue
		fi
		echo "fuzz-$t: $(ls "$reg" | wc -l) regression inputs pass"
	fi
	[ "$secs" -gt 0 ] || continue
	s=$(seed "$t")
	echo "fuzz-$t: $secs s, seeds $(ls "$s" | wc -l), corpus $(ls "$work/corpus-$t" | wc -l)"
	log=$work/fuzz-$t.log
	# shellcheck disable=SC2086
	"$exe" $opts -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$crash/" "$work/corpus-$t" "$s" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
	line="fuzz-$t: ${secs}s executions ${execs:-?} edges ${cov:-?} features ${ft:-?} corpus ${corp:-?} peak-rss ${rss:-?}MB"
	echo "$line" | tee -a "$report"
	if [ $rc -ne 0 ]; then
		grep -A30 'ERROR\|==[0-9]*==' "$log" | head -60
		echo "fuzz-$t: FAILED (exit $rc), input in $crash/, log $log"
		failed="$failed $t"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed"
	exit 1
fi
