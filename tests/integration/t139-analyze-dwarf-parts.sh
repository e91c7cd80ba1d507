#!/bin/sh
# SPDX-License-Identifier: MIT
# t139-analyze-dwarf-parts: --call-graph dwarf stacks are unwound where a sample becomes an
# event, so the parts of -j N (each with its own unwinder, the tables from the side band)
# and mergeable states print what one replay prints, byte for byte: profile -g (text, JSON,
# folded), trace -g; and the states' report holds the stacks with the capture moved away.
# With -j 2 the binaries' DWARF is opened from the start (profile -g asks for inline frames),
# not with -j 1 nor with --no-inline.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-analyze.sh"
. "$(dirname "$0")/lib-state.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "--call-graph dwarf is x86-64 only, not $(uname -m)"

"$PP_RECORD" -F 997 --call-graph dwarf -o d.cap -- "$PP_LOAD/fpless" -d 1 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
for args in "profile -g" "profile -g --format json" "trace -g"; do
	# shellcheck disable=SC2086
	run_ok one.out "$PP_ANALYZE" d.cap $args
	# shellcheck disable=SC2086
	PP_PARTS_PER_JOB=3 run_ok j.out "$PP_ANALYZE" -j 2 d.cap $args
	diff -u one.out j.out >diff.out || { head -30 diff.out; fail "-j 2 $args: not the one pass"; }
	# profile's table lists the functions with samples of their own: fpl_level1 has few
	# (none at all on a busy machine), the callback most; trace prints whole stacks
	case $args in trace*) want=fpl_level1 ;; *) want=fpl_cmp ;; esac
	grep -q "$want" one.out || fail "$args: no $want in the stacks"
done
"$PP_ANALYZE" d.cap profile -g --flame-graph one.folded >/dev/null || fail "profile --flame-graph"
PP_PARTS_PER_JOB=3 "$PP_ANALYZE" -j 2 d.cap profile -g --flame-graph j.folded >/dev/null ||
	fail "profile -j 2 --flame-graph"
sort one.folded >a; sort j.folded >b
cmp -s a b || fail "-j 2: other folded stacks"
grep -q ';main;fpl_level1;fpl_level2;fpl_level3;' a || fail "no folded stack reaches main"
# the DWARF opened ahead of the replay: said at -vv, for -j 2 with inline frames only
ahead="opened ahead of the replay"
"$PP_ANALYZE" -vv -j 2 d.cap profile -g >/dev/null 2>vv.err || fail "-vv -j 2 profile -g"
grep -q "$ahead" vv.err || { cat vv.err; fail "-j 2: the DWARF not opened ahead"; }
for opts in "-j 1|profile -g" "-j 2|profile -g --no-inline" "-j 2|trace -g"; do
	# shellcheck disable=SC2086
	"$PP_ANALYZE" -vv ${opts%%|*} d.cap ${opts#*|} >/dev/null 2>vv.err || fail "$opts"
	! grep -q "$ahead" vv.err || fail "$opts: the DWARF opened ahead"
done
AWAY=1 check_at "profile -g state" d.cap "$(mid d.cap)" text profile -g
grep -q 'fpl_cmp' merged.out || fail "the merged report has no fpl_cmp"
exit 0
