#!/bin/sh
# SPDX-License-Identifier: MIT
# t137-record-dwarf-options: --call-graph's words as perf's (fp, dwarf, dwarf,SIZE rounded up
# to 8; a bad part named in one line), through pp-record, --for and the pp front end; the
# stack copies are the size asked for at most; and, where perf is installed, the capture's
# bytes a sample against perf.data's for the same program and size (a quarter at most).
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "--call-graph dwarf is x86-64 only, not $(uname -m)"

one_line_error "size over 65528" "65529 is out of range" \
	"$PP_RECORD" --call-graph dwarf,65529 -o x.cap -- true
one_line_error "a size with a unit" "'12k' is not a number of bytes" \
	"$PP_RECORD" --call-graph dwarf,12k -o x.cap -- true
one_line_error "another mode" "'lbr': expected fp or dwarf" \
	"$PP_RECORD" --call-graph lbr -o x.cap -- true
one_line_error "a bad size in --for" "--for 'profile --call-graph dwarf,0'" \
	"$PP_RECORD" --for 'profile --call-graph dwarf,0' -o x.cap -- true

# dwarf,1001 is 1008 bytes: no copy is longer
"$PP_RECORD" -F 997 --call-graph dwarf,1001 -o small.cap -- "$PP_LOAD/fpless" -d 0.3 \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" small.cap info --format json >info.json 2>&1 || fail "info exited $?"
n=$(sed -n 's/.*"user_stacks":\([0-9]*\).*/\1/p' info.json)
b=$(sed -n 's/.*"user_stack_bytes":\([0-9]*\).*/\1/p' info.json)
assert_ge "copies" 10 "$n"
[ "$b" -le $((n * 1008)) ] || fail "$b bytes in $n copies of 1008 bytes at most"

# --for: the analyzer's --call-graph dwarf records the copies; -g alone does not
"$PP_RECORD" -F 997 --for 'profile --call-graph dwarf' -o for.cap -- "$PP_LOAD/fpless" -d 0.3 \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record --for exited $?"; }
"$PP_ANALYZE" for.cap info >info.out 2>&1 || fail "info exited $?"
grep -q '^user stacks' info.out || { cat info.out; fail "--for: no stack copies"; }
"$PP_RECORD" -F 997 --for 'profile -g' -o fp.cap -- "$PP_LOAD/fpless" -d 0.2 >rec.out 2>&1 ||
	fail "pp-record --for -g exited $?"
"$PP_ANALYZE" fp.cap info >info.out 2>&1 || fail "info exited $?"
grep -q '^user stacks' info.out && fail "-g recorded stack copies"

# the pp front end: the analyzer's option reaches pp-record, the stacks reach main
if [ -x "$PP" ]; then
	"$PP" profile -F 997 --call-graph dwarf --flame-graph pp.folded -- "$PP_LOAD/fpless" -d 0.5 \
		>pp.out 2>&1 || { cat pp.out; fail "pp profile exited $?"; }
	# a sanitizer build's own start and exit (its runtime set up under _dl_init,
	# LeakSanitizer's check at exit) are not the program's, as in t135: under ASan they
	# hold 17-23 % of this half-second run's samples
	awk '$0 ~ /^fpless;/ && $0 !~ /__asan::|__lsan::|__sanitizer::/ { n = $NF; t += n
		if ($0 ~ /;main;fpl_level1;/) m += n }
	     END { printf "%d %d\n", t, m }' pp.folded >counts
	read total main <counts
	echo "pp profile: $main of $total samples reach main"
	assert_ge "samples" 20 "$total"
	assert_ge "samples reaching main (90% of $total)" $((total * 9 / 10)) "$main"
fi

command -v perf >/dev/null 2>&1 || { echo "no perf: the size comparison is left out"; exit 0; }
perf record -q -B -N --call-graph dwarf -F 997 -o perf.data -- "$PP_LOAD/fpless" -d 1 \
	>perf.out 2>&1 || { echo "perf record failed: the size comparison is left out"; exit 0; }
psamp=$(perf report -i perf.data --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1)
pbytes=$(stat -c %s perf.data)
"$PP_RECORD" -F 997 --call-graph dwarf -o cmp.cap -- "$PP_LOAD/fpless" -d 1 >rec.out 2>&1 ||
	fail "pp-record exited $?"
nsamp=$("$PP_ANALYZE" cmp.cap info | sed -n 's/^events *\([0-9]*\)$/\1/p')
ev=$("$PP_ANALYZE" cmp.cap dump 2>/dev/null |
	awk '/^# segment .* events / { for (i = 1; i <= NF; i++) if ($i ~ /^comp=/) { sub("comp=", "", $i); b += $i } }
	     END { print b + 0 }')
[ -n "$psamp" ] && [ "$psamp" -gt 0 ] || { echo "perf counted no samples: left out"; exit 0; }
echo "perf.data: $((pbytes / psamp)) bytes a sample ($psamp); pp: $((ev / nsamp)) ($nsamp)"
[ $((ev / nsamp * 4)) -le $((pbytes / psamp)) ] || fail "pp's bytes a sample are over a quarter of perf's"
exit 0
