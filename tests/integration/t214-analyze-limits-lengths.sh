#!/bin/sh
# SPDX-License-Identifier: MIT
# t214-analyze-limits-lengths: lengths a capture claims past the reader's limits
# (docs/capture-format.md, Limits; issue 20): a segment header of 4 GB (the most its 32-bit
# sizes say) and a string of 1 GB are refused with a one-line message naming the limits, the
# segment after them is read, and pp-analyze's peak RSS stays that of a small capture.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"
[ -x "$CAPHOSTILE" ] || fail "missing $CAPHOSTILE: run make first"

cat >small.desc <<EOT
kv hostname small
EOT
"$CAPBUILD" small.desc small.ppcap || fail "capbuild small.desc"
base=$(peak_rss base "$PP_ANALYZE" small.ppcap info)

LIMIT_MSG="a length or count over the reader's limits (docs/capture-format.md, Limits)"
for c in bigseg bigstr; do
	# t214.1 bigseg, t214.2 bigstr
	"$CAPHOSTILE" $c $c.ppcap || fail "caphostile $c"
	rss=$(peak_rss $c "$PP_ANALYZE" $c.ppcap info)
	grep -qx "  segment 0 at offset 64: $LIMIT_MSG" $c.out || { cat $c.out; fail "$c: the message"; }
	grep -q '^host *x ' $c.out || { cat $c.out; fail "$c: the segment after it was not read"; }
	grep -q '^integrity    1 corrupt segments skipped' $c.out || { cat $c.out; fail "$c: not counted"; }
	echo "$c: peak RSS $rss KiB (a small capture: $base KiB)"
	assert_between "$c: peak RSS (KiB)" 1 $((base + SAN_K * 8192)) "$rss"
	# strict: the same refusal is an error, in one line
	if "$PP_ANALYZE" --strict $c.ppcap info >strict.out 2>strict.err; then
		fail "$c: --strict accepted it"
	fi
	grep -q "segment 0 at offset 64: $LIMIT_MSG" strict.err || { cat strict.err; fail "$c: --strict message"; }
	[ "$(wc -l <strict.err)" -eq 1 ] || { cat strict.err; fail "$c: --strict: more than one line"; }
done
exit 0
