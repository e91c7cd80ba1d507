#!/bin/sh
# SPDX-License-Identifier: MIT
# t156-import-perf-dwarf: a perf.data of `perf record --call-graph dwarf` on unwind-c (no
# frame pointers, a shared library, libc's qsort calling back) unwinds as pp's own
# --call-graph dwarf captures do: the stack copies and user registers are carried into the
# capture's USTACK field, the binaries' unwind tables derived from this machine's files
# (said in one line), and profile -g's stacks reach main in >= 99 % of the load's samples,
# each level's share the same as its samples' pcs say, and within 3 points of the load's
# construction (100, 90, 70, 40; lib-unwind.sh says why 3).
# With -j 2 the binaries' DWARF is opened ahead of the replay from the converted capture.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-unwind.sh"
need_root
command -v perf >/dev/null || skip "needs perf (linux-perf)"

load=unwind-c
perf record -B -N -q -F 997 --call-graph dwarf -o uw.data -- "$PP_LOAD/$load" -d 8 \
	>rec.out 2>rec.err || { cat rec.err; fail "perf record --call-graph dwarf"; }
grep -q "^LOAD $load " rec.err || { cat rec.err; fail "no LOAD line of $load"; }
"$PP_ANALYZE" -vv -j 2 uw.data profile -g --flame-graph uw.folded >prof.out 2>prof.err ||
	{ cat prof.err; fail "profile -g on the perf.data"; }
grep -v '^pp-analyze: ' prof.err
grep -q 'the DWARF of [1-9][0-9]* binaries opened ahead of the replay$' prof.err ||
	{ cat prof.err; fail "-j 2 did not open the converted capture's DWARF ahead"; }
grep -q 'stack copies (--call-graph dwarf): unwind tables of [1-9]' prof.err ||
	fail "nothing said of the unwind tables, or none"
"$PP_ANALYZE" uw.data profile --no-inline --flame-graph flat.folded >flat.out 2>flat.err ||
	{ cat flat.err; fail "profile --no-inline on the perf.data"; }
grep "^$load;" uw.folded >mine.folded
uw_shares mine.folded "$load" 1000 flat.folded
assert_ge "callback samples under leaf_sort, through libc's qsort" 20 \
	"$(uw_under mine.folded cmp_int leaf_sort)"
exit 0
