#!/bin/sh
# SPDX-License-Identifier: MIT
# t215-analyze-limits-sideband: side-band data past the budget (PP_SIDEBAND_MAX; docs/capture-
# format.md, Limits; issue 20).  3*10^6 tasks (what 10^9 would start with), a binary that
# claims 2^32-1 symbols followed by 480 MB of symbol names, 10^5 kernel symbols of 30 KB, an
# unwind table of 2.4 * 10^6 rows in 4 KB of capture:
# under a 32 MiB budget each is read in bounded memory with one warning line, and the replay
# ends normally; the same captures with a budget of 4 GiB need far more (the control that
# shows the budget is what bounds them), and under the default (1 GiB) 3*10^6 tasks all fit.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
[ -x "$CAPHOSTILE" ] || fail "missing $CAPHOSTILE: run make first"

"$CAPBUILD" - small.ppcap <<EOT || fail "capbuild small"
kv hostname small
EOT
base=$(peak_rss base "$PP_ANALYZE" small.ppcap event-care)
MSG="the capture's side-band data passed the 32.00 MiB limit"

# check NAME CAPTURE CONTROL_MIN_KIB: bounded under 32 MiB; over CONTROL_MIN_KIB under 4 GiB
check() {
	rss=$(PP_SIDEBAND_MAX=32M peak_rss "$1" "$PP_ANALYZE" "$2" event-care)
	[ "$(grep -c "$MSG" "$1.err")" -eq 1 ] || { cat "$1.err"; fail "$1: not one warning"; }
	grep -q 'later tasks, symbols and maps are ignored (PP_SIDEBAND_MAX raises the limit)' "$1.err" ||
		{ cat "$1.err"; fail "$1: the warning says what happens"; }
	big=$(PP_SIDEBAND_MAX=4G peak_rss "$1-4g" "$PP_ANALYZE" "$2" event-care)
	echo "$1: peak RSS $rss KiB under 32 MiB, $big KiB under 4 GiB (a small capture: $base KiB)"
	assert_between "$1: peak RSS under a 32 MiB budget (KiB)" 1 $((base + SAN_K * (32768 + 16384))) "$rss"
	assert_ge "$1: peak RSS under a 4 GiB budget (KiB)" "$3" "$big"
	grep -q 'side-band' "$1-4g.err" && { cat "$1-4g.err"; fail "$1: warned under 4 GiB"; }
	true
}

# t215.1 tasks
"$CAPHOSTILE" tasks 3000000 tasks.ppcap || fail "caphostile tasks"
check tasks tasks.ppcap $((base + 200000))
# t215.2 the same under the default budget (1 GiB): every task kept, no warning
unset PP_SIDEBAND_MAX
peak_rss tasks-def "$PP_ANALYZE" tasks.ppcap event-care >/dev/null
grep -q 'side-band' tasks-def.err && { cat tasks-def.err; fail "tasks: warned under the default"; }
# t215.3 a symbol table that claims 2^32-1 symbols: 8000 symbols of 60000 bytes
"$CAPHOSTILE" symtab 8000 60000 sym.ppcap || fail "caphostile symtab"
check symtab sym.ppcap $((base + 400000))
# t215.4 kernel symbols: 10^5 of 3000 bytes
"$CAPHOSTILE" ksyms 100000 3000 ksym.ppcap || fail "caphostile ksyms"
check ksyms ksym.ppcap $((base + 250000))
# t215.5 an unwind table of 600 * 4096 rows (77 MB in pp-analyze's table)
"$CAPHOSTILE" unwind 600 unwind.ppcap || fail "caphostile unwind"
check unwind unwind.ppcap $((base + 60000))
exit 0
