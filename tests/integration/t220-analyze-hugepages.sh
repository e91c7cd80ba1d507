#!/bin/sh
# SPDX-License-Identifier: MIT
# t220-analyze-hugepages: pp-analyze's heap in transparent huge pages (analyze/heap.c).  A
# running pp-analyze's [heap] mapping is THP-eligible, and not with PP_HUGEPAGES=0 (which
# marks it MADV_NOHUGEPAGE: small pages in the kernel's `always` mode too); `profile -g` of a
# --call-graph dwarf capture of unwind-c (the kernel's symbols, libc's tables: thousands of
# first touches) takes at most 55 % of the page faults it takes with PP_HUGEPAGES=0, with
# -j 1 and -j 2 (measured: 31-37 % and 41-46 %; the faults of mapped files, the debug files'
# and the libraries', stay; 65 % with -j 2 when the workers' arenas are not marked), and
# prints the same, byte for byte.
. "$(dirname "$0")/lib.sh"
need_root
sanitized && skip "a sanitizer's allocator: the heap is not pp-analyze's to mark"
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -r $thp ] || skip "no $thp: this kernel has no transparent huge pages"
mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $thp)
[ "$mode" = never ] && skip "transparent huge pages are off here ($thp: never)"
command -v perf >/dev/null || skip "needs perf (linux-perf) to count page faults"
free_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
[ "$free_mb" -ge 512 ] || skip "only $free_mb MB available: huge pages would not be had"

# eligible ENV...: THPeligible of the [heap] of a pp-analyze waiting on its standard input
eligible() {
	sleep 3 | env "$@" "$PP_ANALYZE" - info >/dev/null 2>&1 &
	i=0
	pid=
	while [ $i -lt 50 ] && [ -z "$pid" ]; do
		pid=$(pgrep -n -x pp-analyze)
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$pid" ] || fail "no pp-analyze waiting on its input"
	sleep 0.3
	awk '/^[0-9a-f]+-[0-9a-f]+ / { heap = / \[heap\]$/ } heap && /^THPeligible:/ { print $2; exit }' \
		"/proc/$pid/smaps"
	wait
}
assert_eq "THPeligible of pp-analyze's heap" 1 "$(eligible PP_HUGEPAGES=1)"
assert_eq "THPeligible of pp-analyze's heap with PP_HUGEPAGES=0 (THP mode $mode)" 0 \
	"$(eligible PP_HUGEPAGES=0)"

"$PP_RECORD" -F 997 --call-graph dwarf -o uw.cap -- "$PP_LOAD/unwind-c" -d 2 >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record --call-graph dwarf"; }
# faults J ENV: page faults of `pp-analyze -j J uw.cap profile -g` (perf stat: a child's
# getrusage from Python counts its own faults in), its output in out.J.ENV
faults() {
	perf stat -x, -e page-faults -o "faults.$1.$2" -- env "$2" "$PP_ANALYZE" -j "$1" uw.cap \
		profile -g >"out.$1.$2" || return
	awk -F, '$3 == "page-faults" { print $1 }' "faults.$1.$2"
}
for j in 1 2; do
	plain=$(faults $j PP_HUGEPAGES=0) || fail "-j $j with PP_HUGEPAGES=0"
	huge=$(faults $j PP_HUGEPAGES=1) || fail "-j $j"
	echo "-j $j: $huge page faults, $plain with PP_HUGEPAGES=0"
	assert_ge "-j $j: page faults with PP_HUGEPAGES=0, at least 20/11 of those with huge pages" \
		"$((20 * huge / 11))" "$plain"
	cmp "out.$j.PP_HUGEPAGES=0" "out.$j.PP_HUGEPAGES=1" || fail "-j $j: the outputs differ"
	grep -q 'level1' "out.$j.PP_HUGEPAGES=1" || fail "-j $j: no level1 in the profile"
done
exit 0
